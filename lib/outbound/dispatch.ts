/**
 * Direct dispatch of outbound deliveries (docs/outbound.md#publish-delivery-retries): the
 * `outbound_deliveries` rows are the queue. Each worker process runs one dispatcher, which claims due
 * deliveries itself, as many as it has free places (WORKER_CONCURRENCY), with one statement
 * (lib/outbound/delivery.ts claimDueDeliveries: pending, due, not leased, `FOR UPDATE SKIP LOCKED`, so
 * worker processes never take the same row), and delivers each. No graphile-worker job per delivery:
 * publish only writes the rows, which saves three job-table writes per delivery and the job round trip.
 *
 * It looks for work when publish in this process says deliveries were written (`announceOutboundDeliveries`),
 * on a `hookyard_outbound` notification (publish in a process without a dispatcher, POST /retry), when
 * a delivery ends while more were due, and every POLL_MS (retries come due by time; a notification may be
 * lost). Nothing is lost: a worker that dies mid-delivery leaves its lease to expire and any dispatcher
 * claims the delivery again (at least once). A destination with DELIVERY_DESTINATION_CONCURRENCY
 * deliveries in flight here is left out of the claims (lib/delivery/destination-limits.ts), so a slow or
 * dead one never takes all of the places. Deliveries start under the burst pacer shared with the
 * gateway (lib/delivery/pacing.ts): while ingestion is saturated, only WORKER_BURST_DELIVERY_RATE
 * per second start, and only that many are claimed.
 */
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { listenTo } from "@/lib/db/listen";
import { saturatedDestinations } from "@/lib/delivery/destination-limits";
import { blockedDestinations } from "@/lib/delivery/destination-state";
import { takeStartPermits } from "@/lib/delivery/pacing";
import { logger } from "@/lib/log";
import { claimDueDeliveries, deliverClaimedOutbound, OUTBOUND_CHANNEL } from "@/lib/outbound/delivery";
import { refreshOutboundSettings } from "@/lib/outbound/settings";

const log = logger("outbound-dispatch");
/** Look for due deliveries at least this often, ms. */
export const POLL_MS = 250;
/** After a delivery ends while more were due, claim again once this many places are free (fewer, larger claims). */
const CLAIM_AT_LEAST = 10;
/** Deliveries that end within this window while a destination waits for room share one claim, ms. */
const END_COALESCE_MS = 5;
/** Notifications of publishes in processes without a dispatcher are coalesced over this window, ms. */
const NOTIFY_COALESCE_MS = 10;

let started = false;
/** Deliveries claimed and not finished. */
let active = 0;
/** The last claim got all it asked for: more may be due now. */
let moreDue = false;
/** The last claim left out destinations at their ceiling (DELIVERY_DESTINATION_CONCURRENCY). */
let skippedSaturated = false;
let endTimer: NodeJS.Timeout | null = null;
let pumping: Promise<void> | null = null;
let again = false;
let permitTimer: NodeJS.Timeout | null = null;
const idleWaiters: (() => void)[] = [];
/** When a delivery was last claimed or finished here (ms since the epoch; the module's load before any). */
let lastActivityAt = Date.now();

const places = () => getConfig().workerConcurrency;

function wake(): void {
  if (!started) return;
  if (pumping) {
    again = true;
    return;
  }
  pumping = pump().finally(() => (pumping = null));
}

async function pump(): Promise<void> {
  do {
    again = false;
    try {
      await refreshOutboundSettings();
      while (started) {
        const free = places() - active;
        if (free <= 0) break;
        const { granted, waitMs } = takeStartPermits(free);
        if (granted === 0) {
          permitTimer ??= setTimeout(() => ((permitTimer = null), wake()), waitMs);
          break;
        }
        const saturated = saturatedDestinations();
        // Destinations paused by a Retry-After or with an open breaker are not claimed while they wait.
        const claimed = await claimDueDeliveries(granted, [...saturated, ...blockedDestinations("outbound")]);
        moreDue = claimed.length === granted;
        skippedSaturated = saturated.length > 0;
        if (claimed.length) lastActivityAt = Date.now();
        for (const c of claimed) {
          active++;
          void deliverClaimedOutbound(c)
            .catch((err) => {
              log.warn(
                `delivery ${c.event_id} to ${c.destination_id} failed; its lease will expire and it is claimed again`,
                err instanceof Error ? err.message : err,
              );
              return false;
            })
            .then(finished);
        }
        if (!moreDue) break;
      }
    } catch (err) {
      log.warn("could not claim outbound deliveries; trying again at the next poll", err instanceof Error ? err.message : err);
    }
  } while (again && started);
}

/** A claimed delivery ended; `promoted`: it was ordered and made the next of its key due (claimed at once, docs/outbound.md "Ordered delivery"). */
function finished(promoted: boolean): void {
  active--;
  lastActivityAt = Date.now();
  if (active === 0) idleWaiters.splice(0).forEach((w) => w());
  if (promoted) endTimer ??= setTimeout(() => ((endTimer = null), wake()), END_COALESCE_MS);
  else if (moreDue && places() - active >= Math.min(CLAIM_AT_LEAST, places())) wake();
  // The last claim left out a destination at its ceiling: deliveries ending within END_COALESCE_MS share
  // one look, so its backlog resumes as soon as it has room, not at the next poll.
  else if (skippedSaturated) endTimer ??= setTimeout(() => ((endTimer = null), wake()), END_COALESCE_MS);
}

type OutboundDispatch = { stop: () => Promise<void> };

/**
 * Starts this process's dispatcher (a worker process; lib/worker/index.ts). Resolves once it listens.
 * `stop` stops claiming and resolves when the deliveries under way have been recorded.
 */
export async function startOutboundDispatch(): Promise<OutboundDispatch> {
  const listener = await listenTo("outbound dispatch", [OUTBOUND_CHANNEL], () => wake());
  started = true;
  const timer = setInterval(wake, POLL_MS);
  timer.unref();
  wake();
  return {
    stop: async () => {
      started = false;
      clearInterval(timer);
      if (permitTimer) clearTimeout(permitTimer);
      if (endTimer) clearTimeout(endTimer);
      permitTimer = endTimer = null;
      await pumping;
      await listener.stop();
      if (active > 0) await new Promise<void>((r) => idleWaiters.push(r));
    },
  };
}

let notifyTimer: NodeJS.Timeout | null = null;

/**
 * Publish wrote deliveries (committed): wakes the dispatcher of this process at once when it runs one;
 * otherwise tells the worker processes with a `hookyard_outbound` notification, at most one per
 * NOTIFY_COALESCE_MS, sent outside publish's statement (a notifying transaction serialises commits).
 */
export function announceOutboundDeliveries(): void {
  if (started) return wake();
  notifyTimer ??= setTimeout(() => {
    notifyTimer = null;
    getPool()
      .query("SELECT pg_notify($1, '')", [OUTBOUND_CHANNEL])
      .catch((err) => log.warn("notify failed; the dispatchers find the deliveries at their next poll", err instanceof Error ? err.message : err));
  }, NOTIFY_COALESCE_MS);
  notifyTimer.unref();
}

/**
 * For the worker's progress watchdog (lib/delivery/watchdog.ts): when this dispatcher last claimed or
 * finished a delivery (ms since the epoch) and whether all of its places are taken.
 */
export function outboundDispatchActivity(): { lastActivityAt: () => number; busy: () => boolean } {
  return { lastActivityAt: () => lastActivityAt, busy: () => active >= places() };
}
