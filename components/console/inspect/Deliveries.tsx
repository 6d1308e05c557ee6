"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TConsoleEvent } from "@/lib/console/deliveries";
import { fetchDeliveries, retryRequest } from "@/components/console/api";
import { Tag } from "@/components/console/inspect/badges";
import { Section } from "@/components/console/inspect/Section";
import { StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { AbsoluteTime, RelativeTime } from "@/components/ui/Time";

function EventRow({ event }: { event: TConsoleEvent }) {
  const [open, setOpen] = useState(false);
  return (
    <li data-testid="delivery-event" data-event-id={event.id} data-status={event.status} className="px-4 py-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <StatusBadge status={event.status} />
        <span className="font-medium text-zinc-900 dark:text-zinc-100">{event.destination.name ?? event.destination.id}</span>
        {event.destination.type === "CLI" && <Tag>CLI</Tag>}
        <span className="text-xs text-zinc-600 dark:text-zinc-400">via {event.connection.name ?? event.connection.id}</span>
        <span className="ml-auto text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
          {event.attempts.length} attempt{event.attempts.length === 1 ? "" : "s"}
          {event.next_attempt_at && event.status !== "SUCCESSFUL" ? (
            <>
              {" · next "}
              <RelativeTime iso={event.next_attempt_at} />
            </>
          ) : null}
        </span>
      </div>
      {event.attempts.length > 0 && (
        <ol className="mt-2 space-y-1">
          {event.attempts.map((a) => (
            <li
              key={a.id}
              data-testid="delivery-attempt"
              data-status={a.status}
              className="flex flex-wrap items-center gap-2 font-mono text-xs text-zinc-700 dark:text-zinc-300"
            >
              <span className="tabular-nums text-zinc-600 dark:text-zinc-400">#{a.attempt_number}</span>
              <AbsoluteTime iso={a.created_at} className="tabular-nums" />
              <span className={a.status === "SUCCESSFUL" ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
                {a.response_status ?? a.error_code ?? "—"}
              </span>
              {a.delivery_latency !== null && <span className="tabular-nums text-zinc-600 dark:text-zinc-400">{a.delivery_latency} ms</span>}
              <span className="text-zinc-600 dark:text-zinc-400">{a.trigger.toLowerCase()}</span>
              {a.body ? (
                <button
                  type="button"
                  aria-expanded={open}
                  className="rounded-sm text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--hy-focus)] dark:text-sky-400"
                  onClick={() => setOpen((o) => !o)}
                >
                  {open ? "hide response" : "response"}
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {open && (
        <pre
          data-testid="attempt-response"
          className="mt-2 max-h-48 overflow-auto rounded-md bg-zinc-50 p-2 font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere] text-zinc-800 dark:bg-zinc-950/40 dark:text-zinc-200"
        >
          {event.attempts[event.attempts.length - 1]?.body}
        </pre>
      )}
    </li>
  );
}

/**
 * The events and attempts of one captured request (the CLI's deliveries included), with a Retry button for
 * the test URL's owner (`canRetry`; the server refuses anyone else's retry with 403). Text only.
 */
export function Deliveries({ publicId, requestId, canRetry }: { publicId: string; requestId: string; canRetry: boolean }) {
  const queryClient = useQueryClient();
  const key = ["deliveries", publicId, requestId];
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchDeliveries(publicId, requestId, signal), refetchInterval: 2_000, staleTime: 1_000 });
  const mutation = useMutation({ mutationFn: () => retryRequest(publicId, requestId), onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
  const data = query.data;
  const events = data?.events ?? [];
  const ignored = data?.ignored_events ?? [];

  return (
    <Section
      id="deliveries-title"
      title="Deliveries"
      meta={<span className="tabular-nums">{events.length}</span>}
      actions={
        canRetry && (
          <Button size="xs" data-testid="retry-request" disabled={mutation.isPending} onClick={() => mutation.mutate()}>
            {mutation.isPending ? "Retrying…" : "Retry"}
          </Button>
        )
      }
    >
      {mutation.isError && (
        <p role="alert" className="border-b border-zinc-200 px-4 py-2 text-xs text-rose-700 dark:border-zinc-800 dark:text-rose-400">
          {mutation.error.message}
        </p>
      )}
      {mutation.isSuccess && mutation.data.event_ids.length === 0 && (
        <p data-testid="retry-nothing" className="border-b border-zinc-200 px-4 py-2 text-xs text-amber-700 dark:border-zinc-800 dark:text-amber-400">
          Nothing listens to this test URL: start the CLI command shown above, then retry.
        </p>
      )}
      {events.length === 0 && ignored.length === 0 ? (
        <p data-testid="deliveries-empty" className="px-4 py-6 text-sm text-zinc-600 dark:text-zinc-400">
          {query.isLoading
            ? "Loading…"
            : canRetry
              ? "Not delivered anywhere. Forward this test URL to your machine with the CLI command above, then retry."
              : "Not delivered anywhere. Only the browser that created this test URL can forward it with the CLI."}
        </p>
      ) : (
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {events.map((e) => (
            <EventRow key={e.id} event={e} />
          ))}
          {ignored.map((i) => (
            <li key={i.id} data-testid="ignored-event" className="flex flex-wrap items-center gap-2 px-4 py-3 text-sm">
              <Tag>IGNORED · {i.cause}</Tag>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">via {i.connection.name ?? i.connection.id}</span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
