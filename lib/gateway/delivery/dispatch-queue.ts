/**
 * Direct dispatch (docs/pipeline.md#delivery-engine): the events a worker's fan-out writes as QUEUED are
 * inserted already leased to that worker (the insert is the claim), and the worker delivers them itself
 * at once, from this in-process queue, instead of adding a job, fetching it back and claiming the row.
 * That saves three job-table writes and a claim per event, and the job round trip's latency.
 *
 * Nothing is lost: the `events` rows are the truth. If the process dies, the leases expire and the
 * sweeper queues the events as jobs (lib/worker/index.ts); if it stops, `stopDispatch` hands the
 * events not yet started back as jobs. Retries, delays, manual retries and held events still go through
 * graphile-worker jobs.
 *
 * The queue is bounded by the fan-out: it waits (`waitForRoom`) while the queue holds `capacity`
 * events, so requests wait durably in `request_fanouts` rather than in memory, and another worker
 * process with room takes them.
 *
 * Deliveries start at the pace of lib/delivery/pacing.ts while ingestion is saturated.
 */
import { getConfig } from "@/lib/config";
import { type ClaimedEvent, deliverClaimed, releaseClaimed, setHeadDispatch } from "@/lib/gateway/delivery/deliver-event";
import { endedLastSecond, slotFree } from "@/lib/delivery/destination-limits";
import { holdLease } from "@/lib/delivery/leases";
import { startPermitWait } from "@/lib/delivery/pacing";
import { logger } from "@/lib/log";

const log = logger("dispatch");
/**
 * Below this much lease left, an event is handed back as a job rather than sent: its lease is renewed
 * while it waits here (lib/delivery/leases.ts), so so little left means renewals fail (the database is
 * away) and another worker may soon take it over, ms.
 */
const MIN_LEASE_LEFT_MS = 1000;

const queue: ClaimedEvent[] = [];
/** The lease holds of the events queued or in delivery here (lib/delivery/leases.ts). */
const unholds = new Map<ClaimedEvent, () => void>();
const unhold = (e: ClaimedEvent) => {
  unholds.get(e)?.();
  unholds.delete(e);
};
/** Deliveries started and not answered yet (at most WORKER_CONCURRENCY). */
let active = 0;
/** Deliveries answered whose attempts are being recorded (batched, lib/gateway/delivery/deliver-event.ts). */
let recording = 0;
let wakeTimer: NodeJS.Timeout | null = null;
/** When each queued event was queued (ms since the epoch). */
const queuedAt = new Map<ClaimedEvent, number>();
/**
 * How long a queued event may wait for a slot of its destination (at its ceiling of deliveries in
 * flight) before it is handed back as a job, ms; and how long after that its job is due, ms.
 */
const BLOCKED_MAX_MS = 1000;
const BLOCKED_RETRY_MS = 500;
/** Wakes the pump to hand back events whose destination stayed saturated (nothing else may wake it). */
let blockedTimer: NodeJS.Timeout | null = null;
let stopping = false;
const roomWaiters: (() => void)[] = [];
const idleWaiters: (() => void)[] = [];

/** (Re)opens the queue when a worker starts in this process. */
export function startDispatch(): void {
  stopping = false;
  // The next event of an ordered key is delivered from here too (docs/pipeline.md "Ordered delivery").
  setHeadDispatch(dispatchClaimed);
}

/** Deliveries this process runs at once from the queue (WORKER_CONCURRENCY). */
const concurrency = () => getConfig().workerConcurrency;

/** True when another fan-out batch may be queued: few events waiting, and recording keeps up. */
const hasRoom = () => queue.length < concurrency() && recording < RECORDING_MAX_FACTOR * concurrency();
/** Answered deliveries whose recording may lag behind, as a multiple of WORKER_CONCURRENCY. */
const RECORDING_MAX_FACTOR = 4;

/**
 * Queues events this process has just claimed (their lease is `locked_until`) for delivery here.
 * Returns at once; each delivery records its attempt (deliverClaimed).
 */
export function dispatchClaimed(events: ClaimedEvent[]): void {
  for (const e of events) unholds.set(e, holdLease(e));
  if (stopping) {
    handBack(events);
    return;
  }
  const now = Date.now();
  for (const e of events) queuedAt.set(e, now);
  queue.push(...events);
  pump();
}

/**
 * Resolves when the queue has room for another fan-out batch: fewer than WORKER_CONCURRENCY events
 * waiting, and fewer than 4 × WORKER_CONCURRENCY attempts waiting to be recorded.
 */
export function waitForRoom(): Promise<void> {
  if (hasRoom()) return Promise.resolve();
  return new Promise((resolve) => roomWaiters.push(resolve));
}

/** A start permit now, or false after scheduling the next pump for when one is due. */
function mayStart(now: number): boolean {
  const wait = startPermitWait(now);
  if (wait === 0) return true;
  wakeTimer ??= setTimeout(() => {
    wakeTimer = null;
    pump();
  }, wait);
  return false;
}

/**
 * True when `e` may start now without waiting for its destination: the destination has a free slot
 * (lib/delivery/destination-limits.ts), or nothing will be sent (the connection or destination is
 * disabled or paused: the event is only put back). `saturated` collects, during one pass of the pump,
 * the destinations found at their ceiling (no delivery of the pass has ended meanwhile).
 */
function startable(e: ClaimedEvent, saturated: Set<string>): boolean {
  const r = e.row;
  if (!r.connection_name || !r.destination_type || r.connection_disabled_at || r.destination_disabled_at || r.paused_at) return true;
  if (saturated.has(r.destination_id)) return false;
  if (slotFree(r.destination_id, r.destination_config ?? {})) return true;
  saturated.add(r.destination_id);
  return false;
}

/**
 * Starts queued deliveries while fewer than WORKER_CONCURRENCY run, in queue order, skipping the events
 * whose destination is at its ceiling of deliveries in flight: they keep their place (and their lease,
 * renewed) until a slot frees, instead of taking a delivery place to wait in. Of a destination's waiting
 * events, those beyond what it finished in the last second that have waited over BLOCKED_MAX_MS are
 * handed back together as jobs due after a short pause (the destination is slow, not just busy), so
 * they do not hold the queue's room from other destinations' events.
 */
function pump(): void {
  if (!stopping && active < concurrency() && queue.length > 0) {
    const now = Date.now();
    const kept: ClaimedEvent[] = [];
    const stale: ClaimedEvent[] = [];
    const saturated = new Set<string>();
    /** Blocked events seen per destination in this pass. */
    const blocked = new Map<string, number>();
    let i = 0;
    for (; i < queue.length && active < concurrency(); i++) {
      const next = queue[i];
      if (!startable(next, saturated)) {
        const d = next.row.destination_id;
        const ahead = blocked.get(d) ?? 0;
        blocked.set(d, ahead + 1);
        // A busy destination works through about a second's worth of its waiting events in a second: those
        // stay. Beyond that, an event that has waited BLOCKED_MAX_MS goes back (the destination is slow).
        if (now - (queuedAt.get(next) ?? now) > BLOCKED_MAX_MS && ahead >= endedLastSecond(d, now)) stale.push(next);
        else kept.push(next);
        continue;
      }
      if (!mayStart(now)) break;
      start(next);
    }
    queue.splice(0, i, ...kept);
    for (const e of stale) queuedAt.delete(e);
    if (stale.length) handBack(stale, new Date(now + BLOCKED_RETRY_MS));
    if (kept.length) (blockedTimer ??= setTimeout(() => ((blockedTimer = null), pump()), BLOCKED_MAX_MS)).unref();
  }
  if (hasRoom()) roomWaiters.splice(0).forEach((w) => w());
}

/** Hands `events` back as jobs due at `retryAt` (one statement), and stops renewing their leases. */
function handBack(events: ClaimedEvent[], retryAt: Date | null = null): void {
  void releaseClaimed(events, retryAt)
    .finally(() => events.forEach(unhold))
    .catch((err) => log.warn("could not hand events back; their leases will expire", err instanceof Error ? err.message : err));
}

/** Starts the delivery of `next` (a place among WORKER_CONCURRENCY is taken until its answer is in). */
function start(next: ClaimedEvent): void {
  queuedAt.delete(next);
  active++;
  // A delivery's place is free once its answer is in: the next one starts while the attempt is recorded.
  let answered = false;
  const onAnswered = () => {
    if (answered) return;
    answered = true;
    active--;
    recording++;
    pump();
  };
  void run(next, onAnswered).finally(() => {
    onAnswered();
    recording--;
    pump();
    if (active === 0 && recording === 0 && queue.length === 0) idleWaiters.splice(0).forEach((w) => w());
  });
}

async function run(event: ClaimedEvent, onAnswered: () => void): Promise<void> {
  try {
    if (event.lease.getTime() - Date.now() < MIN_LEASE_LEFT_MS) await releaseClaimed([event]);
    else await deliverClaimed(event, onAnswered);
  } catch (err) {
    log.warn(`delivery of ${event.row.id} failed; it is queued again when its lease expires`, err instanceof Error ? err.message : err);
  } finally {
    unhold(event);
  }
}

/**
 * Stops: starts no more deliveries, runs `beforeHandBack` (stop this process's job runner, so it does
 * not take the events back itself), hands the events not started back as jobs for any worker, and
 * resolves once the deliveries in flight have recorded their attempts. Throws nothing.
 */
export async function stopDispatch(beforeHandBack: () => Promise<void> = async () => {}): Promise<void> {
  stopping = true;
  setHeadDispatch(null);
  roomWaiters.splice(0).forEach((w) => w());
  await beforeHandBack().catch(() => {});
  const left = queue.splice(0);
  left.forEach((e) => queuedAt.delete(e));
  await releaseClaimed(left).catch((err) => log.warn("could not hand events back; their leases will expire", err instanceof Error ? err.message : err));
  left.forEach(unhold);
  if (active > 0 || recording > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
}
