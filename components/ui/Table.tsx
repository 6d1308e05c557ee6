import { cx } from "@/components/ui/cx";

/** A data table that scrolls sideways on narrow screens. Give it `<thead>` with {@link Th} and rows with {@link Td}. */
export function Table({ className, children, caption, ...rest }: React.TableHTMLAttributes<HTMLTableElement> & { caption?: string }) {
  return (
    <div className="relative overflow-x-auto">
      <table className={cx("w-full border-collapse text-left text-sm", className)} {...rest}>
        {caption && <caption className="sr-only">{caption}</caption>}
        {children}
      </table>
    </div>
  );
}

export function Th({ className, ...rest }: React.ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={cx(
        "border-b border-zinc-200 px-3 py-2 text-xs font-medium whitespace-nowrap text-zinc-600 dark:border-zinc-800 dark:text-zinc-400",
        className,
      )}
      {...rest}
    />
  );
}

export function Td({ className, ...rest }: React.TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cx("border-b border-zinc-100 px-3 py-2 align-middle dark:border-zinc-800/70", className)} {...rest} />;
}

/** Classes of a row that opens something on click (Tr, ListTable): pointer, hover and keyboard focus ring. */
export const OPENABLE_ROW =
  "cursor-pointer hover:bg-zinc-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-[var(--hy-focus)] dark:hover:bg-zinc-800/50";
/** Classes of the row whose item is open (Tr, ListTable). */
export const SELECTED_ROW = "bg-indigo-50/70 dark:bg-indigo-500/10";

/** A key handler that calls `open` on Enter or Space (and keeps Space from scrolling), for a focusable row. */
export const openOnEnterOrSpace =
  (open: () => void) =>
  (e: React.KeyboardEvent): void => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    open();
  };

/** A row; `onOpen` makes it clickable and opens with Enter or Space too (the row is then focusable). */
export function Tr({ className, onOpen, selected, ...rest }: React.HTMLAttributes<HTMLTableRowElement> & { onOpen?: () => void; selected?: boolean }) {
  return (
    <tr
      className={cx(onOpen && OPENABLE_ROW, selected && SELECTED_ROW, className)}
      tabIndex={onOpen ? 0 : undefined}
      aria-selected={onOpen ? Boolean(selected) : undefined}
      onClick={onOpen}
      onKeyDown={onOpen && openOnEnterOrSpace(onOpen)}
      {...rest}
    />
  );
}
