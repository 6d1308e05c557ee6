import Link from "next/link";
import type { ConsoleSource } from "@/components/console/api";
import { inspectPath } from "@/components/console/format";
import { RelativeTime } from "@/components/ui/Time";

/** The visitor's test URLs (their workspace), the current one highlighted. */
export function SourcesNav({ sources, currentId, currentCount }: { sources: ConsoleSource[]; currentId: string; currentCount: number }) {
  return (
    <ul className="space-y-0.5" data-testid="workspace-sources">
      {sources.map((s) => {
        const current = s.public_id === currentId;
        const count = current ? Math.max(currentCount, s.request_count) : s.request_count;
        return (
          <li key={s.public_id}>
            <Link
              href={inspectPath(s.public_id)}
              prefetch={false}
              aria-current={current ? "page" : undefined}
              className={`flex items-center gap-2 rounded-lg px-2.5 py-2 text-sm transition ${
                current
                  ? "bg-white font-medium text-zinc-900 shadow-xs ring-1 ring-zinc-200 dark:bg-zinc-800 dark:text-zinc-50 dark:ring-zinc-700"
                  : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800/60"
              }`}
            >
              <span className="min-w-0 flex-1">
                <span className="block truncate">{s.name}</span>
                <span className="block truncate text-[11px] font-normal text-zinc-600 dark:text-zinc-400">
                  {s.type} · <RelativeTime iso={s.created_at} />
                </span>
              </span>
              <span className="shrink-0 rounded-full bg-zinc-100 px-1.5 py-0.5 text-[11px] font-medium text-zinc-600 tabular-nums dark:bg-zinc-700/60 dark:text-zinc-300">
                {count}
              </span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
