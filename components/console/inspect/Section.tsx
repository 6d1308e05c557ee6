import { Card } from "@/components/ui/Card";
import { cx } from "@/components/ui/cx";

/** A titled panel of the request view (the kit's Card, flush body): meta beside the title, actions on the right. */
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
    <Card title={title} titleId={id} level={3} meta={meta} actions={actions} className="overflow-hidden" bodyClassName="">
      {children}
    </Card>
  );
}

/** One labelled value of a definition list (a `<div>` holding its `<dt>` and `<dd>`: put it directly in the `<dl>`). */
export function Field({ label, className, children }: { label: string; className?: string; children: React.ReactNode }) {
  return (
    <div className={cx("min-w-0", className)}>
      <dt className="text-[11px] font-medium tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{label}</dt>
      <dd className="mt-1 min-w-0 text-sm text-zinc-900 dark:text-zinc-100">{children}</dd>
    </div>
  );
}
