/**
 * Is the database there? (docs/architecture.md#processes). Used by ingestion's error mapping (503 + Retry-After while the
 * database is away) and by `GET /healthz`.
 */
import { getPool } from "@/lib/db/pool";

/** SQLSTATE classes and codes meaning "the server is not available now", and Node socket errors. */
const UNAVAILABLE_CODES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection (?:is )?closed|the database system is (?:starting up|shutting down|in recovery mode)|Cannot use a pool after calling end/i;

/** True when `err` says the database cannot be reached now (down, restarting, too many connections), not that a query was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
    if (e instanceof Error && UNAVAILABLE_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some((x) => isDatabaseUnavailable(x))) return true;
  }
  return false;
}

/** Seconds a sender is asked to wait (`Retry-After`) while the database is away. */
export const DATABASE_RETRY_AFTER_S = 5;

let last: { at: number; up: boolean; error: string | null } | null = null;
let probing: Promise<{ up: boolean; error: string | null }> | null = null;

/**
 * Whether this process reaches the database now: `SELECT 1` on the process pool, failing after 2 s.
 * Cached for 500 ms and shared by concurrent callers, so /healthz polling costs two queries a second at most.
 */
export async function probeDatabase(now = Date.now()): Promise<{ up: boolean; error: string | null }> {
  if (last && now - last.at < 500) return last;
  probing ??= (async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([getPool().query("SELECT 1"), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no answer in 2 s")), 2000)))]);
      return { up: true, error: null };
    } catch (err) {
      return { up: false, error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  })().then((r) => ((last = { ...r, at: Date.now() }), (probing = null), r));
  return probing;
}
