"use client";

import { cx } from "@/components/ui/cx";
import { OPENABLE_ROW, openOnEnterOrSpace, SELECTED_ROW } from "@/components/ui/Table";

/**
 * Where a column starts to show: a width of the list itself (not of the screen, so a list beside an open detail
 * panel drops columns as a phone does): sm 28rem, md 36rem, lg 48rem, xl 64rem.
 */
export type Breakpoint = "sm" | "md" | "lg" | "xl";

/** A column of a {@link ListTable}. */
export type ListColumn<T> = {
  header: string;
  cell: (row: T) => React.ReactNode;
  /**
   * Its width: a fixed length in rem (`"7rem"`) or a share of what the fixed columns leave (`"2fr"`, at least
   * 6 rem wide; the default `"1fr"`). Never sized by its content: every row lays out on its own.
   */
  width?: `${number}rem` | `${number}fr`;
  /** Shown from this breakpoint up, hidden on narrower screens. */
  from?: Breakpoint;
  /** Classes of each of its cells (`tabular-nums`, …). */
  className?: string;
};

const BREAKPOINTS: readonly Breakpoint[] = ["sm", "md", "lg", "xl"];
/** The least width of a share column, rem: below it the table scrolls sideways. */
const MIN_SHARE_REM = 6;
// Container queries of the list's wrapper (Tailwind's @md = 28rem, @xl = 36rem, @3xl = 48rem, @5xl = 64rem).
const SHOW_FROM: Record<Breakpoint, string> = { sm: "hidden @md:block", md: "hidden @xl:block", lg: "hidden @3xl:block", xl: "hidden @5xl:block" };
// One template per breakpoint, as custom properties set on the table (the class names stay static for Tailwind).
const ROW_GRID =
  "grid items-center grid-cols-[var(--hy-cols)] @md:grid-cols-[var(--hy-cols-sm)] @xl:grid-cols-[var(--hy-cols-md)] @3xl:grid-cols-[var(--hy-cols-lg)] @5xl:grid-cols-[var(--hy-cols-xl)]";
const TABLE_MIN = "min-w-[var(--hy-min)] @md:min-w-[var(--hy-min-sm)] @xl:min-w-[var(--hy-min-md)] @3xl:min-w-[var(--hy-min-lg)] @5xl:min-w-[var(--hy-min-xl)]";

/** The grid template and least width (rem) of the columns shown at breakpoint `at` (null: the narrowest screens). */
function layout<T>(columns: ListColumn<T>[], at: Breakpoint | null): { tracks: string; minRem: number } {
  const rank = (b: Breakpoint | null | undefined) => (b ? BREAKPOINTS.indexOf(b) : -1);
  const shown = columns.filter((c) => rank(c.from) <= rank(at));
  let minRem = 0;
  const tracks = shown.map(({ width = "1fr" }) => {
    const n = Number.parseFloat(width);
    if (width.endsWith("rem")) {
      minRem += n;
      return width;
    }
    minRem += MIN_SHARE_REM;
    return `minmax(0,${n}fr)`;
  });
  return { tracks: tracks.join(" "), minRem };
}

/** The custom properties that give every row of `columns` the same grid at each breakpoint. */
function gridStyle<T>(columns: ListColumn<T>[]): React.CSSProperties {
  const style: Record<string, string> = {};
  for (const at of [null, ...BREAKPOINTS]) {
    const { tracks, minRem } = layout(columns, at);
    const suffix = at ? `-${at}` : "";
    style[`--hy-cols${suffix}`] = tracks;
    style[`--hy-min${suffix}`] = `${minRem}rem`;
  }
  return style;
}

/**
 * A long list of records as a table (ARIA table, row and cell roles) that the browser lays out and paints only
 * where it is on screen: every row is its own grid over the columns' fixed widths and shares, and rows off
 * screen skip style, layout and paint (`content-visibility: auto`, `.hy-list-row` in app/globals.css). Columns
 * show by the list's own width ({@link Breakpoint}); below the least width of those shown it scrolls sideways. Cells
 * keep to one line (longer text ends in "…"), so every row has the same height. With `onOpen` a row is
 * clickable and opens with Enter or Space; one row (`tabStopId`, else none) is in the Tab order and the page
 * moves focus between rows. Used by the dashboard's explorers (docs/dashboard.md "Requests, events, attempts").
 */
export function ListTable<T extends { id: string }>({
  label,
  columns,
  rows,
  selectedId,
  tabStopId,
  onOpen,
  rowClassName,
  rowTestId,
  busy,
  ...rest
}: {
  /** The table's accessible name (what it lists, and how to move in it). */
  label: string;
  columns: ListColumn<T>[];
  rows: readonly T[];
  selectedId?: string | null;
  tabStopId?: string | null;
  onOpen?: (row: T) => void;
  rowClassName?: (row: T) => string | undefined;
  rowTestId?: string;
  busy?: boolean;
} & Omit<React.HTMLAttributes<HTMLDivElement>, "role" | "children">) {
  return (
    <div className="@container relative overflow-x-auto">
      <div role="table" aria-label={label} aria-busy={busy} className={cx("w-full text-left text-sm", TABLE_MIN)} style={gridStyle(columns)} {...rest}>
        <div role="rowgroup">
          <div role="row" className={cx(ROW_GRID, "border-b border-zinc-200 dark:border-zinc-800")}>
            {columns.map((c) => (
              <div
                key={c.header}
                role="columnheader"
                className={cx("truncate px-2 py-2 text-xs font-medium text-zinc-600 @md:px-3 dark:text-zinc-400", c.from && SHOW_FROM[c.from])}
              >
                {c.header}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup">
          {rows.map((row) => (
            <div
              key={row.id}
              role="row"
              data-testid={rowTestId}
              data-id={row.id}
              aria-selected={onOpen ? row.id === selectedId : undefined}
              tabIndex={onOpen ? (row.id === tabStopId ? 0 : -1) : undefined}
              onClick={onOpen && (() => onOpen(row))}
              onKeyDown={onOpen && openOnEnterOrSpace(() => onOpen(row))}
              className={cx(
                ROW_GRID,
                "hy-list-row border-b border-zinc-100 dark:border-zinc-800/70",
                onOpen && OPENABLE_ROW,
                onOpen && row.id === selectedId && SELECTED_ROW,
                rowClassName?.(row),
              )}
            >
              {columns.map((c) => (
                <div key={c.header} role="cell" className={cx("min-w-0 truncate px-2 py-2 @md:px-3", c.from && SHOW_FROM[c.from], c.className)}>
                  {c.cell(row)}
                </div>
              ))}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
