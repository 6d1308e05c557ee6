"use client";

import type { TCapturedRequest } from "@/lib/console/schemas";
import { formatBytes } from "@/components/ui/format";
import { fullPath, isNeutralRejection } from "@/components/console/format";
import { RelativeTime } from "@/components/ui/Time";
import { MethodBadge, RejectionBadge } from "@/components/console/inspect/badges";

export function requestKey(r: TCapturedRequest, index: number): string {
  return r.id ?? `#${index}`;
}

/** The captured requests, newest first; the selected one highlighted. */
export function RequestList({
  requests,
  selectedKey,
  onSelect,
  freshKeys,
}: {
  requests: TCapturedRequest[];
  selectedKey: string | null;
  onSelect: (key: string) => void;
  /** Keys of rows that arrived after the page loaded (briefly highlighted). */
  freshKeys: ReadonlySet<string>;
}) {
  return (
    <ul role="listbox" aria-label="Captured requests" className="divide-y divide-zinc-100 dark:divide-zinc-800/80" data-testid="request-list">
      {requests.map((r, i) => {
        const key = requestKey(r, i);
        const selected = key === selectedKey;
        return (
          <li key={key} role="presentation">
            <button
              type="button"
              role="option"
              aria-selected={selected}
              data-testid="request-row"
              data-request-id={r.id}
              data-selected={selected ? "true" : undefined}
              onClick={() => onSelect(key)}
              className={`group relative flex w-full flex-col gap-1.5 px-4 py-2.5 text-left transition focus-visible:z-10 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-[var(--hy-focus)] ${
                selected ? "bg-indigo-50/80 dark:bg-indigo-500/10" : "hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
              } ${freshKeys.has(key) ? "hy-row-new" : ""}`}
            >
              {selected && <span className="absolute inset-y-0 left-0 w-0.5 bg-indigo-600 dark:bg-indigo-400" aria-hidden />}
              <span className="flex min-w-0 items-center gap-2">
                <MethodBadge verb={r.verb} />
                <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-800 dark:text-zinc-200">{fullPath(r.path, r.query)}</span>
              </span>
              <span className="flex min-w-0 items-center gap-2 text-[11px] text-zinc-600 dark:text-zinc-400">
                <RelativeTime iso={r.received_at} className="tabular-nums" />
                <span aria-hidden>·</span>
                <span className="tabular-nums">{formatBytes(r.body_size)}</span>
                {/* NO_CONNECTION is the normal state of a test URL nothing listens to: no badge for it. */}
                {r.rejection_cause && !isNeutralRejection(r.rejection_cause) && (
                  <span className="ml-auto">
                    <RejectionBadge cause={r.rejection_cause} />
                  </span>
                )}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
