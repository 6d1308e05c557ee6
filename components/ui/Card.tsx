import { cx } from "@/components/ui/cx";

/**
 * A bordered panel. `title` (and `meta` beside it, `actions` on the right) make a header row; `level`
 * is the title's heading level (2, or 3 inside a page section) and `titleId` its id (the card is then
 * labelled by it); `bodyClassName` replaces the body's `p-4`.
 */
export function Card({
  title,
  meta,
  actions,
  level = 2,
  titleId,
  className,
  bodyClassName,
  children,
  ...rest
}: Omit<React.HTMLAttributes<HTMLElement>, "title"> & {
  title?: React.ReactNode;
  meta?: React.ReactNode;
  actions?: React.ReactNode;
  level?: 2 | 3;
  titleId?: string;
  bodyClassName?: string;
}) {
  const Heading = level === 3 ? "h3" : "h2";
  return (
    <section
      aria-labelledby={title && titleId ? titleId : undefined}
      className={cx("rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900/60", className)}
      {...rest}
    >
      {(title || actions) && (
        <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
          {title && (
            <Heading id={titleId} className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
              {title}
            </Heading>
          )}
          {meta && <div className="flex min-w-0 flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">{meta}</div>}
          {actions && <div className="ml-auto flex items-center gap-2">{actions}</div>}
        </header>
      )}
      {/* bodyClassName replaces the padding (no class merging: "p-4 p-0" would keep p-4). */}
      <div className={bodyClassName ?? "p-4"}>{children}</div>
    </section>
  );
}

/** A card's header with a description (use inside `<Card bodyClassName="p-0">`); `id` names the card for `aria-labelledby`. */
export function CardHeader({ title, description, actions, id }: { title: string; description?: React.ReactNode; actions?: React.ReactNode; id?: string }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-200 px-4 py-3 sm:px-5 dark:border-zinc-800">
      <div className="min-w-0">
        <h2 id={id} className="text-base font-semibold text-zinc-900 dark:text-zinc-50">
          {title}
        </h2>
        {description && <p className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

/** Grey bars while something loads (`aria-busy`). */
export function Skeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div role="status" className="space-y-3 p-5" aria-busy="true" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="h-4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" style={{ width: `${90 - i * 15}%` }} />
      ))}
    </div>
  );
}
