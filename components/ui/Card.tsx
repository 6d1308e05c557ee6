import { cx } from "@/components/ui/cx";

/** A bordered panel. `title` (and `actions`) make a header row. */
export function Card({ title, actions, className, bodyClassName, children, ...rest }: Omit<React.HTMLAttributes<HTMLElement>, "title"> & { title?: React.ReactNode; actions?: React.ReactNode; bodyClassName?: string }) {
  return (
    <section className={cx("rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900/60", className)} {...rest}>
      {(title || actions) && (
        <header className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
          {title && <h2 className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">{title}</h2>}
          {actions && <div className="flex items-center gap-2">{actions}</div>}
        </header>
      )}
      <div className={cx("p-4", bodyClassName)}>{children}</div>
    </section>
  );
}
