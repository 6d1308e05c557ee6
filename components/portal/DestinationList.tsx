"use client";
/** The portal's home: the tenant's destinations (type, target, topics, state or delivery health of the last day) and the delivery chart. */
import Link from "next/link";
import { useDestinations, useDestinationTypes } from "@/components/portal/api";
import { DeliveryChart } from "@/components/portal/DeliveryChart";
import { Card, CardHeader, Skeleton } from "@/components/ui/Card";
import { btn, EmptyState, EnabledBadge, ErrorNotice, TypeIcon } from "@/components/portal/ui";
import { HealthBadge, HealthLine } from "@/components/ui/HealthBadge";

export function topicsText(topics: string[]): string {
  return topics.includes("*") ? "All topics" : topics.join(", ");
}

export function DestinationList() {
  const list = useDestinations();
  const types = useDestinationTypes();
  const typeOf = (t: string) => types.data?.find((x) => x.type === t);
  const add = (
    <Link href="/portal/destinations/new" className={btn.primary}>
      <span aria-hidden>+</span> Add destination
    </Link>
  );
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Event destinations</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Where your events are delivered: webhooks and other endpoints you control.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Link href="/portal/catalog" className={btn.secondary}>
            Event catalog
          </Link>
          <Link href="/portal/redrive" className={btn.secondary}>
            Redrive failed
          </Link>
          <Link href="/portal/archive-replay" className={btn.secondary}>
            Replay from archive
          </Link>
          {list.data && list.data.length > 0 && add}
        </div>
      </div>
      <Card bodyClassName="p-0">
        <CardHeader
          title="Destinations"
          id="destinations-heading"
          description={list.data ? `${list.data.length} destination${list.data.length === 1 ? "" : "s"}` : undefined}
        />
        {list.isPending ? (
          <Skeleton />
        ) : list.isError ? (
          <div className="p-4">
            <ErrorNotice error={list.error} what="Your destinations" retry={() => list.refetch()} />
          </div>
        ) : list.data.length === 0 ? (
          <EmptyState title="No destinations yet" action={add}>
            Add a destination to start receiving events: pick a type (a webhook URL, for example) and fill in where events should go.
          </EmptyState>
        ) : (
          <ul aria-labelledby="destinations-heading" className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="destination-list">
            {list.data.map((d) => (
              <li
                key={d.id}
                className="relative flex items-center gap-3 px-4 py-3 hover:bg-zinc-50 focus-within:bg-zinc-50 sm:px-5 dark:hover:bg-zinc-800/50 dark:focus-within:bg-zinc-800/50"
              >
                <span className="grid size-9 shrink-0 place-items-center rounded-md bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
                  <TypeIcon svg={typeOf(d.type)?.icon} />
                </span>
                <div className="min-w-0 flex-1">
                  <Link
                    href={`/portal/destinations/${encodeURIComponent(d.id)}`}
                    className="block truncate rounded-sm font-mono text-sm font-medium text-zinc-900 after:absolute after:inset-0 focus-visible:outline-2 focus-visible:outline-[var(--brand)] dark:text-zinc-100"
                  >
                    {d.target || d.id}
                  </Link>
                  <p className="mt-0.5 truncate text-xs text-zinc-600 dark:text-zinc-400">
                    {typeOf(d.type)?.label ?? d.type} · {topicsText(d.topics)}
                  </p>
                  <HealthLine health={d.health} className="mt-0.5 block truncate text-xs text-zinc-600 dark:text-zinc-400" />
                </div>
                <div className="flex shrink-0 flex-col items-end gap-1 sm:flex-row sm:items-center">
                  {d.disabled_at ? <EnabledBadge disabledAt={d.disabled_at} /> : <HealthBadge health={d.health} />}
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <DeliveryChart />
    </div>
  );
}
