"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, apiAll, qs, type Paged } from "@/components/dashboard/api";
import { when } from "@/components/dashboard/forms";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th, Tr } from "@/components/ui/Table";
import { cx } from "@/components/ui/cx";
import type { TIssue } from "@/lib/gateway/issues/schemas";

/** An issue as `/issues` answers it (docs/gateway-api.md "Issues and issue triggers"). */
export type Issue = TIssue;

const STATUSES = ["OPENED", "ACKNOWLEDGED", "IGNORED", "RESOLVED", ""] as const;

/** What failed, in words, from the issue's aggregation keys; `names` maps connection, destination and transformation ids to names. */
export function issueSummary(i: Issue, names: Map<string, string>): string {
  const k = i.aggregation_keys;
  const name = (id: unknown) => names.get(String(id)) ?? String(id);
  if (i.type === "delivery") {
    const what = [...(k.response_status ?? []).map((s) => `HTTP ${String(s)}`), ...(k.error_code ?? []).map(String)].join(", ") || "failure";
    return `${what} delivering to ${(k.webhook_id ?? []).map(name).join(", ") || "a connection"}`;
  }
  if (i.type === "transformation") return `${(k.log_level ?? []).join(", ")} in transformation ${(k.transformation_id ?? []).map(name).join(", ")}`;
  return `Backlog at destination ${(k.destination_id ?? []).map(name).join(", ")}`;
}

/** Names of the team's connections, destinations and transformations by id, for issue summaries. */
export function useNames() {
  return useQuery({
    queryKey: ["names"],
    staleTime: 60_000,
    queryFn: async () => {
      const [c, d, t] = await Promise.all(
        ["connections?disabled=true", "destinations", "transformations"].map((p) => apiAll<{ id: string; name: string; full_name?: string }>(p)),
      );
      return new Map([...c.models, ...d.models, ...t.models].map((m) => [m.id, m.full_name ?? m.name]));
    },
  });
}

/** The Issues page: issues by status, newest activity first; a row opens the issue. */
export function IssuesList() {
  const router = useRouter();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("OPENED");
  const path = `issues${qs({ status, order_by: "last_seen_at", dir: "desc", limit: 100 })}`;
  const list = useQuery({ queryKey: ["issues", path], queryFn: () => api<Paged<Issue>>(path), refetchInterval: 15_000 });
  const names = useNames();
  const triggers = useQuery({ queryKey: ["issue-triggers-count"], queryFn: () => api<Paged<unknown>>("issue-triggers?limit=1") });

  return (
    <>
      <PageHeader
        title="Issues"
        description="Failures grouped by cause. Acknowledge one you are working on, resolve it when it is fixed."
        actions={
          <ButtonLink href="/dashboard/issues/triggers" variant="secondary">
            Triggers and notifications
          </ButtonLink>
        }
      />
      <div role="group" aria-label="Status" className="mb-4 inline-flex flex-wrap rounded-md shadow-xs ring-1 ring-zinc-300 dark:ring-zinc-700">
        {STATUSES.map((s) => (
          <button
            key={s || "all"}
            type="button"
            aria-pressed={status === s}
            onClick={() => setStatus(s)}
            className={cx(
              "px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md focus-visible:outline-2 focus-visible:outline-indigo-600",
              status === s ? "bg-indigo-600 text-white dark:bg-indigo-500" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
            )}
          >
            {s ? s.charAt(0) + s.slice(1).toLowerCase() : "All"}
          </button>
        ))}
      </div>
      {list.error ? (
        <ErrorMessage title="Issues could not be loaded" error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data ? (
        <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : list.data.models.length === 0 ? (
        triggers.data && triggers.data.count === 0 ? (
          <EmptyState
            title="No issue triggers yet"
            action={
              <ButtonLink href="/dashboard/issues/triggers" variant="primary">
                Create an issue trigger
              </ButtonLink>
            }
          >
            Issues open only for the failures an issue trigger watches: failed deliveries, transformation errors or backlogs.
          </EmptyState>
        ) : (
          <EmptyState title={status ? `No ${status.toLowerCase()} issues` : "No issues"}>
            {status === "OPENED" ? "Nothing is failing right now. New failures your triggers watch open issues here." : "Choose another status above."}
          </EmptyState>
        )
      ) : (
        <Card bodyClassName="p-0!">
          <Table caption="Issues">
            <thead>
              <tr>
                <Th>Issue</Th>
                <Th>Type</Th>
                <Th>Status</Th>
                <Th>First seen</Th>
                <Th>Last seen</Th>
              </tr>
            </thead>
            <tbody>
              {list.data.models.map((i) => (
                <Tr key={i.id} onOpen={() => router.push(`/dashboard/issues/${i.id}`)} data-testid="issue-row" data-id={i.id}>
                  <Td className="min-w-56">
                    <Link
                      href={`/dashboard/issues/${i.id}`}
                      className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                      onClick={(e) => e.stopPropagation()}
                      tabIndex={-1}
                    >
                      {issueSummary(i, names.data ?? new Map<string, string>())}
                    </Link>
                    <div className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{i.id}</div>
                  </Td>
                  <Td>
                    <Badge tone="accent">{i.type}</Badge>
                  </Td>
                  <Td>
                    <StatusBadge status={i.status} />
                  </Td>
                  <Td className="whitespace-nowrap text-xs">{when(i.first_seen_at)}</Td>
                  <Td className="whitespace-nowrap text-xs">{when(i.last_seen_at)}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
