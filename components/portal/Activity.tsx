"use client";
/**
 * A destination's events and attempts (docs/portal.md#what-a-tenant-can-do): two tabs, newest
 * first, "Load more" through the `next` cursor. An attempt opens to its response (status, headers and
 * body, always rendered as text, never as markup) and the event's payload; failed or not, it can be
 * retried (`POST /retry`), which queues a manual attempt that appears here within seconds.
 */
import { TransformationResult } from "@/components/ui/TransformationResult";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, type Attempt, type Destination, type OutboundEvent, type Page, qs, useDestinationsPath } from "@/components/portal/api";
import { AttemptResponse, DetailHeading } from "@/components/ui/AttemptResponse";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card, CardHeader, Skeleton } from "@/components/ui/Card";
import { JsonView } from "@/components/ui/JsonView";
import { AttemptBadge, EmptyState, ErrorNotice, When } from "@/components/portal/ui";

const PAGE = 20;

export function Activity({ destination }: { destination: Destination }) {
  const [tab, setTab] = useState<"attempts" | "events">("attempts");
  const tabs = [
    { key: "attempts", label: "Attempts" },
    { key: "events", label: "Events" },
  ] as const;
  const id = useId();
  return (
    <Card bodyClassName="p-0">
      <CardHeader title="Activity" description="Every event sent to this destination and each delivery attempt, with the response your endpoint gave." />
      <div role="tablist" aria-label="Activity" className="flex gap-1 border-b border-zinc-200 px-3 pt-2 sm:px-4 dark:border-zinc-800">
        {tabs.map((t) => (
          <button
            key={t.key}
            id={`${id}-${t.key}-tab`}
            role="tab"
            type="button"
            aria-selected={tab === t.key}
            aria-controls={`${id}-${t.key}-panel`}
            tabIndex={tab === t.key ? 0 : -1}
            onClick={() => setTab(t.key)}
            onKeyDown={(e) => {
              if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
                const next = tab === "attempts" ? "events" : "attempts";
                setTab(next);
                document.getElementById(`${id}-${next}-tab`)?.focus();
              }
            }}
            className={`-mb-px rounded-t-md border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-[var(--brand)] ${
              tab === t.key
                ? "border-[var(--brand)] text-zinc-900 dark:text-zinc-50"
                : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
            }`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div id={`${id}-${tab}-panel`} role="tabpanel" aria-labelledby={`${id}-${tab}-tab`}>
        {tab === "attempts" ? <AttemptList destination={destination} /> : <EventList destination={destination} />}
      </div>
    </Card>
  );
}

function AttemptList({ destination }: { destination: Destination }) {
  const path = `${useDestinationsPath()}/${encodeURIComponent(destination.id)}/attempts`;
  const q = useInfiniteQuery({
    queryKey: ["portal", "attempts", destination.id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      api<Page<Attempt>>(
        `${path}${qs([
          ["include", "response_data"],
          ["include", "transformation"],
          ["include", "event"],
          ["limit", String(PAGE)],
          ["next", pageParam],
        ])}`,
      ),
    getNextPageParam: (last) => last.pagination.next ?? undefined,
    refetchInterval: 5_000,
  });
  if (q.isPending) return <Skeleton />;
  if (q.isError)
    return (
      <div className="p-4">
        <ErrorNotice error={q.error} what="Attempts" retry={() => q.refetch()} />
      </div>
    );
  const attempts = q.data.pages.flatMap((p) => p.models);
  if (!attempts.length)
    return (
      <EmptyState title="No attempts yet">
        Attempts appear here as soon as an event on {destination.topics.includes("*") ? "any topic" : `the topics ${destination.topics.join(", ")}`} is sent to
        this destination.
        {destination.disabled_at ? " This destination is disabled: enable it to receive events." : ""}
      </EmptyState>
    );
  return (
    <>
      <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="attempt-list">
        {attempts.map((a) => (
          <AttemptItem key={a.id} attempt={a} destination={destination} />
        ))}
      </ul>
      {q.hasNextPage && (
        <div className="border-t border-zinc-200 p-3 text-center dark:border-zinc-800">
          <Button variant="secondary" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            {q.isFetchingNextPage ? "Loading…" : "Load more attempts"}
          </Button>
        </div>
      )}
    </>
  );
}

function AttemptItem({ attempt: a, destination, showTopic = true }: { attempt: Attempt; destination: Destination; showTopic?: boolean }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  return (
    <li data-testid="attempt" data-attempt-id={a.id} data-status={a.status}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panel}
        onClick={() => setOpen((o) => !o)}
        className="grid w-full grid-cols-[auto_1fr_auto] items-center gap-x-3 gap-y-1 px-4 py-3 text-left hover:bg-zinc-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-[var(--brand)] sm:px-5 dark:hover:bg-zinc-800/50"
      >
        <AttemptBadge status={a.status} />
        <span className="min-w-0 truncate text-sm">
          <span className="font-mono font-medium">{a.code ?? "—"}</span>
          {showTopic && a.event && <span className="text-zinc-600 dark:text-zinc-400"> · {a.event.topic}</span>}
          <span className="text-zinc-600 dark:text-zinc-400">
            {" "}
            · {a.attempt_number === 0 ? "first attempt" : `retry ${a.attempt_number}`}
            {a.manual ? " (manual)" : ""}
            {a.latency_ms !== undefined ? ` · ${a.latency_ms} ms` : ""}
          </span>
        </span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          <When iso={a.delivered_at} />
        </span>
      </button>
      {open && (
        <div id={panel} className="space-y-4 border-t border-zinc-100 bg-zinc-50/60 px-4 py-4 sm:px-5 dark:border-zinc-800 dark:bg-zinc-950/40">
          <AttemptDetail attempt={a} destination={destination} />
        </div>
      )}
    </li>
  );
}

function AttemptDetail({ attempt: a, destination }: { attempt: Attempt; destination: Destination }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api<{ success: boolean }>("/retry", { method: "POST", body: { event_id: a.event_id, destination_id: a.destination_id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["portal", "attempts"] }),
  });
  const event = useQuery({ queryKey: ["portal", "event", a.event_id], queryFn: () => api<OutboundEvent>(`/events/${encodeURIComponent(a.event_id)}`) });
  return (
    <>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs">
        <dt className="text-zinc-600 dark:text-zinc-400">Attempt</dt>
        <dd className="break-all font-mono">{a.id}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Event</dt>
        <dd className="break-all font-mono">{a.event_id}</dd>
      </dl>
      <AttemptResponse response={a.response_data} code={a.code} />
      {a.transformation && (
        <div data-testid="attempt-transformation">
          <DetailHeading>Transformation</DetailHeading>
          <TransformationResult output={a.transformation} />
        </div>
      )}
      <div>
        <DetailHeading>Event payload</DetailHeading>
        {event.isPending ? (
          <Skeleton lines={1} />
        ) : event.isError ? (
          <ErrorNotice error={event.error} what="The event" />
        ) : (
          <JsonView value={event.data.data} empty="No payload." />
        )}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="brand" disabled={retry.isPending || Boolean(destination.disabled_at)} onClick={() => retry.mutate()}>
          {retry.isPending ? "Retrying…" : "Retry"}
        </Button>
        <p className="text-xs text-zinc-600 dark:text-zinc-400" role="status">
          {retry.isSuccess
            ? "Retry queued: the new attempt appears in the list within a few seconds."
            : retry.isError
              ? ""
              : destination.disabled_at
                ? "Enable the destination to retry."
                : "Sends this event to the destination again now."}
        </p>
        {retry.isError && (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
            Retry failed: {retry.error.message}
          </p>
        )}
      </div>
    </>
  );
}

function EventList({ destination }: { destination: Destination }) {
  const q = useInfiniteQuery({
    queryKey: ["portal", "events", destination.id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      api<Page<OutboundEvent>>(
        `/events${qs([
          ["destination_id", destination.id],
          ["limit", String(PAGE)],
          ["next", pageParam],
        ])}`,
      ),
    getNextPageParam: (last) => last.pagination.next ?? undefined,
    refetchInterval: 10_000,
  });
  if (q.isPending) return <Skeleton />;
  if (q.isError)
    return (
      <div className="p-4">
        <ErrorNotice error={q.error} what="Events" retry={() => q.refetch()} />
      </div>
    );
  const events = q.data.pages.flatMap((p) => p.models);
  if (!events.length) return <EmptyState title="No events yet">Events sent to this destination are listed here with their payload and attempts.</EmptyState>;
  return (
    <>
      <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="event-list">
        {events.map((e) => (
          <EventItem key={e.id} event={e} destination={destination} />
        ))}
      </ul>
      {q.hasNextPage && (
        <div className="border-t border-zinc-200 p-3 text-center dark:border-zinc-800">
          <Button variant="secondary" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            {q.isFetchingNextPage ? "Loading…" : "Load more events"}
          </Button>
        </div>
      )}
    </>
  );
}

function EventItem({ event: e, destination }: { event: OutboundEvent; destination: Destination }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  const attempts = useQuery({
    enabled: open,
    queryKey: ["portal", "attempts", destination.id, "event", e.id],
    queryFn: () =>
      api<Page<Attempt>>(
        `/attempts${qs([
          ["event_id", e.id],
          ["destination_id", destination.id],
          ["include", "response_data"],
          ["include", "transformation"],
        ])}`,
      ),
    refetchInterval: open ? 5_000 : false,
  });
  return (
    <li data-testid="event" data-event-id={e.id}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panel}
        onClick={() => setOpen((o) => !o)}
        className="grid w-full grid-cols-[1fr_auto] items-center gap-3 px-4 py-3 text-left hover:bg-zinc-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-[var(--brand)] sm:px-5 dark:hover:bg-zinc-800/50"
      >
        <span className="min-w-0 truncate text-sm">
          <Badge tone="neutral">{e.topic}</Badge> <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{e.id}</span>
        </span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          <When iso={e.time} />
        </span>
      </button>
      {open && (
        <div id={panel} className="space-y-4 border-t border-zinc-100 bg-zinc-50/60 px-4 py-4 sm:px-5 dark:border-zinc-800 dark:bg-zinc-950/40">
          <div>
            <DetailHeading>Payload</DetailHeading>
            <JsonView value={e.data} empty="No payload." />
          </div>
          <div>
            <DetailHeading>Attempts</DetailHeading>
            {attempts.isPending ? (
              <Skeleton lines={1} />
            ) : attempts.isError ? (
              <ErrorNotice error={attempts.error} what="Attempts" />
            ) : attempts.data.models.length === 0 ? (
              <p className="text-sm text-zinc-700 dark:text-zinc-300">No attempt yet: the delivery is queued.</p>
            ) : (
              <ul className="divide-y divide-zinc-200 overflow-hidden rounded-md border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
                {attempts.data.models.map((a) => (
                  <AttemptItem key={a.id} attempt={a} destination={destination} showTopic={false} />
                ))}
              </ul>
            )}
          </div>
        </div>
      )}
    </li>
  );
}
