/**
 * Per-destination limits (docs/pipeline.md#delivery-engine, "Rate limits"): `rate_limit`
 * deliveries per `rate_limit_period` (second, minute, hour: fixed windows counted in PostgreSQL, so the
 * limit holds across worker processes) or `concurrent` (deliveries in flight). Every destination also
 * has an in-process ceiling of DELIVERY_DESTINATION_CONCURRENCY in flight, so one slow or dead
 * destination never takes all of a worker's slots.
 * A delivery over a limit is not made: the caller reschedules it for `retryAt`.
 */
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";

const PERIOD_MS = { second: 1000, minute: 60_000, hour: 3_600_000 } as const;
/** How long a delivery waits in this process for a free slot of its destination before it is rescheduled, ms. */
const SLOT_WAIT_MS = 250;
const inFlight = new Map<string, number>();
const waiting = new Map<string, (() => void)[]>();

/** Takes a place among `destinationId`'s deliveries in flight here if it has fewer than `ceiling`. */
function tryTake(destinationId: string, ceiling: number): boolean {
  const n = inFlightTo(destinationId);
  if (n >= ceiling) return false;
  inFlight.set(destinationId, n + 1);
  return true;
}

/**
 * Takes a place among `destinationId`'s deliveries in flight here (fewer than `ceiling`), waiting up to
 * `ms` for one; true when taken. The check and the take happen in one synchronous step, so deliveries
 * started together cannot all see the same free place.
 */
async function takeSlot(destinationId: string, ceiling: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!tryTake(destinationId, ceiling)) {
    const left = end - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const list = waiting.get(destinationId) ?? [];
      const timer = setTimeout(resolve, left);
      list.push(() => (clearTimeout(timer), resolve()));
      waiting.set(destinationId, list);
    });
  }
  return true;
}

/** Per destination: deliveries whose slot was given back (answered or failed) in the 1 s window `at` (s), and in the window before. */
const answered = new Map<string, { at: number; n: number; prev: number }>();

function noteAnswer(destinationId: string, now: number): void {
  const w = Math.floor(now / 1000);
  let a = answered.get(destinationId);
  if (!a || a.at !== w) {
    a = { at: w, n: 0, prev: a && a.at === w - 1 ? a.n : 0 };
    answered.set(destinationId, a);
  }
  a.n++;
}

/**
 * Deliveries to `destinationId` that ended here (their slot given back) over about the last second: the
 * larger of the last whole 1 s window's and the current one's count. The pace a destination at its
 * ceiling works through its waiting events (lib/gateway/delivery/dispatch-queue.ts).
 */
export function endedLastSecond(destinationId: string, now = Date.now()): number {
  const a = answered.get(destinationId);
  const w = Math.floor(now / 1000);
  if (!a || a.at < w - 1) {
    answered.delete(destinationId);
    return 0;
  }
  return a.at === w ? Math.max(a.prev, a.n) : a.n;
}

type DestinationLimitConfig = { rate_limit?: number | null; rate_limit_period?: string | null };
type Permit = { ok: true; release: () => void } | { ok: false; retryAt: Date };

/** Destinations with at least `ceiling` deliveries in flight in this process (their next deliveries would wait). */
export const saturatedDestinations = (ceiling = getConfig().deliveryDestinationConcurrency) => [...inFlight].filter(([, n]) => n >= ceiling).map(([id]) => id);

/** Deliveries to `destinationId` in flight in this process. */
export const inFlightTo = (destinationId: string) => inFlight.get(destinationId) ?? 0;

/** A destination's in-process ceiling of deliveries in flight: its `concurrent` rate limit, else DELIVERY_DESTINATION_CONCURRENCY. */
function ceilingOf(config: DestinationLimitConfig): number {
  const limit = config.rate_limit ?? null;
  return limit && config.rate_limit_period === "concurrent" ? limit : getConfig().deliveryDestinationConcurrency;
}

/**
 * True when a delivery to `destinationId` (limits `config`) would get its slot here at once: fewer than
 * its ceiling in flight. The dispatch queue starts only such deliveries (lib/gateway/delivery/dispatch-queue.ts).
 */
export const slotFree = (destinationId: string, config: DestinationLimitConfig) => inFlightTo(destinationId) < ceilingOf(config);

/**
 * Takes a delivery slot for `destinationId`, or says when to try again. The caller must call
 * `release()` once the delivery ends. Throws on database errors.
 */
export async function acquireDestinationSlot(destinationId: string, config: DestinationLimitConfig): Promise<Permit> {
  const limit = config.rate_limit ?? null;
  const period = config.rate_limit_period ?? "second";
  const ceiling = ceilingOf(config);
  // A burst to one destination waits a moment for its deliveries in flight; a destination that stays
  // saturated (slow or dead) gives the worker slot back and is tried again a little later.
  if (!(await takeSlot(destinationId, ceiling, SLOT_WAIT_MS))) return { ok: false, retryAt: new Date(Date.now() + 500 + Math.floor(Math.random() * 500)) };
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    noteAnswer(destinationId, Date.now());
    const n = inFlightTo(destinationId) - 1;
    if (n <= 0) inFlight.delete(destinationId);
    else inFlight.set(destinationId, n);
    const next = waiting.get(destinationId)?.shift();
    if (waiting.get(destinationId)?.length === 0) waiting.delete(destinationId);
    next?.();
  };

  if (limit && period !== "concurrent") {
    const now = Date.now();
    const windowMs = PERIOD_MS[period as keyof typeof PERIOD_MS] ?? 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const { rowCount } = await getBackgroundPool().query(
      `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1 WHERE rate_limit_counters.count < $3
       RETURNING count`,
      [`destination:${destinationId}`, new Date(windowStart), limit],
    );
    if (!rowCount) {
      release();
      return { ok: false, retryAt: new Date(windowStart + windowMs + Math.floor(Math.random() * Math.min(100, windowMs / 10))) };
    }
  }
  return { ok: true, release };
}
