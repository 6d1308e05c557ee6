import { cx } from "@/components/ui/cx";

/** A progress bar (0 → 1) with its label; `tone` colours a finished, cancelled or failed run. */
export function ProgressBar({
  value,
  label,
  tone = "accent",
  className,
}: {
  value: number;
  label: string;
  tone?: "accent" | "success" | "neutral" | "danger";
  className?: string;
}) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  const fill = {
    accent: "bg-indigo-600 dark:bg-indigo-400",
    success: "bg-emerald-600 dark:bg-emerald-400",
    neutral: "bg-zinc-500",
    danger: "bg-rose-600 dark:bg-rose-400",
  }[tone];
  return (
    <div className={className}>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        className="h-2.5 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
      >
        <div className={cx("h-full rounded-full transition-[width] duration-500 ease-out motion-reduce:transition-none", fill)} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
