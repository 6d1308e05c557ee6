"use client";

import { useQuery } from "@tanstack/react-query";
import { KeyValueTable } from "@/components/ui/KeyValueTable";
import { api } from "@/components/dashboard/api";
import { BodyText } from "@/components/dashboard/Explorer";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { displayText } from "@/components/ui/text";

/** A request or attempt: its fields, headers and body, all as text. */
export function RecordDetail({ path, id, onClose }: { path: "requests" | "attempts"; id: string; onClose: () => void }) {
  const q = useQuery({
    queryKey: [path, id],
    queryFn: () => api<Record<string, unknown> & { data?: { headers?: Record<string, string>; body?: unknown }; body?: unknown }>(`${path}/${id}`),
  });
  const r = q.data;
  const fields = r ? Object.entries(r).filter(([k, v]) => k !== "data" && k !== "body" && (typeof v !== "object" || v === null)) : [];
  return (
    <Card
      data-testid="record-detail"
      title={<span className="font-mono">{id}</span>}
      actions={
        <Button size="sm" variant="ghost" onClick={onClose}>
          Close
        </Button>
      }
    >
      {q.error ? (
        <ErrorMessage title="This record could not be loaded" error={q.error} />
      ) : !r ? (
        <p className="text-sm">Loading…</p>
      ) : (
        <div className="flex flex-col gap-4">
          <div className="rounded-md border border-zinc-200 dark:border-zinc-800">
            <KeyValueTable rows={fields.map(([k, v]) => [k, displayText(v)])} emptyText="No fields." nameLabel="Field" />
          </div>
          {r.data?.headers && (
            <section aria-label="Headers">
              <h3 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">Headers</h3>
              <div className="rounded-md border border-zinc-200 dark:border-zinc-800">
                <KeyValueTable rows={Object.entries(r.data.headers).map(([k, v]) => [k, String(v)])} emptyText="No headers." />
              </div>
            </section>
          )}
          <section aria-label="Body">
            <h3 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">{path === "attempts" ? "Response body" : "Body"}</h3>
            <BodyText value={path === "attempts" ? r.body : r.data?.body} testId="record-body" />
          </section>
        </div>
      )}
    </Card>
  );
}
