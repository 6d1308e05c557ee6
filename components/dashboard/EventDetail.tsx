"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Duration, RelativeTime, ZonedTime } from "@/components/ui/Time";
import { api, type Attempt, type GatewayEvent, type Paged } from "@/components/dashboard/api";
import { BodyText } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { IdLink } from "@/components/ui/IdLink";
import { ActionResult, DetailSection, Fact, Facts, HeadersTable, linkTo, RequestLine } from "@/components/dashboard/RecordDetail";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { Table, Td, Th, Tr } from "@/components/ui/Table";

const CANCELLABLE = new Set(["SCHEDULED", "QUEUED", "HOLD"]);

/**
 * One event, in the explorer's side panel: what it delivers (method, path and query, URL, headers, body as
 * text), when (the viewer's zone), links to its request, connection, destination and attempts (with copy
 * buttons), its attempts with their responses, and Retry (a MANUAL attempt now), Cancel (while it waits) and Mute (no further automatic retries).
 */
export function EventDetail({ id }: { id: string }) {
  const client = useQueryClient();
  const event = useQuery({ queryKey: ["event", id], queryFn: () => api<GatewayEvent>(`events/${id}`), refetchInterval: 5_000 });
  const attempts = useQuery({
    queryKey: ["attempts-of", id],
    queryFn: () => api<Paged<Attempt>>(`attempts?event_id=${id}&dir=asc&limit=100`),
    refetchInterval: 5_000,
  });
  const [attemptId, setAttemptId] = useState<string | null>(null);
  const names = useNames("connections", "destinations");
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
    <div className="flex flex-col gap-5" data-testid="event-detail">
      <div className="flex flex-wrap gap-2">
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
      </div>
      <ActionResult error={action.error} notice={notice} />
      {event.error ? (
        <ErrorMessage title="This event could not be loaded" error={event.error} />
      ) : !e ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
      ) : (
        <>
          {e.data && (
            <div>
              <RequestLine method={e.data.method} path={e.data.path} query={e.data.query} testId="request-line" />
              {e.data.url && <p className="mt-1 font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">to {e.data.url}</p>}
            </div>
          )}
          <Facts>
            <Fact label="Status">
              <span className="inline-flex items-center gap-2">
                <StatusBadge status={e.status} />
                <span className="font-mono text-xs">{e.response_status ?? e.error_code ?? ""}</span>
              </span>
            </Fact>
            <Fact label="Attempts">{e.attempts}</Fact>
            <Fact label="Created">
              <ZonedTime iso={e.created_at} />
            </Fact>
            <Fact label="Last attempt">
              <ZonedTime iso={e.last_attempt_at} />
            </Fact>
            {e.next_attempt_at && (
              <Fact label="Next attempt">
                <ZonedTime iso={e.next_attempt_at} />
              </Fact>
            )}
            {e.successful_at && (
              <Fact label="Delivered">
                <ZonedTime iso={e.successful_at} />
              </Fact>
            )}
            <Fact label="Request">
              <IdLink id={e.request_id} href={linkTo.request(e.request_id)} testId="event-request-link" />
            </Fact>
            <Fact label="Connection">
              <span className="inline-flex items-center gap-1.5">
                <Link
                  href={linkTo.connection(e.webhook_id)}
                  className="truncate text-sm text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                  title={e.webhook_id}
                  data-testid="event-connection"
                >
                  {names.get(e.webhook_id) ?? e.webhook_id}
                </Link>
                <CopyButton value={e.webhook_id} title={`Copy ${e.webhook_id}`} />
              </span>
            </Fact>
            <Fact label="Destination">
              <IdLink id={e.destination_id} label={names.get(e.destination_id)} href={linkTo.attemptsOfDestination(e.destination_id)} />
            </Fact>
            <Fact label="Event id">
              <IdLink id={e.id} />
            </Fact>
          </Facts>
          <DetailSection title="Attempts">
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
                    <Th>Time</Th>
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
                      <Td className="font-mono text-xs">{a.response_status ?? a.error_code ?? "—"}</Td>
                      <Td className="text-xs whitespace-nowrap tabular-nums">
                        <Duration ms={a.response_latency} />
                      </Td>
                      <Td className="text-xs">
                        <RelativeTime iso={a.created_at} />
                      </Td>
                    </Tr>
                  ))}
                </tbody>
              </Table>
            )}
            {attemptId && (
              <div className="mt-3">
                <h4 className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">
                  Response of attempt <IdLink id={attemptId} href={linkTo.attempt(attemptId)} />
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
          </DetailSection>
          {e.data && (
            <>
              <DetailSection title="Headers delivered">
                <HeadersTable headers={e.data.headers} />
              </DetailSection>
              <DetailSection title="Body delivered">
                <BodyText value={e.data.body} testId="event-body" record={e.data} rawPath={`events/${encodeURIComponent(e.id)}/raw_body`} />
              </DetailSection>
            </>
          )}
        </>
      )}
    </div>
  );
}
