import { humanizeCode, isNeutralRejection } from "@/components/format";

const METHOD_STYLES: Record<string, string> = {
  GET: "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-500/10 dark:text-emerald-300 dark:ring-emerald-400/25",
  POST: "bg-sky-50 text-sky-700 ring-sky-600/20 dark:bg-sky-500/10 dark:text-sky-300 dark:ring-sky-400/25",
  PUT: "bg-amber-50 text-amber-800 ring-amber-600/25 dark:bg-amber-500/10 dark:text-amber-300 dark:ring-amber-400/25",
  PATCH: "bg-violet-50 text-violet-700 ring-violet-600/20 dark:bg-violet-500/10 dark:text-violet-300 dark:ring-violet-400/25",
  DELETE: "bg-rose-50 text-rose-700 ring-rose-600/20 dark:bg-rose-500/10 dark:text-rose-300 dark:ring-rose-400/25",
};
const METHOD_FALLBACK = "bg-zinc-100 text-zinc-700 ring-zinc-500/20 dark:bg-zinc-500/10 dark:text-zinc-300 dark:ring-zinc-400/25";

/** The HTTP method, coloured by verb. */
export function MethodBadge({ verb, className = "" }: { verb: string | undefined; className?: string }) {
  const v = (verb || "POST").toUpperCase();
  return (
    <span
      data-testid="method-badge"
      className={`inline-flex min-w-[3.75rem] shrink-0 items-center justify-center rounded-md px-1.5 py-0.5 font-mono text-[11px] font-semibold tracking-wide ring-1 ring-inset ${METHOD_STYLES[v] ?? METHOD_FALLBACK} ${className}`}
    >
      {v}
    </span>
  );
}

/** Why a request was rejected: neutral for NO_CONNECTION (informational), a warning otherwise. */
export function RejectionBadge({ cause, showCode = false }: { cause: string; showCode?: boolean }) {
  const neutral = isNeutralRejection(cause);
  return (
    <span
      data-testid="rejection-badge"
      data-rejection-cause={cause}
      data-severity={neutral ? "info" : "warning"}
      title={cause}
      className={`inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${
        neutral
          ? "bg-zinc-100 text-zinc-600 ring-zinc-500/20 dark:bg-zinc-500/10 dark:text-zinc-400 dark:ring-zinc-400/20"
          : "bg-amber-50 text-amber-800 ring-amber-600/30 dark:bg-amber-500/10 dark:text-amber-300 dark:ring-amber-400/30"
      }`}
    >
      {!neutral && (
        <svg viewBox="0 0 16 16" className="size-3" fill="currentColor" aria-hidden>
          <path d="M8.9 1.6a1 1 0 0 0-1.8 0L.7 13.5A1 1 0 0 0 1.6 15h12.8a1 1 0 0 0 .9-1.5L8.9 1.6ZM8 5.5a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 8 5.5Zm0 7.25a.9.9 0 1 1 0-1.8.9.9 0 0 1 0 1.8Z" />
        </svg>
      )}
      {humanizeCode(cause)}
      {showCode && <span className="font-mono opacity-70">({cause})</span>}
    </span>
  );
}

/** A small neutral label (source type, body encoding, …). */
export function Tag({ children, className = "" }: { children: React.ReactNode; className?: string }) {
  return (
    <span
      className={`inline-flex shrink-0 items-center rounded-md bg-zinc-100 px-1.5 py-0.5 text-[11px] font-medium text-zinc-600 ring-1 ring-inset ring-zinc-500/10 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-400/10 ${className}`}
    >
      {children}
    </span>
  );
}
