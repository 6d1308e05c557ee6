"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api, type Attempt, type Paged } from "@/components/dashboard/api";
import { BodyText } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { Badge, StatusBadge, type Tone } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { IdLink } from "@/components/ui/IdLink";
import { KeyValueTable } from "@/components/ui/KeyValueTable";
import { Duration, ZonedTime } from "@/components/ui/Time";
import type { TIgnoredEvent } from "@/lib/gateway/ignored-events/schemas";
import type { TRequest } from "@/lib/gateway/requests/request-store";

export type RequestModel = TRequest;

/** Explorer links: a record opened in its explorer (`?id=`), or an explorer filtered by a field. */
export const linkTo = {
  request: (id: string) => `/dashboard/requests?id=${encodeURIComponent(id)}`,
  event: (id: string) => `/dashboard/events?id=${encodeURIComponent(id)}`,
  attempt: (id: string) => `/dashboard/attempts?id=${encodeURIComponent(id)}`,
  eventsOfRequest: (id: string) => `/dashboard/events?request_id=${encodeURIComponent(id)}`,
  attemptsOfEvent: (id: string) => `/dashboard/attempts?event_id=${encodeURIComponent(id)}`,
  attemptsOfDestination: (id: string) => `/dashboard/attempts?destination_id=${encodeURIComponent(id)}`,
  requestsOfSource: (id: string) => `/dashboard/requests?source_id=${encodeURIComponent(id)}`,
  connection: (id: string) => `/dashboard/connections/${encodeURIComponent(id)}`,
  ignored: (id: string) => `/dashboard/ignored-events?id=${encodeURIComponent(id)}`,
  /** A transformation's runs (docs/dashboard.md "Ignored events and transformation runs"), filtered by `params` (`issue_id`, `id`). */
  runs: (transformationId: string, params: Record<string, string> = {}) =>
    `/dashboard/executions?${new URLSearchParams({ transformation_id: transformationId, ...params })}`,
};

export type IgnoredEvent = TIgnoredEvent;
const CAUSE_TONES: Record<IgnoredEvent["cause"], Tone> = {
  FILTERED: "neutral",
  TRANSFORMATION_FAILED: "danger",
  DEDUPLICATED: "neutral",
  DISABLED: "warning",
  CLI_DISCONNECTED: "warning",
};
/** An ignored event's cause as a badge (a failed transformation in the danger tone). */
export const CauseBadge = ({ cause }: { cause: IgnoredEvent["cause"] }) => <Badge tone={CAUSE_TONES[cause]}>{cause}</Badge>;

/** A method, path and query as one line, the way a request starts ("POST /orders?shop=1"). */
export function RequestLine({ method, path, query, testId }: { method?: string | null; path?: string | null; query?: string | null; testId?: string }) {
  return (
    <p className="font-mono text-sm break-all" data-testid={testId}>
      {method && <span className="font-semibold">{method} </span>}
      <span>{path ?? "/"}</span>
      {query ? <span className="text-zinc-600 dark:text-zinc-400">?{query}</span> : null}
    </p>
  );
}

/** A grid of labelled facts. */
export function Facts({ children }: { children: React.ReactNode }) {
  return <dl className="grid grid-cols-1 gap-x-4 gap-y-3 text-sm sm:grid-cols-2">{children}</dl>;
}

/** One labelled fact of {@link Facts}. */
export function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5 min-w-0">{children}</dd>
    </div>
  );
}

/** A titled part of a detail panel. */
export function DetailSection({ title, children, testId }: { title: string; children: React.ReactNode; testId?: string }) {
  return (
    <section aria-label={title} data-testid={testId}>
      <h3 className="mb-1.5 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{title}</h3>
      {children}
    </section>
  );
}

/** Headers as a two-column table. */
export function HeadersTable({ headers }: { headers: Record<string, unknown> | null | undefined }) {
  return (
    <div className="rounded-md border border-zinc-200 dark:border-zinc-800">
      <KeyValueTable rows={Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)])} emptyText="No headers." />
    </div>
  );
}

/** A success or failure line after an action. */
export function ActionResult({ error, notice }: { error: unknown; notice: string | null }) {
  if (error) return <ErrorMessage title="The action failed" error={error} />;
  if (!notice) return null;
  return (
    <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-500/10 dark:text-emerald-200">
      {notice}
    </p>
  );
}

/**
 * A request as a person reads it: method, path and query first; when it arrived (the viewer's zone), from
 * which source, whether it was accepted; its events and ignored events (links) and **Retry** (`POST /requests/{id}/retry`:
 * through the source's connections again); then headers and body as text.
 */
export function RequestDetail({ id }: { id: string }) {
  const client = useQueryClient();
  const q = useQuery({ queryKey: ["request", id], queryFn: () => api<RequestModel>(`requests/${id}`) });
  const events = useQuery({
    queryKey: ["events-of", id],
    queryFn: () => api<Paged<{ id: string; status: string; webhook_id: string }>>(`events?request_id=${encodeURIComponent(id)}&limit=50`),
  });
  const names = useNames("sources", "connections");
  const [notice, setNotice] = useState<string | null>(null);
  const retry = useMutation({
    mutationFn: () => api(`requests/${id}/retry`, { method: "POST", body: {} }),
    onSuccess: () => {
      setNotice("Retried: the request goes through its source's connections again.");
      void client.invalidateQueries();
    },
  });
  const r = q.data;
  if (q.error) return <ErrorMessage title="This request could not be loaded" error={q.error} />;
  if (!r) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>;
  return (
    <div className="flex flex-col gap-5" data-testid="record-detail">
      <div className="flex flex-wrap items-start gap-3">
        <div className="min-w-0 flex-1">
          <RequestLine method={r.data?.method} path={r.data?.path} query={r.data?.query} testId="request-line" />
        </div>
        <Button size="sm" variant="primary" onClick={() => retry.mutate()} disabled={retry.isPending || Boolean(r.rejection_cause)} data-testid="request-retry">
          Retry
        </Button>
      </div>
      <ActionResult error={retry.error} notice={notice} />
      <Facts>
        <Fact label="Status">
          <StatusBadge status={r.rejection_cause ?? "ACCEPTED"} tone={r.rejection_cause ? "warning" : "success"} />
        </Fact>
        <Fact label="Received">
          <ZonedTime iso={r.created_at} />
        </Fact>
        <Fact label="Source">
          <IdLink id={r.source_id} label={names.get(r.source_id)} href={linkTo.requestsOfSource(r.source_id)} />
        </Fact>
        <Fact label="Signature">{r.verified ? "verified" : "not verified"}</Fact>
        <Fact label="Request id">
          <IdLink id={r.id} />
        </Fact>
        <Fact label="Events">
          {r.events_count ?? 0} delivered{r.cli_events_count ? `, ${r.cli_events_count} to the CLI` : ""}
          {r.ignored_count ? `, ${r.ignored_count} ignored` : ""}
        </Fact>
      </Facts>
      <DetailSection title="Events" testId="request-events">
        {events.error ? (
          <ErrorMessage error={events.error} />
        ) : !events.data ? (
          <p className="text-sm">Loading…</p>
        ) : events.data.models.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No event: no connection took this request.</p>
        ) : (
          <ul className="flex flex-col gap-1.5">
            {events.data.models.map((e) => (
              <li key={e.id} className="flex flex-wrap items-center gap-2">
                <StatusBadge status={e.status} />
                <IdLink id={e.id} href={linkTo.event(e.id)} testId="request-event-link" />
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{names.get(e.webhook_id) ?? ""}</span>
              </li>
            ))}
          </ul>
        )}
      </DetailSection>
      {r.ignored_count ? <RequestIgnoredEvents id={r.id} /> : null}
      <DetailSection title="Headers">
        <HeadersTable headers={r.data?.headers} />
      </DetailSection>
      <DetailSection title="Body">
        <BodyText value={r.data?.body} testId="record-body" record={r.data} rawPath={`requests/${encodeURIComponent(r.id)}/raw_body`} />
      </DetailSection>
    </div>
  );
}

/**
 * An attempt as a person reads it: method and URL, the response (status, body), when it was sent and
 * answered (the viewer's zone), latencies with units, and links to its event, the event's other attempts
 * and its destination.
 */
export function AttemptDetail({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["attempt", id], queryFn: () => api<Attempt>(`attempts/${id}`) });
  const names = useNames("destinations");
  const a = q.data;
  if (q.error) return <ErrorMessage title="This attempt could not be loaded" error={q.error} />;
  if (!a) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>;
  return (
    <div className="flex flex-col gap-5" data-testid="record-detail">
      <p className="font-mono text-sm break-all" data-testid="attempt-line">
        {a.http_method && <span className="font-semibold">{a.http_method} </span>}
        {a.requested_url ?? "—"}
      </p>
      <Facts>
        <Fact label="Result">
          <span className="inline-flex items-center gap-2">
            <StatusBadge status={a.status} />
            <span className="font-mono text-xs">{a.response_status ?? a.error_code ?? ""}</span>
          </span>
        </Fact>
        <Fact label="Attempt">
          #{a.attempt_number} · {a.trigger.toLowerCase().replace("_", " ")}
        </Fact>
        <Fact label="Sent">
          <ZonedTime iso={a.delivered_at ?? a.created_at} />
        </Fact>
        <Fact label="Answered">
          <ZonedTime iso={a.responded_at} />
        </Fact>
        <Fact label="Response time">
          <Duration ms={a.response_latency} />
        </Fact>
        <Fact label="Time to deliver">
          <Duration ms={a.delivery_latency} />
        </Fact>
        <Fact label="Event">
          <IdLink id={a.event_id} href={linkTo.event(a.event_id)} testId="attempt-event-link" />
        </Fact>
        <Fact label="Destination">
          <IdLink id={a.destination_id} label={names.get(a.destination_id)} href={linkTo.attemptsOfDestination(a.destination_id)} />
        </Fact>
        {a.bulk_retry_id && (
          <Fact label="Bulk operation">
            <IdLink id={a.bulk_retry_id} href={`/dashboard/events?bulk_retry_id=${encodeURIComponent(a.bulk_retry_id)}`} />
          </Fact>
        )}
        <Fact label="Attempt id">
          <IdLink id={a.id} />
        </Fact>
      </Facts>
      <p className="text-sm">
        <Link className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={linkTo.attemptsOfEvent(a.event_id)}>
          Every attempt of this event
        </Link>
      </p>
      <DetailSection title="Response body">
        <BodyText value={a.body} testId="record-body" />
      </DetailSection>
    </div>
  );
}

/** The ignored events of request `id` (`GET /requests/{id}/ignored_events`), each linked to its explorer; null when there are none. */
export function RequestIgnoredEvents({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ["ignored-of", id],
    queryFn: () => api<Paged<IgnoredEvent>>(`requests/${encodeURIComponent(id)}/ignored_events?limit=50`),
  });
  const names = useNames("connections");
  if (q.error) return <ErrorMessage title="Its ignored events could not be loaded" error={q.error} />;
  if (!q.data || q.data.models.length === 0) return null;
  return (
    <DetailSection title="Ignored" testId="request-ignored">
      <ul className="flex flex-col gap-1.5">
        {q.data.models.map((i) => (
          <li key={i.id} className="flex flex-wrap items-center gap-2">
            <CauseBadge cause={i.cause} />
            <IdLink id={i.id} href={linkTo.ignored(i.id)} testId="request-ignored-link" />
            <span className="text-xs text-zinc-600 dark:text-zinc-400">{names.get(i.webhook_id) ?? ""}</span>
          </li>
        ))}
      </ul>
    </DetailSection>
  );
}
