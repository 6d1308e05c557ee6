"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { useNames } from "@/components/dashboard/filters";
import { SigningSecretCard } from "@/components/dashboard/SigningSecretCard";
import { ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { type ChartPoint, type ChartSeries, TimeChart } from "@/components/ui/Chart";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { cx } from "@/components/ui/cx";

type MetricsRow = { time_bucket: string; dimensions?: Record<string, string | null>; metrics: Record<string, number | null> };
type Range = "hour" | "day" | "week";
const RANGES: Record<Range, { label: string; ms: number; granularity: string }> = {
  hour: { label: "Last hour", ms: 3_600_000, granularity: "5m" },
  day: { label: "Last day", ms: 86_400_000, granularity: "1h" },
  week: { label: "Last week", ms: 7 * 86_400_000, granularity: "6h" },
};

/** `GET /metrics/{name}` over the range, measures as given; rows per bucket (and dimension). */
function metricsPath(name: string, range: Range, measures: string[], dimensions: string[] = []) {
  const r = RANGES[range];
  // Buckets end at the next boundary, so the current (partial) bucket is included.
  const end = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  const start = new Date(end.getTime() - r.ms);
  return `metrics/${name}${qs({ "date_range[start]": start.toISOString(), "date_range[end]": end.toISOString(), granularity: r.granularity, "measures[]": measures, "dimensions[]": dimensions })}`;
}

const toPoints = (rows: MetricsRow[], scale: Record<string, number> = {}): ChartPoint[] =>
  rows.map((r) => ({ time: r.time_bucket, ...Object.fromEntries(Object.entries(r.metrics).map(([k, v]) => [k, v == null ? null : v * (scale[k] ?? 1)])) }));

const sum = (rows: MetricsRow[] | undefined, key: string) => (rows ?? []).reduce((s, r) => s + (r.metrics[key] ?? 0), 0);

type ChartDef = {
  title: string;
  name: string;
  measures: string[];
  series: ChartSeries[];
  /** Counts per bucket are bars side by side, levels and rates lines (docs/dashboard.md "Charts"). */
  kind?: "bars" | "lines";
  scale?: Record<string, number>;
  format?: (v: number) => string;
  total?: (rows: MetricsRow[]) => string;
};

const pct = (v: number) => `${Math.round(v * 10) / 10}%`;
const ms = (v: number) => `${Math.round(v)} ms`;
const CHARTS: ChartDef[] = [
  {
    title: "Requests",
    name: "requests",
    measures: ["accepted_count", "rejected_count"],
    series: [
      { key: "accepted_count", label: "Accepted", color: "indigo" },
      { key: "rejected_count", label: "Rejected", color: "amber" },
    ],
    total: (r) => `${sum(r, "accepted_count") + sum(r, "rejected_count")} requests`,
  },
  {
    title: "Events",
    name: "events",
    measures: ["successful_count", "failed_count", "pending_count"],
    series: [
      { key: "successful_count", label: "Successful", color: "emerald" },
      { key: "failed_count", label: "Failed", color: "rose" },
      { key: "pending_count", label: "Pending", color: "sky" },
    ],
    total: (r) => `${sum(r, "successful_count") + sum(r, "failed_count") + sum(r, "pending_count")} events`,
  },
  {
    title: "Attempts",
    name: "attempts",
    measures: ["successful_count", "failed_count"],
    series: [
      { key: "successful_count", label: "Successful", color: "emerald" },
      { key: "failed_count", label: "Failed", color: "rose" },
    ],
    total: (r) => `${sum(r, "successful_count") + sum(r, "failed_count")} attempts`,
  },
  {
    title: "Error rate of attempts",
    name: "attempts",
    measures: ["error_rate"],
    series: [{ key: "error_rate", label: "Error rate", color: "rose" }],
    kind: "lines",
    scale: { error_rate: 100 },
    format: pct,
  },
  {
    title: "Delivery latency",
    name: "attempts",
    measures: ["response_latency_p50", "response_latency_p95", "response_latency_p99"],
    series: [
      { key: "response_latency_p50", label: "p50", color: "emerald" },
      { key: "response_latency_p95", label: "p95", color: "amber" },
      { key: "response_latency_p99", label: "p99", color: "rose" },
    ],
    kind: "lines",
    format: ms,
  },
];

/** The Overview page: traffic, errors, latency and queue depth of the team over the last hour, day or week, and its open issues. */
export function Overview() {
  const [range, setRange] = useState<Range>("day");
  const paths = useMemo(() => CHARTS.map((c) => metricsPath(c.name, range, c.measures)), [range]);
  const charts = useQueries({
    queries: paths.map((path) => ({ queryKey: ["metrics", path], queryFn: () => api<{ data: MetricsRow[] }>(path), refetchInterval: 30_000 })),
  });
  const queuePath = useMemo(() => metricsPath("queue-depth", range, ["max_depth"], ["destination_id"]), [range]);
  const queue = useQuery({ queryKey: ["metrics", queuePath], queryFn: () => api<{ data: MetricsRow[] }>(queuePath), refetchInterval: 30_000 });
  const issues = useQuery({ queryKey: ["issues-count"], queryFn: () => api<{ count: number }>("issues/count?status=OPENED"), refetchInterval: 30_000 });
  const connections = useQuery({ queryKey: ["connections-count"], queryFn: () => api<{ count: number }>("connections/count") });
  const names = useNames("destinations");

  const queueSeries = useMemo(() => {
    const byTime = new Map<string, ChartPoint>();
    const ids = new Set<string>();
    for (const row of queue.data?.data ?? []) {
      const id = String(row.dimensions?.destination_id ?? "none");
      ids.add(id);
      const point: ChartPoint = byTime.get(row.time_bucket) ?? { time: row.time_bucket };
      point[id] = row.metrics.max_depth ?? 0;
      byTime.set(row.time_bucket, point);
    }
    const colors = ["indigo", "emerald", "amber", "sky", "violet", "rose"] as const;
    return {
      points: [...byTime.values()].sort((a, b) => a.time.localeCompare(b.time)),
      series: [...ids].slice(0, 6).map((id, i) => ({ key: id, label: names.get(id) ?? id, color: colors[i % colors.length] })),
    };
  }, [queue.data, names]);

  return (
    <>
      <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Overview</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Traffic, delivery errors and latency of your gateway. Updates every 30 seconds.</p>
        </div>
        <div role="group" aria-label="Time range" className="inline-flex rounded-md shadow-xs ring-1 ring-zinc-300 dark:ring-zinc-700">
          {(Object.keys(RANGES) as Range[]).map((r) => (
            <button
              key={r}
              type="button"
              aria-pressed={range === r}
              onClick={() => setRange(r)}
              className={cx(
                "px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md focus-visible:outline-2 focus-visible:outline-indigo-600",
                range === r ? "bg-indigo-600 text-white dark:bg-indigo-500" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
              )}
            >
              {RANGES[r].label}
            </button>
          ))}
        </div>
      </div>
      {connections.data?.count === 0 && <GetStarted />}
      <div className="mb-6 grid grid-cols-1 gap-4 sm:grid-cols-3">
        <Stat label="Open issues" value={issues.data?.count} href="/dashboard/issues" testId="open-issues" tone={issues.data?.count ? "danger" : "neutral"} />
        <Stat
          label="Events failed"
          value={charts[1]?.data ? sum(charts[1].data.data, "failed_count") : undefined}
          href="/dashboard/events?status=FAILED"
          testId="failed-events"
          tone="neutral"
        />
        <Stat
          label="Events waiting now"
          value={queue.data ? Math.max(0, ...queueSeries.series.map((s) => Number(queueSeries.points.at(-1)?.[s.key] ?? 0))) : undefined}
          href="/dashboard/events?status=QUEUED"
          testId="queued-events"
          tone="neutral"
        />
      </div>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        {CHARTS.map((c, i) => {
          const q = charts[i];
          const rows = q.data?.data ?? [];
          return (
            <Card
              key={c.title}
              title={c.title}
              actions={c.total && q.data ? <span className="text-xs text-zinc-600 dark:text-zinc-400">{c.total(rows)}</span> : undefined}
              data-testid={`chart-${i}`}
            >
              {q.error ? (
                <ErrorMessage title={`${c.title} could not be loaded`} error={q.error} onRetry={() => q.refetch()} />
              ) : !q.data ? (
                <div role="status" className="h-[200px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
              ) : (
                <TimeChart
                  data={toPoints(rows, c.scale)}
                  series={c.series}
                  kind={c.kind}
                  bucket={RANGES[range].granularity}
                  label={`${c.title}, ${RANGES[range].label.toLowerCase()}`}
                  format={c.format}
                />
              )}
            </Card>
          );
        })}
        <Card title="Queue depth per destination" data-testid="chart-queue">
          {queue.error ? (
            <ErrorMessage title="Queue depth could not be loaded" error={queue.error} onRetry={() => queue.refetch()} />
          ) : !queue.data ? (
            <div role="status" className="h-[200px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
          ) : queueSeries.series.length === 0 ? (
            <EmptyState title="Nothing waiting" className="h-[200px] justify-center">
              No event waited for delivery in this range. Backlogs appear here per destination.
            </EmptyState>
          ) : (
            <TimeChart
              data={queueSeries.points}
              series={queueSeries.series}
              kind="lines"
              bucket={RANGES[range].granularity}
              label="Events waiting per destination"
            />
          )}
        </Card>
      </div>
      <SigningSecretCard />
    </>
  );
}

/** The first-run path of a team without connections (docs/dashboard.md "First run"): a connection first, then keys and users. */
function GetStarted() {
  return (
    <Card title="Get started" titleId="get-started" className="mb-6" data-testid="get-started">
      <ol className="list-decimal space-y-1 pl-5 text-sm text-zinc-700 dark:text-zinc-300">
        <li>Create a connection: a source URL that receives webhooks, rules, and the destination they are delivered to.</li>
        <li>Send a request to the source URL: it shows under Requests and Events, and these charts fill.</li>
        <li>Create an API key for scripts, or invite your team, under Settings.</li>
      </ol>
      <div className="mt-4 flex flex-wrap gap-2">
        <ButtonLink href="/dashboard/connections/new" variant="primary" data-testid="first-connection">
          Create your first connection
        </ButtonLink>
        <ButtonLink href="/dashboard/settings" variant="secondary">
          API keys and users
        </ButtonLink>
      </div>
    </Card>
  );
}

function Stat({ label, value, href, testId, tone }: { label: string; value: number | undefined; href: string; testId: string; tone: "danger" | "neutral" }) {
  return (
    <Link
      href={href}
      data-testid={testId}
      className="rounded-lg border border-zinc-200 bg-white px-4 py-3 shadow-xs hover:border-indigo-300 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:border-zinc-800 dark:bg-zinc-900/60 dark:hover:border-indigo-500/50"
    >
      <span className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">{label}</span>
      <span
        className={cx(
          "mt-1 block text-2xl font-semibold tabular-nums",
          tone === "danger" && value ? "text-rose-700 dark:text-rose-300" : "text-zinc-900 dark:text-zinc-50",
        )}
      >
        {value === undefined ? "…" : value.toLocaleString()}
      </span>
    </Link>
  );
}
