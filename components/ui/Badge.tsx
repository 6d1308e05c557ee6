import { cx } from "@/components/ui/cx";

export type Tone = "neutral" | "success" | "warning" | "danger" | "info" | "accent";

const TONES: Record<Tone, string> = {
  neutral: "bg-zinc-100 text-zinc-700 ring-zinc-500/20 dark:bg-zinc-500/10 dark:text-zinc-300 dark:ring-zinc-400/25",
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/25 dark:bg-emerald-500/10 dark:text-emerald-300 dark:ring-emerald-400/25",
  warning: "bg-amber-50 text-amber-800 ring-amber-600/30 dark:bg-amber-500/10 dark:text-amber-300 dark:ring-amber-400/25",
  danger: "bg-rose-50 text-rose-700 ring-rose-600/25 dark:bg-rose-500/10 dark:text-rose-300 dark:ring-rose-400/25",
  info: "bg-sky-50 text-sky-800 ring-sky-600/25 dark:bg-sky-500/10 dark:text-sky-300 dark:ring-sky-400/25",
  accent: "bg-indigo-50 text-indigo-700 ring-indigo-600/25 dark:bg-indigo-500/10 dark:text-indigo-300 dark:ring-indigo-400/25",
};

/** A small rounded label in one of the tones; `compact`: squarer and smaller (tags and HTTP methods in dense lists). */
export function Badge({
  tone = "neutral",
  compact = false,
  className,
  children,
  ...rest
}: React.HTMLAttributes<HTMLSpanElement> & { tone?: Tone; compact?: boolean }) {
  return (
    <span
      className={cx(
        "inline-flex shrink-0 items-center gap-1 py-0.5 font-medium ring-1 ring-inset",
        compact ? "rounded-md px-1.5 text-[11px]" : "rounded-full px-2 text-xs",
        TONES[tone],
        className,
      )}
      {...rest}
    >
      {children}
    </span>
  );
}

const STATUS_TONES: Record<string, Tone> = {
  SUCCESSFUL: "success",
  SUCCESFUL: "success",
  FAILED: "danger",
  QUEUED: "info",
  SCHEDULED: "info",
  HOLD: "warning",
  CANCELLED: "neutral",
  ACCEPTED: "success",
  REJECTED: "warning",
  OPENED: "danger",
  ACKNOWLEDGED: "warning",
  RESOLVED: "success",
  IGNORED: "neutral",
};

/**
 * The UI's one status badge (docs/dashboard.md "One kit"): an API status (event, attempt, issue, request
 * rejection) in its tone. The text is the API value (what filters and the API say; underscores as spaces),
 * shown in sentence case like every other badge ("Successful", "No connection"); `tone` overrides the
 * status's own tone. `data-status` keeps the exact value.
 */
export function StatusBadge({ status, tone }: { status: string | null | undefined; tone?: Tone }) {
  const s = status ?? "—";
  return (
    <Badge tone={tone ?? STATUS_TONES[s] ?? "neutral"} data-status={s}>
      {/* ::first-letter needs a block box: the badge itself is a flex container. */}
      <span className="inline-block lowercase first-letter:uppercase">{s === "SUCCESFUL" ? "SUCCESSFUL" : s.replaceAll("_", " ")}</span>
    </Badge>
  );
}
