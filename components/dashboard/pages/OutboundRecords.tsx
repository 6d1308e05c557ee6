"use client";
/**
 * A tenant's outbound events and attempts on the dashboard (docs/dashboard.md "Outbound"): paged with
 * Newer/Older (the API's cursors), each row opens in place to show the event's payload, or the attempt's
 * response (status, headers, body) and payload; Retry is offered on failed attempts only; the attempts can be
 * narrowed to the failed ones. Bodies are rendered as text, never as markup.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { when } from "@/components/dashboard/forms";
import { OUTBOUND, type OutboundPage } from "@/components/dashboard/pages/Tenants";
import { QueryView } from "@/components/dashboard/pages/QueryView";
import { AttemptResponse, type AttemptResponseData, DetailHeading } from "@/components/ui/AttemptResponse";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { JsonView } from "@/components/ui/JsonView";
import { Table, Td, Th } from "@/components/ui/Table";
import type { toEvent } from "@/lib/outbound/events";

type OEvent = ReturnType<typeof toEvent>;
/** An attempt as `GET /attempts` answers it (docs/outbound.md), with what `include` adds. */
type OAttempt = {
  id: string;
  event_id: string;
  destination_id: string;
  status: "success" | "failed";
  code: string | null;
  attempt_number: number;
  manual: boolean;
  time: string;
  latency_ms?: number;
  response_data?: AttemptResponseData;
  event?: OEvent;
};
type Cursor = { next?: string; prev?: string };

const PAGE = 20;

/** A payload: the kit's JSON viewer (folding, Copy, Download; docs/dashboard.md "Bodies"). */
function Payload({ data, testId }: { data: unknown; testId?: string }) {
  return <JsonView value={data} testId={testId} empty="No payload." />;
}

/** Newer and Older buttons over a page's cursors (none when there is one page). */
function Pager({ pagination, onPage, what }: { pagination: { next: string | null; prev: string | null }; onPage: (c: Cursor) => void; what: string }) {
  if (!pagination.next && !pagination.prev) return null;
  return (
    <nav aria-label={`${what} pages`} className="flex justify-between gap-2 border-t border-zinc-200 p-3 dark:border-zinc-800">
      <Button size="sm" disabled={!pagination.prev} onClick={() => onPage({ prev: pagination.prev! })}>
        Newer
      </Button>
      <Button size="sm" disabled={!pagination.next} onClick={() => onPage({ next: pagination.next! })} data-testid={`${what.toLowerCase()}-older`}>
        Older
      </Button>
    </nav>
  );
}

/** A row's toggle that opens its details in the next table row. */
function Toggle({ open, controls, onClick, label }: { open: boolean; controls: string; onClick: () => void; label: string }) {
  return (
    <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={controls} onClick={onClick} aria-label={label}>
      {open ? "Hide" : "Details"}
    </Button>
  );
}

/** The tenant's events, newest first, paged; each opens to its payload. */
export function OutboundEvents({ tenant }: { tenant: string }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const path = `${OUTBOUND}/events${qs({ tenant_id: tenant, limit: PAGE, ...cursor })}`;
  // Only the first page refreshes by itself: an older page stays still while it is read.
  const list = useQuery({
    queryKey: ["tenant-events", path],
    queryFn: () => api<OutboundPage<OEvent>>(path),
    refetchInterval: cursor.next || cursor.prev ? false : 15_000,
    placeholderData: (p) => p,
  });
  return (
    <Card title="Events" bodyClassName="p-0!">
      <QueryView
        query={list}
        what="Events"
        inset
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No events yet">Publish one: POST /outbound/api/v1/publish with this tenant_id.</EmptyState>}
      >
        {(d) => (
          <>
            <Table caption="Events">
              <thead>
                <tr>
                  <Th>Event</Th>
                  <Th>Topic</Th>
                  <Th>Matched</Th>
                  <Th>Time</Th>
                  <Th>
                    <span className="sr-only">Details</span>
                  </Th>
                </tr>
              </thead>
              <tbody>
                {d.models.map((e) => (
                  <EventRow key={e.id} event={e} />
                ))}
              </tbody>
            </Table>
            <Pager pagination={d.pagination} onPage={setCursor} what="Events" />
          </>
        )}
      </QueryView>
    </Card>
  );
}

function EventRow({ event: e }: { event: OEvent }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const full = useQuery({ queryKey: ["outbound-event", e.id], queryFn: () => api<OEvent>(`${OUTBOUND}/events/${encodeURIComponent(e.id)}`), enabled: open });
  return (
    <>
      <tr data-testid="tenant-event" data-id={e.id}>
        <Td className="font-mono text-xs">{e.id}</Td>
        <Td className="text-xs">{e.topic || "—"}</Td>
        <Td className="text-xs">{e.matched_destination_ids?.length ?? 0}</Td>
        <Td className="whitespace-nowrap text-xs">{when(e.time)}</Td>
        <Td>
          <Toggle open={open} controls={id} onClick={() => setOpen((o) => !o)} label={`Payload of event ${e.id}`} />
        </Td>
      </tr>
      {open && (
        <tr id={id}>
          <Td colSpan={5} className="bg-zinc-50/60 dark:bg-zinc-950/40">
            <DetailHeading>Payload</DetailHeading>
            {full.error ? (
              <ErrorMessage title="The event could not be loaded" error={full.error} />
            ) : !full.data ? (
              <div role="status" className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
            ) : (
              <Payload data={full.data.data} testId="event-payload" />
            )}
          </Td>
        </tr>
      )}
    </>
  );
}

/** The tenant's attempts, newest first, paged, all or only failed; each opens to its response and payload; failed ones can be retried. */
export function OutboundAttempts({ tenant }: { tenant: string }) {
  const client = useQueryClient();
  const [cursor, setCursor] = useState<Cursor>({});
  const [failedOnly, setFailedOnly] = useState(false);
  const path = `${OUTBOUND}/attempts${qs({ tenant_id: tenant, limit: PAGE, status: failedOnly ? "failed" : undefined, ...cursor })}`;
  const list = useQuery({
    queryKey: ["tenant-attempts", path],
    queryFn: () => api<OutboundPage<OAttempt>>(path),
    refetchInterval: cursor.next || cursor.prev ? false : 15_000,
    placeholderData: (p) => p,
  });
  const [retried, setRetried] = useState<string | null>(null);
  const retry = useMutation({
    mutationFn: (a: OAttempt) => api(`${OUTBOUND}/retry`, { method: "POST", body: { event_id: a.event_id, destination_id: a.destination_id } }),
    onSuccess: (_, a) => {
      setRetried(a.id);
      // The new attempt is made by the delivery worker a moment later.
      setTimeout(() => ["tenant-attempts", "tenant-metrics", "tenant-destinations"].forEach((k) => void client.invalidateQueries({ queryKey: [k] })), 1000);
    },
  });
  return (
    <Card
      title="Attempts"
      bodyClassName="p-0!"
      actions={
        <div role="group" aria-label="Which attempts" className="flex gap-1">
          {[false, true].map((f) => (
            <Button
              key={String(f)}
              size="sm"
              variant={failedOnly === f ? "primary" : "ghost"}
              aria-pressed={failedOnly === f}
              onClick={() => (setFailedOnly(f), setCursor({}))}
              data-testid={f ? "attempts-failed-only" : "attempts-all"}
            >
              {f ? "Failed" : "All"}
            </Button>
          ))}
        </div>
      }
    >
      {retry.error && (
        <div className="p-4">
          <ErrorMessage title="The retry was refused" error={retry.error} />
        </div>
      )}
      {retry.isSuccess && (
        <p role="status" className="px-4 pt-3 text-sm text-emerald-700 dark:text-emerald-300">
          Retry queued: the new attempt appears here within a few seconds.
        </p>
      )}
      <QueryView
        query={list}
        what="Attempts"
        inset
        isEmpty={(d) => d.models.length === 0}
        empty={
          <EmptyState title={failedOnly ? "No failed attempts" : "No attempts yet"}>
            {failedOnly ? "Every attempt kept here was delivered." : "Attempts appear once an event matches one of the destinations above."}
          </EmptyState>
        }
      >
        {(d) => (
          <>
            <Table caption="Attempts">
              <thead>
                <tr>
                  <Th>Status</Th>
                  <Th>Event</Th>
                  <Th>Destination</Th>
                  <Th>#</Th>
                  <Th>Time</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody>
                {d.models.map((a) => (
                  <AttemptRow key={a.id} attempt={a} busy={retry.isPending} retried={retried === a.id} onRetry={() => retry.mutate(a)} />
                ))}
              </tbody>
            </Table>
            <Pager pagination={d.pagination} onPage={setCursor} what="Attempts" />
          </>
        )}
      </QueryView>
    </Card>
  );
}

function AttemptRow({ attempt: a, busy, retried, onRetry }: { attempt: OAttempt; busy: boolean; retried: boolean; onRetry: () => void }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const full = useQuery({
    queryKey: ["outbound-attempt", a.id],
    queryFn: () => api<OAttempt>(`${OUTBOUND}/attempts/${encodeURIComponent(a.id)}${qs({ include: ["response_data", "event.data"] })}`),
    enabled: open,
  });
  return (
    <>
      <tr data-testid="tenant-attempt" data-status={a.status} data-id={a.id}>
        <Td>
          <Badge className="whitespace-nowrap" tone={a.status === "success" ? "success" : "danger"}>
            {a.status}
            {a.code ? ` · ${a.code}` : ""}
          </Badge>
        </Td>
        <Td className="font-mono text-xs">{a.event_id}</Td>
        <Td className="font-mono text-xs">{a.destination_id}</Td>
        <Td className="text-xs">
          {a.attempt_number}
          {a.manual ? " (manual)" : ""}
        </Td>
        <Td className="whitespace-nowrap text-xs">{when(a.time)}</Td>
        <Td>
          <div className="flex justify-end gap-1.5">
            <Toggle open={open} controls={id} onClick={() => setOpen((o) => !o)} label={`Details of attempt ${a.id}`} />
            {a.status === "failed" && (
              <Button size="sm" disabled={busy || retried} onClick={onRetry} aria-label={`Retry event ${a.event_id}`}>
                {retried ? "Queued" : "Retry"}
              </Button>
            )}
          </div>
        </Td>
      </tr>
      {open && (
        <tr id={id}>
          <Td colSpan={6} className="space-y-3 bg-zinc-50/60 dark:bg-zinc-950/40">
            {full.error ? (
              <ErrorMessage title="The attempt could not be loaded" error={full.error} />
            ) : !full.data ? (
              <div role="status" className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
            ) : (
              <div className="grid gap-3 lg:grid-cols-2">
                <AttemptResponse
                  className="min-w-0"
                  response={full.data.response_data}
                  code={a.code}
                  latencyMs={a.latency_ms}
                  testIds={{ status: "attempt-response-status", body: "attempt-response-body" }}
                />
                <div className="min-w-0">
                  <DetailHeading>Payload</DetailHeading>
                  {full.data.event ? <Payload data={full.data.event.data} testId="attempt-payload" /> : <p className="text-sm">—</p>}
                </div>
              </div>
            )}
          </Td>
        </tr>
      )}
    </>
  );
}
