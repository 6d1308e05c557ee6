/**
 * The open broker and cloud clients of this process (docs/outbound.md "Connections"): one client per
 * destination, opened at its first delivery and kept warm for the next ones. A client is closed when
 * its destination's config or credentials change (the next delivery opens a new one), when it failed
 * (the type drops it), after CLIENT_IDLE_MS without a delivery, when its destination is deleted or
 * disabled (checked every RECONCILE_MS against the database, and at once when a delivery of it is
 * skipped), and, least recently used first, when more than OUTBOUND_MAX_OPEN_CLIENTS are open.
 */
import { getBackgroundPool } from "@/lib/db/pool";
import { getConfig } from "@/lib/config";
import { logger } from "@/lib/log";

const log = logger("outbound-clients");

/** A client unused this long is closed, ms. */
export const CLIENT_IDLE_MS = 5 * 60_000;
/** How often the open clients' destinations are checked (deleted or disabled ones are closed), ms. */
const RECONCILE_MS = 15_000;

type Entry = { fingerprint: string; client: Promise<unknown>; close: (client: never) => unknown; lastUsed: number };

/** Open clients by destination id, least recently used first (a Map keeps insertion order; a use re-inserts). */
const entries = new Map<string, Entry>();
let timer: NodeJS.Timeout | null = null;

/** Closes one entry's client (once it opened); a close that throws or hangs is logged and forgotten. */
function closeEntry(id: string, e: Entry): void {
  e.client.then(
    (c) =>
      Promise.resolve()
        .then(() => e.close(c as never))
        .catch((err) => log.debug(`closing the client of ${id}: ${err instanceof Error ? err.message : String(err)}`)),
    () => undefined,
  );
}

/**
 * The client of destination `id` for `fingerprint` (a string of the config and credentials it was
 * opened with): the open one when the fingerprint matches, else a new one from `open` (the old one
 * closed). `open` gets `drop`, which forgets this client (and only this one: not a newer client of the
 * destination) for its error and close events. `close` ends a client; it must not throw for a client already broken. A rejected `open` is
 * forgotten (the next delivery tries again) and rejects the caller with its error. Starts the periodic
 * check of this process's clients (unref'd: it never holds the process open).
 */
export function pooledClient<T>(id: string, fingerprint: string, open: (drop: () => void) => Promise<T>, close: (client: T) => unknown): Promise<T> {
  const now = Date.now();
  const found = entries.get(id);
  if (found && found.fingerprint === fingerprint) {
    entries.delete(id);
    found.lastUsed = now;
    entries.set(id, found);
    return found.client as Promise<T>;
  }
  if (found) dropClient(id);
  const entry: Entry = { fingerprint, client: Promise.resolve(), close, lastUsed: now };
  const client = open(() => entries.get(id) === entry && dropClient(id));
  entry.client = client;
  entries.set(id, entry);
  client.catch(() => entries.get(id) === entry && entries.delete(id));
  const max = getConfig().outbound.maxOpenClients;
  for (const [oldId] of entries) {
    if (entries.size <= max) break;
    dropClient(oldId);
  }
  timer ??= setInterval(
    () => void reconcileClients().catch((err) => log.warn("checking the open clients failed", err instanceof Error ? err.message : err)),
    RECONCILE_MS,
  );
  timer.unref();
  return client;
}

/** Closes and forgets the client of destination `id`, if one is open (after a failure, or its destination was deleted or disabled). */
export function dropClient(id: string): void {
  const e = entries.get(id);
  if (!e) return;
  entries.delete(id);
  closeEntry(id, e);
}

/** The destination ids with an open (or opening) client here, least recently used first. */
export const openClientIds = (): string[] => [...entries.keys()];

/**
 * Closes the clients idle for CLIENT_IDLE_MS (at `now`, ms since the epoch) and those whose destination
 * is deleted or disabled (one query). Throws database errors (nothing is closed for the query's part then).
 */
export async function reconcileClients(now = Date.now()): Promise<void> {
  for (const [id, e] of entries) if (now - e.lastUsed >= CLIENT_IDLE_MS) dropClient(id);
  const ids = openClientIds();
  if (ids.length === 0) {
    if (timer) clearInterval(timer);
    timer = null;
    return;
  }
  const { rows } = await getBackgroundPool().query<{ id: string }>("SELECT id FROM outbound_destinations WHERE id = ANY($1::text[]) AND disabled_at IS NULL", [
    ids,
  ]);
  const live = new Set(rows.map((r) => r.id));
  for (const id of ids) if (!live.has(id)) dropClient(id);
}

/** Closes every client of this process (shutdown, tests). */
export function closeAllClients(): void {
  for (const id of openClientIds()) dropClient(id);
  if (timer) clearInterval(timer);
  timer = null;
}
