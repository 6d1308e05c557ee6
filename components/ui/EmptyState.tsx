import { cx } from "@/components/ui/cx";

/** What an empty list or chart means and what to do next (`action`: a button or link). */
export function EmptyState({
  title,
  children,
  action,
  className,
  ...rest
}: Omit<React.HTMLAttributes<HTMLDivElement>, "title"> & { title: string; action?: React.ReactNode }) {
  return (
    <div
      className={cx("flex flex-col items-center gap-2 rounded-lg border border-dashed border-zinc-300 px-6 py-10 text-center dark:border-zinc-700", className)}
      {...rest}
    >
      <p className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">{title}</p>
      {children && <div className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{children}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}

/** An error with what went wrong (the API's message) and, optionally, a retry. */
// `onRetry` is typically a query's refetch: its promise never rejects (the query's state shows the outcome), so it is not awaited.
export function ErrorMessage({ title = "Something went wrong", error, onRetry }: { title?: string; error: unknown; onRetry?: () => unknown }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div
      role="alert"
      className="rounded-lg border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-900 dark:border-rose-500/40 dark:bg-rose-500/10 dark:text-rose-200"
    >
      <p className="font-semibold">{title}</p>
      <p className="mt-1">{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry} className="mt-2 font-medium underline underline-offset-2">
          Try again
        </button>
      )}
    </div>
  );
}
