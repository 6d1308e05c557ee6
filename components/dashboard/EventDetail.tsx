"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { AbsoluteTime } from "@/components/ui/Time";
import { KeyValueTable } from "@/components/ui/KeyValueTable";
import { api, type Attempt, type GatewayEvent, type Paged } from "@/components/dashboard/api";
import { BodyText } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { Table, Td, Th, Tr } from "@/components/ui/Table";

const CANCELLABLE = new Set(["SCHEDULED", "QUEUED", "HOLD"]);

/**
 * One event: what it delivers (method, URL, headers, body as text), its attempts with their responses,
 * and Retry (a MANUAL attempt now), Cancel (while it waits) and Mute (no further automatic retries).
 */
export function EventDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const client = useQueryClient();
  const event = useQuery({ queryKey: ["event", id], queryFn: () => api<GatewayEvent>(`events/${id}`), refetchInterval: 5_000 });
  const attempts = useQuery({
    queryKey: ["attempts-of", id],
    queryFn: () => api<Paged<Attempt>>(`attempts?event_id=${id}&dir=asc&limit=100`),
    refetchInterval: 5_000,
  });
  const [attemptId, setAttemptId] = useState<string | null>(null);
  const connectionNames = useNames("connections");
  const attempt = useQuery({ queryKey: ["attempt", attemptId], queryFn: () => api<Attempt>(`attempts/${attemptId}`), enabled: Boolean(attemptId) });
  const [notice, setNotice] = useState<string | null>(null);
  const action = useMutation({
    mutationFn: ({ verb }: { verb: "retry" | "cancel" | "mute" }) => api(`events/${id}/${verb}`, { method: verb === "retry" ? "POST" : "PUT" }),
    onSuccess: (_, { verb }) => {
      setNotice({ retry: "Retry started: a new attempt is on its way.", cancel: "Event cancelled.", mute: "Event muted: no more automatic retries." }[verb]);
      void client.invalidateQueries();
    },
  });

  const e = event.data;
  return (
    <Card
      data-testid="event-detail"
      title={<span className="font-mono">{id}</span>}
      actions={
        <>
          <Button size="sm" variant="primary" onClick={() => action.mutate({ verb: "retry" })} disabled={action.isPending} data-testid="event-retry">
            Retry
          </Button>
          <Button
            size="sm"
            onClick={() => action.mutate({ verb: "cancel" })}
            disabled={action.isPending || !e || !CANCELLABLE.has(e.status)}
            title="Only a scheduled, queued or held event can be cancelled"
          >
            Cancel
          </Button>
          <Button size="sm" onClick={() => action.mutate({ verb: "mute" })} disabled={action.isPending}>
            Mute
          </Button>
          <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close details">
            Close
          </Button>
        </>
      }
    >
      {action.error && <ErrorMessage title="The action failed" error={action.error} />}
      {notice && !action.error && (
        <p role="status" className="mb-3 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-500/10 dark:text-emerald-200">
          {notice}
        </p>
      )}
      {event.error ? (
        <ErrorMessage title="This event could not be loaded" error={event.error} />
      ) : !e ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
      ) : (
        <div className="flex flex-col gap-5">
          <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
            <Info label="Status">
              <StatusBadge status={e.status} />
            </Info>
            <Info label="Attempts">{e.attempts}</Info>
            <Info label="Last response">{e.response_status ?? e.error_code ?? "—"}</Info>
            <Info label="Created">
              <AbsoluteTime iso={e.created_at} />
            </Info>
            <Info label="Connection">
              <Link
                href={`/dashboard/connections/${encodeURIComponent(e.webhook_id)}`}
                className="text-xs font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                title={e.webhook_id}
                data-testid="event-connection"
              >
                {connectionNames.get(e.webhook_id) ?? e.webhook_id}
              </Link>
            </Info>
            <Info label="Request">
              <span className="font-mono text-xs">{e.request_id}</span>
            </Info>
            <Info label="Next attempt">
              <AbsoluteTime iso={e.next_attempt_at} />
            </Info>
            <Info label="Delivered">
              <AbsoluteTime iso={e.successful_at} />
            </Info>
          </dl>
          {e.data && (
            <section aria-label="Delivered request">
              <h3 className="mb-2 text-sm font-semibold">
                <span className="font-mono">{e.data.method}</span> <span className="font-mono font-normal break-all">{e.data.url ?? e.data.path}</span>
              </h3>
              <h4 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">Headers</h4>
              <div className="mb-3 rounded-md border border-zinc-200 dark:border-zinc-800">
                <KeyValueTable rows={Object.entries(e.data.headers ?? {}).map(([k, v]) => [k, String(v)])} emptyText="No headers." />
              </div>
              <h4 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">Body</h4>
              <BodyText value={e.data.body} testId="event-body" />
            </section>
          )}
          <section aria-label="Attempts">
            <h3 className="mb-2 text-sm font-semibold">Attempts</h3>
            {attempts.error ? (
              <ErrorMessage title="Attempts could not be loaded" error={attempts.error} />
            ) : !attempts.data?.models.length ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">No attempt yet: an event gets one when it is delivered.</p>
            ) : (
              <Table caption="Attempts of this event" data-testid="attempts-table">
                <thead>
                  <tr>
                    <Th>#</Th>
                    <Th>Status</Th>
                    <Th>Response</Th>
                    <Th>Trigger</Th>
                    <Th>Latency</Th>
                    <Th>At</Th>
                  </tr>
                </thead>
                <tbody>
                  {attempts.data.models.map((a) => (
                    <Tr key={a.id} onOpen={() => setAttemptId(a.id)} selected={a.id === attemptId} data-testid="attempt-row">
                      <Td>{a.attempt_number}</Td>
                      <Td>
                        <StatusBadge status={a.status} />
                      </Td>
                      <Td className="font-mono">{a.response_status ?? a.error_code ?? "—"}</Td>
                      <Td className="text-xs">{a.trigger}</Td>
                      <Td className="tabular-nums">{a.response_latency != null ? `${a.response_latency} ms` : "—"}</Td>
                      <Td>
                        <AbsoluteTime iso={a.created_at} />
                      </Td>
                    </Tr>
                  ))}
                </tbody>
              </Table>
            )}
            {attemptId && (
              <div className="mt-3">
                <h4 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">
                  Response of attempt <span className="font-mono">{attemptId}</span>
                </h4>
                {attempt.error ? (
                  <ErrorMessage error={attempt.error} />
                ) : attempt.data ? (
                  <BodyText value={attempt.data.body} testId="attempt-body" />
                ) : (
                  <p className="text-sm">Loading…</p>
                )}
              </div>
            )}
          </section>
        </div>
      )}
    </Card>
  );
}

function Info({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5 truncate">{children}</dd>
    </div>
  );
}
