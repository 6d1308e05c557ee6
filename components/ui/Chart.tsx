"use client";

import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { displayText } from "@/components/ui/text";

export type ChartSeries = { key: string; label: string; color: ChartColor };
type ChartColor = "indigo" | "emerald" | "rose" | "amber" | "sky" | "violet";
export type ChartPoint = { time: string } & Record<string, number | string | null>;

/** Colours as Tailwind's CSS variables: readable on white and on zinc-950. */
const COLORS: Record<ChartColor, string> = {
  indigo: "var(--color-indigo-500)",
  emerald: "var(--color-emerald-500)",
  rose: "var(--color-rose-500)",
  amber: "var(--color-amber-500)",
  sky: "var(--color-sky-500)",
  violet: "var(--color-violet-500)",
};

/** Tick label of a bucket: time of day for spans up to two days, else the date. */
function tickFormatter(spanMs: number) {
  return (iso: string) => {
    const d = new Date(iso);
    return spanMs <= 2 * 86_400_000
      ? d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
      : d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  };
}

/**
 * A time-series chart over recharts (lines, or stacked areas with `stacked`), sized to its container,
 * with a caption for screen readers and tooltips that follow the colour scheme. `format` formats values
 * (axis and tooltip).
 */
export function TimeChart({
  data,
  series,
  label,
  stacked = false,
  format = (v: number) => String(v),
  height = 200,
}: {
  data: ChartPoint[];
  series: ChartSeries[];
  label: string;
  stacked?: boolean;
  format?: (v: number) => string;
  height?: number;
}) {
  const span = data.length > 1 ? Date.parse(data.at(-1)!.time) - Date.parse(data[0].time) : 0;
  const common = {
    data,
    margin: { top: 8, right: 8, bottom: 0, left: 0 },
  };
  const axes = (
    <>
      <CartesianGrid stroke="var(--hy-chart-grid)" strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="time" tickFormatter={tickFormatter(span)} tick={{ fill: "currentColor", fontSize: 11 }} stroke="var(--hy-chart-grid)" minTickGap={24} />
      <YAxis
        tick={{ fill: "currentColor", fontSize: 11 }}
        stroke="var(--hy-chart-grid)"
        width={48}
        tickFormatter={(v: number) => format(v)}
        allowDecimals={false}
      />
      <Tooltip
        contentStyle={{ background: "var(--hy-chart-bg)", border: "1px solid var(--hy-chart-grid)", borderRadius: 6, fontSize: 12 }}
        labelFormatter={(iso) => new Date(displayText(iso)).toLocaleString()}
        formatter={(v) => (typeof v === "number" ? format(v) : "—")}
      />
      {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
    </>
  );
  return (
    <figure className="text-zinc-600 dark:text-zinc-400">
      <figcaption className="sr-only">{label}</figcaption>
      <div style={{ height }} aria-hidden>
        <ResponsiveContainer width="100%" height="100%">
          {stacked ? (
            <AreaChart {...common} accessibilityLayer={false}>
              {axes}
              {series.map((s) => (
                <Area
                  key={s.key}
                  type="monotone"
                  dataKey={s.key}
                  name={s.label}
                  stackId="1"
                  stroke={COLORS[s.color]}
                  fill={COLORS[s.color]}
                  fillOpacity={0.25}
                  isAnimationActive={false}
                />
              ))}
            </AreaChart>
          ) : (
            <LineChart {...common} accessibilityLayer={false}>
              {axes}
              {series.map((s) => (
                <Line
                  key={s.key}
                  type="monotone"
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
    </figure>
  );
}
