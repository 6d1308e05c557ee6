"use client";

import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/Button";
import { cx } from "@/components/ui/cx";

/**
 * A list-and-detail layout: `list` on the left and, when `panel` is given, the panel beside it on wide
 * screens (lg and up: a column that stays in view while the list scrolls) or as a full-screen sheet over
 * the page on narrower ones. The panel is a labelled region (`title`) with a Close button; Escape closes it.
 * When `focusKey` changes (a new selection opened by click or Enter), focus moves to the panel's heading,
 * so the detail is in view and next for the keyboard and screen readers (docs/dashboard.md "Requests,
 * events, attempts").
 */
export function ListWithPanel({
  list,
  panel,
  title,
  onClose,
  focusKey,
  testId = "side-panel",
}: {
  list: React.ReactNode;
  panel: React.ReactNode | null;
  title: React.ReactNode;
  onClose: () => void;
  /** Changes when focus should move into the panel; null leaves focus where it is. */
  focusKey?: string | null;
  testId?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const region = useRef<HTMLElement>(null);
  // The panel may open a render after the key changes (the selection comes back through the URL): focus once it is there.
  const focused = useRef<string | null>(null);
  useEffect(() => {
    if (focusKey && focusKey !== focused.current && heading.current) {
      focused.current = focusKey;
      // The whole panel into view (beside a list below the filters it starts low on the page), then focus its heading.
      region.current?.scrollIntoView({ block: "nearest" });
      heading.current.focus({ preventScroll: true });
    }
  });
  const open = panel !== null;
  return (
    <div className={cx(open && "lg:grid lg:grid-cols-[minmax(0,1fr)_minmax(22rem,34rem)] lg:items-start lg:gap-4")}>
      <div className="min-w-0" data-testid="list-column">
        {list}
      </div>
      {open && (
        <section
          ref={region}
          role="region"
          aria-labelledby="side-panel-title"
          data-testid={testId}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.stopPropagation();
              onClose();
            }
          }}
          className={cx(
            // Phone and tablet: a full-screen sheet; wide: a column beside the list that stays in view. Its
            // height is fixed: brought into view when it opens, it must not grow past the screen's bottom
            // when its detail arrives a moment later.
            "fixed inset-0 z-40 flex flex-col overflow-hidden bg-white dark:bg-zinc-950",
            "lg:sticky lg:inset-auto lg:top-4 lg:z-auto lg:h-[calc(100dvh-2rem)] lg:rounded-lg lg:border lg:border-zinc-200 lg:shadow-xs lg:dark:border-zinc-800 lg:dark:bg-zinc-900/60",
          )}
        >
          <header className="flex items-center gap-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
            <h2 id="side-panel-title" ref={heading} tabIndex={-1} className="min-w-0 flex-1 truncate text-sm font-semibold outline-none">
              {title}
            </h2>
            <Button size="sm" variant="ghost" onClick={onClose} data-testid="side-panel-close" aria-label="Close details">
              Close
            </Button>
          </header>
          <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain p-4">{panel}</div>
        </section>
      )}
    </div>
  );
}
