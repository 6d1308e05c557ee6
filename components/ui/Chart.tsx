"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useHydrated } from "@/components/ui/hooks";
import { displayText } from "@/components/ui/text";

export type ChartSeries = { key: string; label: string; color: ChartColor };
/** A kit colour, or `brand`: the portal's brand colour (`--brand`). */
type ChartColor = "indigo" | "emerald" | "rose" | "amber" | "sky" | "violet" | "brand";
export type ChartPoint = { time: string } & Record<string, number | string | null>;

/** Colours as Tailwind's CSS variables: readable on white and on zinc-950. */
const COLORS: Record<ChartColor, string> = {
  indigo: "var(--color-indigo-500)",
  emerald: "var(--color-emerald-500)",
  rose: "var(--color-rose-500)",
  amber: "var(--color-amber-500)",
  sky: "var(--color-sky-500)",
  violet: "var(--color-violet-500)",
  brand: "var(--brand)",
};

const UNITS: Record<string, [number, string]> = { s: [1_000, "s"], m: [60_000, "min"], h: [3_600_000, "h"], d: [86_400_000, "d"], w: [604_800_000, "wk"] };

/** A metrics granularity ("5m", "1h", "6h", "1d") in ms and in words ("5 min"); null when it is not one. */
export function parseBucket(bucket: string): { ms: number; label: string } | null {
  const m = /^(\d+)\s*([smhdw])$/.exec(bucket.trim());
  if (!m) return null;
  const [ms, word] = UNITS[m[2]];
  return { ms: Number(m[1]) * ms, label: `${m[1]} ${word}` };
}

/**
 * The y-axis ticks for values up to `max`: from 0 in a few round steps (1, 2, 2.5 or 5 times a power of
 * ten; whole steps when `integer`), the top tick the smallest step multiple at or above `max`, so the axis
 * reads the data's maximum rounded up (docs/dashboard.md "Charts"). `[0, 1]` when there is nothing above 0.
 */
export function niceTicks(max: number, integer: boolean, count = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const steps = [1, 2, 2.5, 5, 10].map((f) => f * mag).filter((s) => !integer || Number.isInteger(s));
  const step = steps.find((s) => s >= raw) ?? Math.max(1, Math.ceil(raw));
  const top = Math.ceil(max / step - 1e-9) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** The visitor's zone as a short name ("UTC", "GMT+1") at `t`. */
function zoneName(t: number): string {
  return new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(t).find((p) => p.type === "timeZoneName")?.value ?? "local time";
}

const DAY = 86_400_000;
const timeOfDay = (t: number) => new Date(t).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
const dateOf = (t: number) => new Date(t).toLocaleDateString(undefined, { month: "short", day: "numeric" });

/** A bucket as the tooltip names it: "Nov 26, 14:00–15:00 GMT+1" (dates on both ends when it spans days). */
function bucketRange(iso: string, bucketMs: number): string {
  const t = Date.parse(iso);
  const end = t + bucketMs;
  const sameDay = new Date(t).toDateString() === new Date(end - 1).toDateString();
  const to = sameDay ? timeOfDay(end) : `${dateOf(end)}, ${timeOfDay(end)}`;
  return `${dateOf(t)}, ${timeOfDay(t)}–${to} ${zoneName(t)}`;
}

/**
 * The UI's one time-series chart (docs/dashboard.md "Charts"), over recharts, sized to its container:
 * `kind` "bars" (default) for counts per bucket, side by side and never stacked, so every series reads
 * its own value; "lines" (straight, unsmoothed) for levels and rates (queue depth, latency, percentages).
 * The y-axis starts at 0 and ends at the data's maximum rounded up ({@link niceTicks}), wide enough for its
 * longest label. `bucket` is the metrics granularity ("1h"): the axis caption and every tooltip name it
 * and the visitor's time zone. `format` formats values (axis and tooltip); `label` captions the figure
 * for screen readers.
 */
export function TimeChart({
  data,
  series,
  label,
  bucket,
  kind = "bars",
  format = (v: number) => String(v),
  height = 200,
}: {
  data: ChartPoint[];
  series: ChartSeries[];
  label: string;
  bucket: string;
  kind?: "bars" | "lines";
  format?: (v: number) => string;
  height?: number;
}) {
  const hydrated = useHydrated();
  const chartKind = kind;
  const size = parseBucket(bucket);
  const bucketMs = size?.ms ?? (data.length > 1 ? Date.parse(data[1].time) - Date.parse(data[0].time) : 3_600_000);
  const bucketLabel = size?.label ?? bucket;
  const span = data.length > 1 ? Date.parse(data.at(-1)!.time) - Date.parse(data[0].time) : 0;
  const values = data.flatMap((p) => series.map((s) => p[s.key])).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const ticks = niceTicks(Math.max(0, ...values), values.every(Number.isInteger));
  const top = ticks.at(-1)!;
  // Wide enough for the longest tick label (11 px digits are at most ~7 px wide), so none is cut off.
  const axisWidth = Math.max(28, 12 + 7 * Math.max(...ticks.map((t) => format(t).length)));
  const zone = hydrated && data.length ? zoneName(Date.parse(data[0].time)) : "";

  const common = { data, margin: { top: 8, right: 8, bottom: 0, left: 0 }, accessibilityLayer: false };
  const axes = (
    <>
      <CartesianGrid stroke="var(--hy-chart-grid)" strokeDasharray="3 3" vertical={false} />
      <XAxis
        dataKey="time"
        tickFormatter={(iso: string) => (span <= 2 * DAY ? timeOfDay(Date.parse(iso)) : dateOf(Date.parse(iso)))}
        tick={{ fill: "currentColor", fontSize: 11 }}
        stroke="var(--hy-chart-grid)"
        minTickGap={24}
      />
      <YAxis
        tick={{ fill: "currentColor", fontSize: 11 }}
        stroke="var(--hy-chart-grid)"
        width={axisWidth}
        domain={[0, top]}
        ticks={ticks}
        interval={0}
        tickFormatter={(v: number) => format(v)}
        allowDecimals={!values.every(Number.isInteger)}
      />
      <Tooltip
        contentStyle={{ background: "var(--hy-chart-bg)", border: "1px solid var(--hy-chart-grid)", borderRadius: 6, fontSize: 12 }}
        cursor={chartKind === "bars" ? { fill: "var(--hy-chart-grid)", fillOpacity: 0.4 } : undefined}
        labelFormatter={(iso) => `${bucketRange(displayText(iso), bucketMs)} · ${bucketLabel} bucket`}
        formatter={(v) => (typeof v === "number" ? format(v) : "—")}
      />
      {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
    </>
  );
  return (
    <figure className="text-zinc-600 dark:text-zinc-400" data-chart-kind={chartKind} data-y-max={top}>
      <figcaption className="sr-only">{label}</figcaption>
      {/* overflow-hidden: the (hidden) tooltip keeps its last place, which may lie outside a chart that has narrowed since. */}
      <div style={{ height }} className="overflow-hidden" aria-hidden>
        <ResponsiveContainer width="100%" height="100%">
          {chartKind === "bars" ? (
            <BarChart {...common} barGap={1} barCategoryGap="20%">
              {axes}
              {series.map((s) => (
                <Bar key={s.key} dataKey={s.key} name={s.label} fill={COLORS[s.color]} radius={[2, 2, 0, 0]} isAnimationActive={false} />
              ))}
            </BarChart>
          ) : (
            <LineChart {...common}>
              {axes}
              {series.map((s) => (
                <Line
                  key={s.key}
                  type="linear"
                  dataKey={s.key}
                  name={s.label}
                  stroke={COLORS[s.color]}
                  strokeWidth={2}
                  dot={false}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
      <p className="mt-1 text-center text-xs" data-testid="chart-axis-caption">
        {bucketLabel} buckets · times in {zone || "your time zone"}
      </p>
    </figure>
  );
}
