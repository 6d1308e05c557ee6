import { cx } from "@/components/ui/cx";

type NoticeTone = "info" | "warning" | "danger";

const TONES: Record<NoticeTone, string> = {
  info: "border-sky-300/70 bg-sky-50 text-sky-900 dark:border-sky-500/30 dark:bg-sky-500/10 dark:text-sky-200",
  warning: "border-amber-300/70 bg-amber-50 text-amber-900 dark:border-amber-500/30 dark:bg-amber-500/10 dark:text-amber-200",
  danger: "border-rose-300 bg-rose-50 text-rose-900 dark:border-rose-500/40 dark:bg-rose-500/10 dark:text-rose-200",
};

/**
 * A short message in a tinted box (a rate limit, a refresh that failed, a validation list). `role`
 * defaults to "alert" (read out when it appears); pass `role="status"` for news that is not a problem.
 */
export function Notice({ tone = "warning", className, role = "alert", ...rest }: React.HTMLAttributes<HTMLDivElement> & { tone?: NoticeTone }) {
  return <div role={role} className={cx("rounded-lg border px-3 py-2 text-sm", TONES[tone], className)} {...rest} />;
}
