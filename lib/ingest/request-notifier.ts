import { getPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

/**
 * Channel of the live-update notifications. The payload is the source ids joined with ",", followed (same
 * separator) by `source_id/request_id` pairs of the committed requests, or "*" for "many". A listener that only
 * wants source ids matches whole items, so the pairs never match a source id (older readers ignore them); when
 * the pairs do not fit, they are left out and a listener reads the sources' lists again (docs/console-api.md "Live updates").
 */
export const REQUESTS_CHANNEL = "hookyard_requests";
/** Notifications are coalesced over this window, ms. */
const COALESCE_MS = 20;
const MAX_PAYLOAD = 7900;

let pending = new Map<string, string[]>();
let timer: NodeJS.Timeout | null = null;

/** The payload for `bySource` (source id → committed request ids), per the channel's format above. */
export function requestsPayload(bySource: Map<string, readonly string[]>): string {
  const sources = [...bySource.keys()].join(",");
  if (sources.length > MAX_PAYLOAD) return "*";
  let payload = sources;
  for (const [source, ids] of bySource) {
    for (const id of ids) {
      payload += `,${source}/${id}`;
      if (payload.length > MAX_PAYLOAD) return sources;
    }
  }
  return payload;
}

/**
 * What a notification's payload says (see REQUESTS_CHANNEL): `all` for "*" (every source may have new
 * requests, ids unknown); else the sources named, each with the request ids given (an empty list when the
 * payload left them out).
 */
export function parseRequestsPayload(payload: string): { all: true } | { all: false; sources: Map<string, string[]> } {
  if (payload === "*") return { all: true };
  const sources = new Map<string, string[]>();
  for (const item of payload.split(",")) {
    const slash = item.indexOf("/");
    if (slash === -1) {
      if (item && !sources.has(item)) sources.set(item, []);
    } else {
      const source = item.slice(0, slash);
      const list = sources.get(source) ?? sources.set(source, []).get(source)!;
      list.push(item.slice(slash + 1));
    }
  }
  return { all: false, sources };
}

function send() {
  timer = null;
  const payload = requestsPayload(pending);
  pending = new Map();
  getPool()
    .query("SELECT pg_notify($1, $2)", [REQUESTS_CHANNEL, payload])
    .catch((err) => logger("live").warn("notify failed", (err as Error).message));
}

/**
 * Tells every process's live views (lib/console/live.ts) that `requests` (each its source id and request id) were
 * committed. Coalesced: at most one NOTIFY per 20 ms per process, sent outside the request's transaction,
 * because PostgreSQL serialises the commits of notifying transactions and ingestion must not pay that.
 */
export function announceRequests(requests: Iterable<{ sourceId: string; id: string }>): void {
  for (const r of requests) {
    const list = pending.get(r.sourceId);
    if (list) list.push(r.id);
    else pending.set(r.sourceId, [r.id]);
  }
  timer ??= setTimeout(send, COALESCE_MS);
}
