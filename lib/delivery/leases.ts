/**
 * Delivery leases held by this worker process (docs/pipeline.md#delivery-engine, "Leases").
 *
 * A claimed event carries a short lease (`events.locked_until`, DELIVERY_LEASE_MS from the claim): when
 * its worker dies, the sweeper of any other worker finds the lease expired and queues the event again
 * within about DELIVERY_LEASE_MS + PIPELINE_SWEEP_INTERVAL_MS. A live worker keeps the leases of the
 * events it holds (waiting in its dispatch queue, or being delivered) by renewing them every third of
 * DELIVERY_LEASE_MS, so a slow delivery is not taken over and sent twice.
 *
 * The lease value is also the claim's identity: recording an attempt or handing an event back only
 * changes the row while `locked_until` still equals the lease this process holds. A renewal therefore
 * moves the row and the in-memory `lease` (a Date, changed in place, so every holder of the object
 * sees it) together, while no statement that matches leases is in flight ({@link withLeases}).
 */
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

const log = logger("leases");

/** What this module needs of a claimed event (lib/gateway/delivery/deliver-event.ts ClaimedEvent). */
type Holder = { row: { id: string }; lease: Date };

const held = new Set<Holder>();
let renewing: Promise<void> | null = null;
let inFlight = 0;
const idleWaiters: (() => void)[] = [];

/** A new lease's expiry: DELIVERY_LEASE_MS from `now` (ms since the epoch). */
export const newLease = (now = Date.now()) => new Date(now + getConfig().deliveryLeaseMs);

/**
 * Keeps `event`'s lease renewed until the returned function is called (the event is recorded, handed
 * back or handed to a CLI). Gives the event its own copy of its lease Date first (a claim batch shares
 * one), so renewing it changes no other event's.
 */
export function holdLease(event: Holder): () => void {
  event.lease = new Date(event.lease.getTime());
  held.add(event);
  return () => void held.delete(event);
}

/** Ids of the events this process holds (the sweeper never takes them over, even when a stalled event loop let their leases run out). */
export const heldEventIds = () => [...held].map((e) => e.row.id);

/**
 * Runs `fn`, a statement that matches leases (`locked_until = lease`), never at the same time as a
 * renewal: it waits for a renewal in progress, and a renewal waits for it. Returns `fn`'s result; throws its error.
 */
export async function withLeases<T>(fn: () => Promise<T>): Promise<T> {
  while (renewing) await renewing;
  inFlight++;
  try {
    return await fn();
  } finally {
    if (--inFlight === 0) idleWaiters.splice(0).forEach((w) => w());
  }
}

/**
 * Renews the lease of every held event whose row still carries it (one statement); an event whose lease
 * was lost meanwhile (expired and taken over) is no longer held. Returns the number renewed. Throws on
 * database errors (the leases then run out: another worker may deliver those events again).
 */
async function renewLeases(now = Date.now()): Promise<number> {
  if (held.size === 0 || renewing) return 0;
  let done!: () => void;
  renewing = new Promise<void>((r) => (done = r));
  try {
    if (inFlight > 0) await new Promise<void>((r) => idleWaiters.push(r));
    const list = [...held];
    const next = newLease(now);
    const { rows } = await getBackgroundPool().query<{ id: string }>(
      `UPDATE events SET locked_until = $3
         FROM unnest($1::text[], $2::timestamptz[]) AS v(id, lease)
        WHERE events.id = v.id AND events.locked_until = v.lease
       RETURNING events.id`,
      [list.map((e) => e.row.id), list.map((e) => e.lease), next],
    );
    const renewed = new Set(rows.map((r) => r.id));
    for (const e of list) {
      if (renewed.has(e.row.id)) e.lease.setTime(next.getTime());
      else held.delete(e);
    }
    return renewed.size;
  } finally {
    renewing = null;
    done();
  }
}

/** Renews held leases every third of DELIVERY_LEASE_MS until the returned function is called. */
export function startLeaseRenewal(): () => void {
  const timer = setInterval(
    () => {
      renewLeases().catch((err) =>
        log.warn("could not renew delivery leases; they may expire and be delivered again", err instanceof Error ? err.message : err),
      );
    },
    Math.max(200, Math.floor(getConfig().deliveryLeaseMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
