import Link from "next/link";
import type { ConsoleSource } from "@/components/console/api";
import { inspectPath } from "@/components/console/format";
import { ArrowRightIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/Time";

/** The visitor's test URLs on the landing page. */
export function WorkspaceList({ sources }: { sources: ConsoleSource[] }) {
  return (
    <section aria-labelledby="your-urls" className="w-full">
      <div className="mb-3 flex items-baseline justify-between">
        <h2 id="your-urls" className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
          Your test URLs
        </h2>
        <span className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400">{sources.length}</span>
      </div>
      <ul
        data-testid="workspace-sources"
        className="divide-y divide-zinc-100 overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-xs dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900/60"
      >
        {sources.map((s) => (
          <li key={s.public_id}>
            <Link
              href={inspectPath(s.public_id)}
              prefetch={false}
              data-testid="workspace-source"
              data-source-id={s.public_id}
              className="group flex items-center gap-4 px-4 py-3 transition hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
            >
              <span className="min-w-0 flex-1">
                <span className="block truncate text-sm font-medium text-zinc-900 dark:text-zinc-100">{s.name}</span>
                <span className="mt-0.5 flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
                  <span className="font-mono">{s.type}</span>
                  <span aria-hidden>·</span>
                  <span>
                    created <RelativeTime iso={s.created_at} />
                  </span>
                </span>
              </span>
              <span className="shrink-0 text-right">
                <span className="block text-sm font-semibold text-zinc-900 tabular-nums dark:text-zinc-100">{s.request_count}</span>
                <span className="block text-[11px] text-zinc-600 dark:text-zinc-400">{s.request_count === 1 ? "request" : "requests"}</span>
              </span>
              <ArrowRightIcon className="size-4 shrink-0 text-zinc-400 transition group-hover:translate-x-0.5 group-hover:text-zinc-600 dark:group-hover:text-zinc-300" />
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
