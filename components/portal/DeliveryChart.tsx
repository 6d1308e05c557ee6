"use client";
/**
 * Deliveries of the last 24 hours, hour by hour: delivered and failed attempts as bars side by side (the kit's
 * TimeChart, as the dashboard draws the same measure: docs/portal.md), from
 * `GET /metrics/attempts` for the portal's tenant (scoped by its JWT), optionally one destination.
 * Totals are written out too, so the chart is never the only way to read the numbers.
 */
import { useQuery } from "@tanstack/react-query";
import { api, qs } from "@/components/portal/api";
import { Card, CardHeader, Skeleton } from "@/components/ui/Card";
import { type ChartPoint, TimeChart } from "@/components/ui/Chart";
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
  const rows: ChartPoint[] = (q.data?.data ?? []).map((r) => ({
    time: r.time_bucket,
    delivered: r.metrics.successful_count ?? 0,
    failed: r.metrics.failed_count ?? 0,
  }));
  const ok = rows.reduce((n, r) => n + Number(r.delivered), 0);
  const failed = rows.reduce((n, r) => n + Number(r.failed), 0);
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
        <div className="px-2 pt-4 pb-3 sm:px-4" data-testid="delivery-chart">
          <TimeChart
            data={rows}
            bucket="1h"
            label={`Bar chart of deliveries per hour: ${ok} delivered and ${failed} failed in the last 24 hours`}
            series={[
              { key: "delivered", label: "Delivered", color: "brand" },
              { key: "failed", label: "Failed", color: "rose" },
            ]}
          />
        </div>
      )}
    </Card>
  );
}
