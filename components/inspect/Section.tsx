/** A titled panel of the request view, with optional meta (beside the title) and actions (right). */
export function Section({
  title,
  meta,
  actions,
  children,
  id,
}: {
  title: string;
  meta?: React.ReactNode;
  actions?: React.ReactNode;
  children: React.ReactNode;
  id?: string;
}) {
  return (
    <section aria-labelledby={id} className="overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900">
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 px-4 py-2.5 dark:border-zinc-800">
        <h3 id={id} className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
          {title}
        </h3>
        {meta && <div className="flex min-w-0 flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">{meta}</div>}
        {actions && <div className="ml-auto flex items-center gap-2">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** One labelled value of a definition list. */
export function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-[11px] font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{label}</dt>
      <dd className="mt-1 min-w-0 text-sm text-zinc-900 dark:text-zinc-100">{children}</dd>
    </div>
  );
}

