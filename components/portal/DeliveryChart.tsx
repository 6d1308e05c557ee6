"use client";
/**
 * Deliveries of the last 24 hours, hour by hour: successful and failed attempts stacked (recharts), from
 * `GET /metrics/attempts` for the portal's tenant (scoped by its JWT), optionally one destination.
 * Totals are written out too, so the chart is never the only way to read the numbers.
 */
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api, qs } from "@/components/portal/api";
import { Card, CardHeader, Skeleton } from "@/components/ui/Card";
import { ErrorNotice } from "@/components/portal/ui";

type Metrics = { data: { time_bucket: string; metrics: { successful_count: number; failed_count: number } }[] };

export function DeliveryChart({ destinationId }: { destinationId?: string }) {
  const q = useQuery({
    queryKey: ["portal", "metrics", destinationId ?? "all"],
    refetchInterval: 30_000,
    queryFn: () => {
      const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
      const start = new Date(end.getTime() - 24 * 3_600_000);
      return api<Metrics>(
        `/metrics/attempts${qs([
          ["time[start]", start.toISOString()],
          ["time[end]", end.toISOString()],
          ["granularity", "1h"],
          ["measures", "successful_count"],
          ["measures", "failed_count"],
          ["filters[destination_id]", destinationId],
        ])}`,
      );
    },
  });
  const rows = (q.data?.data ?? []).map((r) => ({
    hour: new Date(r.time_bucket).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }),
    Delivered: r.metrics.successful_count ?? 0,
    Failed: r.metrics.failed_count ?? 0,
  }));
  const ok = rows.reduce((n, r) => n + r.Delivered, 0);
  const failed = rows.reduce((n, r) => n + r.Failed, 0);
  return (
    <Card bodyClassName="p-0">
      <CardHeader
        title="Deliveries, last 24 hours"
        description={
          q.data ? (
            <span data-testid="delivery-totals">
              {ok} delivered · {failed} failed
            </span>
          ) : undefined
        }
      />
      {q.isPending ? (
        <Skeleton lines={2} />
      ) : q.isError ? (
        <div className="p-4">
          <ErrorNotice error={q.error} what="Delivery statistics" retry={() => q.refetch()} />
        </div>
      ) : ok + failed === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-zinc-600 dark:text-zinc-400">
          No deliveries in the last 24 hours. Attempts appear here as soon as events are sent to your destinations.
        </p>
      ) : (
        <figure className="px-2 pb-3 pt-4 sm:px-4" aria-label={`Bar chart of deliveries per hour: ${ok} delivered and ${failed} failed in the last 24 hours`}>
          <div className="h-52 text-zinc-500 dark:text-zinc-400">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={rows} margin={{ top: 4, right: 8, left: -16, bottom: 0 }}>
                <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
                <XAxis
                  dataKey="hour"
                  tick={{ fill: "currentColor", fontSize: 11 }}
                  tickLine={false}
                  axisLine={false}
                  interval="preserveStartEnd"
                  minTickGap={24}
                />
                <YAxis allowDecimals={false} tick={{ fill: "currentColor", fontSize: 11 }} tickLine={false} axisLine={false} width={40} />
                <Tooltip cursor={{ fill: "currentColor", fillOpacity: 0.08 }} contentStyle={{ borderRadius: 8, fontSize: 12, color: "#18181b" }} />
                <Bar dataKey="Delivered" stackId="a" fill="var(--brand)" radius={[0, 0, 0, 0]} isAnimationActive={false} />
                <Bar dataKey="Failed" stackId="a" fill="#dc2626" radius={[3, 3, 0, 0]} isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
          <figcaption className="mt-2 flex gap-4 px-3 text-xs text-zinc-700 dark:text-zinc-300">
            <span className="inline-flex items-center gap-1.5">
              <span aria-hidden className="size-2.5 rounded-sm bg-[var(--brand)]" /> Delivered
            </span>
            <span className="inline-flex items-center gap-1.5">
              <span aria-hidden className="size-2.5 rounded-sm bg-red-600" /> Failed
            </span>
          </figcaption>
        </figure>
      )}
    </Card>
  );
}
