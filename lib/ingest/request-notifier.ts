import { getPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

/** Channel of the live-update notifications; the payload is source ids joined with "," or "*". */
export const REQUESTS_CHANNEL = "hookyard_requests";
/** Notifications are coalesced over this window, ms. */
const COALESCE_MS = 20;
const MAX_PAYLOAD = 7900;

let pending = new Set<string>();
let timer: NodeJS.Timeout | null = null;

function send() {
  timer = null;
  const ids = [...pending];
  pending = new Set();
  let payload = ids.join(",");
  if (payload.length > MAX_PAYLOAD) payload = "*";
  getPool()
    .query("SELECT pg_notify($1, $2)", [REQUESTS_CHANNEL, payload])
    .catch((err) => logger("live").warn("notify failed", (err as Error).message));
}

/**
 * Tells every process's live views (lib/console/live.ts) that requests of `sourceIds` were committed.
 * Coalesced: at most one NOTIFY per 20 ms per process, sent outside the request's transaction,
 * because PostgreSQL serialises the commits of notifying transactions and ingestion must not pay that.
 */
export function announceRequests(sourceIds: Iterable<string>): void {
  for (const id of sourceIds) pending.add(id);
  timer ??= setTimeout(send, COALESCE_MS);
}
