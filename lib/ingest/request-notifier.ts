import { getPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

/**
 * Channel of the live-update notifications. The payload is the source ids joined with ",", followed (same
 * separator) by `source_id/request_id` pairs of the committed requests, or "*" for "many". A listener that only
 * wants source ids matches whole items, so the pairs never match a source id (older readers ignore them); when
 * the pairs do not fit, they are left out and a listener reads the sources' lists again (docs/console-api.md "Live updates").
 */
export const REQUESTS_CHANNEL = "hookyard_requests";
/** At most one notification per this window per process, ms (see {@link throttle}). */
const COALESCE_MS = 20;
const MAX_PAYLOAD = 7900;

let pending = new Map<string, string[]>();

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

/**
 * A leading-edge throttle of `flush`: the returned function schedules one call of `flush`. After a quiet
 * `windowMs` (ms) it runs at the next turn of the event loop (so requests committed in the same turn go
 * together), else when `windowMs` has passed since the last call; calls while one is scheduled join it. A lone
 * request is announced at once, and a steady stream still costs at most one call per window.
 */
export function throttle(flush: () => void, windowMs: number): () => void {
  let last = -Infinity;
  let scheduled = false;
  const run = () => {
    scheduled = false;
    last = Date.now();
    flush();
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    const wait = last + windowMs - Date.now();
    if (wait > 0) setTimeout(run, wait);
    else setImmediate(run);
  };
}

function send() {
  const payload = requestsPayload(pending);
  pending = new Map();
  getPool()
    .query("SELECT pg_notify($1, $2)", [REQUESTS_CHANNEL, payload])
    .catch((err) => logger("live").warn("notify failed", (err as Error).message));
}

const scheduleSend = throttle(send, COALESCE_MS);

/**
 * Tells every process's live views (lib/console/live.ts) and the workers' fan-out loops that `requests` (each its
 * source id and request id) were committed. Throttled: the first commit after a quiet 20 ms is announced at once,
 * later ones at most one NOTIFY per 20 ms per process; sent outside the request's transaction, because
 * PostgreSQL serialises the commits of notifying transactions and ingestion must not pay that.
 */
export function announceRequests(requests: Iterable<{ sourceId: string; id: string }>): void {
  for (const r of requests) {
    const list = pending.get(r.sourceId);
    if (list) list.push(r.id);
    else pending.set(r.sourceId, [r.id]);
  }
  scheduleSend();
}
