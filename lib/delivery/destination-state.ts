/**
 * Receiver-driven limits and circuit breakers (docs/pipeline.md "Receiver-driven limits", docs/outbound.md
 * "Receiver-driven limits"), for every product's destinations: one `delivery_destination_state` row per
 * destination something happened to, shared by all worker processes and changed only by single statements.
 *
 * - **Pause**: a `429` or `503` with `Retry-After` (seconds or an HTTP date; at least 1 s, at most
 *   DELIVERY_RETRY_AFTER_MAX_MS) pauses the destination until then; the delivery that got it is put back
 *   for that time without an attempt.
 * - **Pace**: DELIVERY_PACE_THROTTLES `429`s without `Retry-After` within DELIVERY_PACE_RECOVERY_MS halve
 *   the destination's pace (deliveries per second, counted across workers in `rate_limit_counters`); each
 *   DELIVERY_PACE_RECOVERY_MS of answers without such a `429` raises it by half, until it is back where it
 *   started (then it is unlimited again).
 * - **Circuit breaker** (only with DELIVERY_BREAKER_ENABLED): closed → open when at least DELIVERY_BREAKER_MIN_ATTEMPTS attempts in the window
 *   (DELIVERY_BREAKER_WINDOW_MS, counted from the destination's first failure in it) failed at a share of
 *   DELIVERY_BREAKER_FAILURE_RATE or more. While open its deliveries wait (no attempt, no retry spent).
 *   After the cool-down (DELIVERY_BREAKER_COOLDOWN_MS, doubled by each failed probe up to
 *   DELIVERY_BREAKER_COOLDOWN_MAX_MS) one worker takes the probe (half-open): a success closes it, a
 *   failure opens it again.
 *
 * The hot path reads a per-process cache of the rows that hold anything (refreshed by one statement
 * when older than CACHE_MS, while deliveries run; never used older than 2 × CACHE_MS); a destination nothing is wrong with costs no
 * statement per delivery. Attempt counts are kept here and written every FLUSH_MS, and only for
 * destinations with a failure in their window. Transitions are reported to the product's listener.
 */
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

const log = logger("destination-state");
/** How old the cache may get while deliveries run, ms. */
const CACHE_MS = 500;
/** How often counted attempts are written, ms. */
const FLUSH_MS = 250;
/** When a delivery waits for another worker's probe, it is tried again this much later, ms. */
const PROBE_WAIT_MS = 1_000;
/** Spread of the times a paused destination's deliveries come back, ms (so they do not all arrive at once). */
const SPREAD_MS = 250;

/** `closed` (delivering), `open` (deliveries wait) or `half_open` (one probe is under way). */
export type BreakerState = "closed" | "open" | "half_open";
/** A product's destinations: each has its own rows (ids of two products may be equal). */
export type Product = "gateway" | "outbound";

type StateRow = {
  product: Product;
  destination_id: string;
  owner_id: string;
  paused_until: Date | null;
  pause_reason: string | null;
  pace: number | null;
  pace_origin: number | null;
  pace_changed_at: Date | null;
  throttled: number;
  breaker_state: BreakerState;
  breaker_changed_at: Date;
  breaker_openings: number;
  probe_until: Date | null;
  window_attempts: number;
  window_failures: number;
};

import type { DeliveryStateView } from "@/lib/delivery/delivery-state-schema";
export type { DeliveryStateView };

/** The cool-down after the breaker's `openings`-th opening in a row, ms. */
export function cooldownMs(openings: number): number {
  const c = getConfig().destinationState;
  return Math.min(c.breakerCooldownMaxMs, c.breakerCooldownMs * 2 ** Math.max(0, Math.min(30, openings - 1)));
}

/**
 * The pause a `Retry-After` value asks for, ms from `now`: seconds (`"120"`) or an HTTP date; at least
 * 1 s (so `0` or a past date cannot make a loop), at most DELIVERY_RETRY_AFTER_MAX_MS. Null when the
 * value is neither (the answer is then an ordinary failure).
 */
export function retryAfterMs(value: string | undefined | null, now = Date.now()): number | null {
  const v = value?.trim();
  if (!v) return null;
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at) || !/[a-z]/i.test(v)) return null;
    ms = at - now;
  }
  return Math.min(getConfig().destinationState.retryAfterMaxMs, Math.max(1000, ms));
}

/** The API view of a row (or of no row: nothing happened to the destination). */
export function toDeliveryStateView(r: StateRow | undefined, now = Date.now()): DeliveryStateView {
  const paused = r?.paused_until && r.paused_until.getTime() > now ? r.paused_until : null;
  const state = r?.breaker_state ?? "closed";
  return {
    paused_until: paused ? paused.toISOString() : null,
    pause_reason: paused ? (r?.pause_reason ?? null) : null,
    pace: r?.pace ?? null,
    circuit: {
      state,
      changed_at: r && (state !== "closed" || r.breaker_openings > 0 || r.window_attempts > 0) ? r.breaker_changed_at.toISOString() : null,
      next_probe_at: r && state === "open" ? new Date(r.breaker_changed_at.getTime() + cooldownMs(r.breaker_openings)).toISOString() : null,
    },
  };
}

/**
 * The delivery states of `ids` of `product` (one statement; API reads, not cached): only of the
 * destinations something happened to (a row exists: a pause, a pace, a failure counted, a breaker
 * transition); the others have none, and their API answers keep their shape. Throws on database errors.
 */
export async function readDeliveryStates(product: Product, ids: string[]): Promise<Map<string, DeliveryStateView>> {
  const out = new Map<string, DeliveryStateView>();
  if (ids.length === 0) return out;
  const { rows } = await getBackgroundPool().query<StateRow>("SELECT * FROM delivery_destination_state WHERE product = $1 AND destination_id = ANY($2)", [
    product,
    ids,
  ]);
  for (const r of rows) out.set(r.destination_id, toDeliveryStateView(r));
  return out;
}

/** A breaker transition, reported once (by the worker whose statement made it) to the product's listener. */
export type BreakerTransition = {
  product: Product;
  destinationId: string;
  ownerId: string;
  /** `opened` (closed → open) or `closed` (a probe succeeded). */
  transition: "opened" | "closed";
  /** The failure counts that opened it (for `opened`). */
  attempts: number;
  failures: number;
  /** When the next probe may go (for `opened`). */
  nextProbeAt: Date | null;
};

const listeners = new Map<Product, (t: BreakerTransition) => Promise<void>>();

/** Sets `product`'s listener of breaker transitions (its issue, notification or operator event). It must not throw. */
export function onBreakerTransition(product: Product, fn: (t: BreakerTransition) => Promise<void>): void {
  listeners.set(product, fn);
}

function report(t: BreakerTransition): void {
  log.info(`${t.product} destination ${t.destinationId}: circuit ${t.transition}`);
  void listeners
    .get(t.product)?.(t)
    .catch((err) => log.warn("a breaker transition could not be reported", err instanceof Error ? err.message : err));
}

// ---- the per-process cache --------------------------------------------------------------------------

const keyOf = (product: Product, id: string) => `${product}:${id}`;
let cache = new Map<string, StateRow>();
let loadedAt = -Infinity;
let loading: Promise<void> | null = null;
/** Whether the refresh in flight was started after a quiet spell (calls wait for it). */
let loadingBlocks = false;

/** Reloads the rows that hold anything (one statement). Throws on database errors. */
async function refresh(): Promise<void> {
  const { rows } = await getBackgroundPool().query<StateRow>({
    name: "hookyard-destination-state",
    text: `SELECT * FROM delivery_destination_state
            WHERE paused_until > now() OR pace IS NOT NULL OR breaker_state <> 'closed' OR updated_at > now() - $1 * interval '1 millisecond'`,
    values: [getConfig().destinationState.breakerWindowMs],
  });
  const next = new Map<string, StateRow>();
  for (const r of rows) next.set(keyOf(r.product, r.destination_id), r);
  cache = next;
  loadedAt = Date.now();
}

/**
 * The cache: older than CACHE_MS, it is refreshed in the background while deliveries go on with it;
 * older than 2 × CACHE_MS (the first call, or the first delivery after a quiet spell), the refresh it
 * starts is awaited, by that call and the ones meanwhile. A background refresh never holds a delivery,
 * even when the database is slow to answer it. Throws on database errors only when it waits.
 */
async function cached(): Promise<Map<string, StateRow>> {
  const age = Date.now() - loadedAt;
  if (age > CACHE_MS && !loading) {
    const blocking = age > 2 * CACHE_MS;
    loading = refresh().finally(() => ((loading = null), (loadingBlocks = false)));
    loadingBlocks = blocking;
    if (!blocking) loading.catch((err) => log.warn("could not refresh destination states", err instanceof Error ? err.message : err));
  }
  if (loading && loadingBlocks) await loading;
  return cache;
}

/** Puts a row a statement returned into the cache (this process sees its own change at once). */
function remember(r: StateRow | undefined): StateRow | undefined {
  if (r) cache.set(keyOf(r.product, r.destination_id), r);
  return r;
}

/** Ids of `product`'s destinations whose deliveries wait now (paused, open and cooling down, probed by another worker), from the cache (the outbound claim skips them). */
export function blockedDestinations(product: Product, now = Date.now()): string[] {
  const out: string[] = [];
  for (const r of cache.values()) if (r.product === product && waitsUntil(r, now) > now) out.push(r.destination_id);
  return out;
}

/** Until when `r`'s deliveries wait (a pause, an open breaker's cool-down, another worker's probe), ms; `now` or less when they need not. */
function waitsUntil(r: StateRow, now: number): number {
  let until = r.paused_until?.getTime() ?? 0;
  if (r.breaker_state === "open") until = Math.max(until, r.breaker_changed_at.getTime() + cooldownMs(r.breaker_openings));
  if (r.breaker_state === "half_open") until = Math.max(until, r.probe_until?.getTime() ?? 0);
  return until <= now ? now : until;
}

// ---- the gate before a delivery ---------------------------------------------------------------------

/** The right to make one delivery now, or when to try again. `probe`: this delivery decides a half-open breaker. */
export type Gate =
  { ok: true; probe: boolean; product: Product; destinationId: string; ownerId: string } | { ok: false; retryAt: Date; reason: "paused" | "open" | "paced" };

const spread = (at: number) => new Date(at + Math.floor(Math.random() * SPREAD_MS));

/**
 * Whether a delivery to `destinationId` of `product` (owned by team or tenant `ownerId`) may go now:
 * not while it is paused, its breaker open (or another worker's probe under way), or its pace's
 * second is used up. `probeTimeoutMs`: how long a probe may take before another worker may probe.
 * Costs no statement unless the destination is paced or its cool-down just ended. Throws on database errors.
 */
export async function destinationGate(product: Product, destinationId: string, ownerId: string, probeTimeoutMs: number): Promise<Gate> {
  const r = (await cached()).get(keyOf(product, destinationId));
  const pass: Gate = { ok: true, probe: false, product, destinationId, ownerId };
  if (!r) return pass;
  const now = Date.now();
  if (r.paused_until && r.paused_until.getTime() > now) return { ok: false, retryAt: spread(r.paused_until.getTime()), reason: "paused" };
  if (r.breaker_state !== "closed") {
    const probeAt = r.breaker_changed_at.getTime() + cooldownMs(r.breaker_openings);
    if (r.breaker_state === "open" && now < probeAt) return { ok: false, retryAt: spread(probeAt), reason: "open" };
    if (r.breaker_state === "half_open" && r.probe_until && now < r.probe_until.getTime())
      return { ok: false, retryAt: spread(now + PROBE_WAIT_MS), reason: "open" };
    // The cool-down is over (or a probe was lost): one worker takes the probe.
    const { rows } = await getBackgroundPool().query<StateRow>(
      `UPDATE delivery_destination_state SET breaker_state = 'half_open', probe_until = now() + $3 * interval '1 millisecond', updated_at = now()
        WHERE product = $1 AND destination_id = $2
          AND ((breaker_state = 'open' AND breaker_changed_at + $4 * interval '1 millisecond' <= now()) OR (breaker_state = 'half_open' AND probe_until < now()))
       RETURNING *`,
      [product, destinationId, probeTimeoutMs, cooldownMs(r.breaker_openings)],
    );
    if (!remember(rows[0])) return { ok: false, retryAt: spread(now + PROBE_WAIT_MS), reason: "open" };
    return { ...pass, probe: true };
  }
  if (r.pace) {
    const second = Math.floor(now / 1000) * 1000;
    const { rowCount } = await getBackgroundPool().query(
      `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1 WHERE rate_limit_counters.count < $3
       RETURNING count`,
      [`pace:${product}:${destinationId}`, new Date(second), r.pace],
    );
    if (!rowCount) return { ok: false, retryAt: spread(second + 1000), reason: "paced" };
  }
  return pass;
}

// ---- what an answer does ----------------------------------------------------------------------------

type Pending = { product: Product; destinationId: string; ownerId: string; attempts: number; failures: number; throttled: number; good: number };
const pending = new Map<string, Pending>();
let flushTimer: NodeJS.Timeout | null = null;

/**
 * Notes the answer of a delivery `gate` let through: `status` (null: no answer), `success` (as the
 * product counts it), `retryAfter` (the
 * header of a 429 or 503), `sent` (false when nothing was sent: it counts for nothing).
 * Returns when to put the delivery back without an attempt (a `Retry-After` was honoured: the whole
 * destination is paused until then), or null to record the attempt as usual. Writes at once only for a
 * `Retry-After` or a probe; counts are written in the background. Throws on database errors.
 */
export async function noteAnswer(
  gate: Gate & { ok: true },
  answer: { status: number | null; success: boolean; retryAfter?: string; sent: boolean },
): Promise<Date | null> {
  const { product, destinationId, ownerId } = gate;
  const pauseMs = answer.status === 429 || answer.status === 503 ? retryAfterMs(answer.retryAfter) : null;
  if (pauseMs !== null) {
    const { rows } = await getBackgroundPool().query<StateRow>(
      `INSERT INTO delivery_destination_state AS s (product, destination_id, owner_id, paused_until, pause_reason)
       VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond', $5)
       ON CONFLICT (product, destination_id) DO UPDATE SET paused_until = GREATEST(s.paused_until, EXCLUDED.paused_until),
              pause_reason = EXCLUDED.pause_reason, updated_at = now(),
              -- a probe that was told to wait decides nothing: the breaker is open again, its cool-down from now
              breaker_state = CASE WHEN s.breaker_state = 'half_open' THEN 'open' ELSE s.breaker_state END,
              breaker_changed_at = CASE WHEN s.breaker_state = 'half_open' THEN now() ELSE s.breaker_changed_at END
       RETURNING *`,
      [product, destinationId, ownerId, pauseMs, String(answer.status)],
    );
    return remember(rows[0])?.paused_until ?? new Date(Date.now() + pauseMs);
  }
  if (!answer.sent) return null;
  const success = answer.success;
  if (gate.probe) {
    await settleProbe(gate, success);
    return null;
  }
  const key = keyOf(product, destinationId);
  const p = pending.get(key) ?? { product, destinationId, ownerId, attempts: 0, failures: 0, throttled: 0, good: 0 };
  p.attempts++;
  if (!success) p.failures++;
  else p.good++;
  if (answer.status === 429) p.throttled++;
  pending.set(key, p);
  // Only a destination with something wrong is written: a failure now, or one in its window (cached row).
  if (!flushTimer && (p.failures > 0 || cache.has(key))) (flushTimer = setTimeout(() => void flush(), FLUSH_MS)).unref();
  return null;
}

/** Closes (success) or opens again (failure) the half-open breaker of `gate`'s destination. */
async function settleProbe(gate: { product: Product; destinationId: string; ownerId: string }, success: boolean): Promise<void> {
  const { rows } = await getBackgroundPool().query<StateRow>(
    success
      ? `UPDATE delivery_destination_state SET breaker_state = 'closed', breaker_changed_at = now(), breaker_openings = 0, probe_until = NULL,
                window_start = now(), window_attempts = 0, window_failures = 0, updated_at = now()
          WHERE product = $1 AND destination_id = $2 AND breaker_state = 'half_open' RETURNING *`
      : `UPDATE delivery_destination_state SET breaker_state = 'open', breaker_changed_at = now(), breaker_openings = breaker_openings + 1,
                probe_until = NULL, updated_at = now()
          WHERE product = $1 AND destination_id = $2 AND breaker_state = 'half_open' RETURNING *`,
    [gate.product, gate.destinationId],
  );
  const r = remember(rows[0]);
  if (r && success) report({ ...gate, transition: "closed", attempts: 0, failures: 0, nextProbeAt: null });
}

/**
 * Writes the counted attempts (one statement for every destination that has something to write), then
 * applies what the counts call for, each by one conditional statement: open a breaker, halve or raise a pace.
 */
async function flush(): Promise<void> {
  flushTimer = null;
  // In key order: two workers' flushes lock their rows in the same order (no deadlock).
  const items = [...pending.entries()]
    .filter(([key, p]) => p.failures > 0 || cache.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, p]) => p);
  pending.clear();
  if (items.length === 0) return;
  const c = getConfig().destinationState;
  let rows: StateRow[];
  try {
    const col = <T>(f: (p: Pending) => T) => items.map(f);
    ({ rows } = await getBackgroundPool().query<StateRow>(
      `INSERT INTO delivery_destination_state AS s (product, destination_id, owner_id, window_attempts, window_failures, throttled)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[])
       ON CONFLICT (product, destination_id) DO UPDATE SET
         window_start = CASE WHEN s.window_start < now() - $7 * interval '1 millisecond' THEN now() ELSE s.window_start END,
         window_attempts = EXCLUDED.window_attempts + CASE WHEN s.window_start < now() - $7 * interval '1 millisecond' THEN 0 ELSE s.window_attempts END,
         window_failures = EXCLUDED.window_failures + CASE WHEN s.window_start < now() - $7 * interval '1 millisecond' THEN 0 ELSE s.window_failures END,
         throttle_window_start = CASE WHEN s.throttle_window_start < now() - $8 * interval '1 millisecond' THEN now() ELSE s.throttle_window_start END,
         throttled = EXCLUDED.throttled + CASE WHEN s.throttle_window_start < now() - $8 * interval '1 millisecond' THEN 0 ELSE s.throttled END,
         updated_at = now()
       RETURNING *`,
      [
        col((p) => p.product),
        col((p) => p.destinationId),
        col((p) => p.ownerId),
        col((p) => p.attempts),
        col((p) => p.failures),
        col((p) => p.throttled),
        c.breakerWindowMs,
        c.paceRecoveryMs,
      ],
    ));
  } catch (err) {
    // The counts are kept for the next flush (a failed statement wrote none of them).
    for (const p of items) {
      const key = keyOf(p.product, p.destinationId);
      const q = pending.get(key);
      if (q) for (const f of ["attempts", "failures", "throttled", "good"] as const) q[f] += p[f];
      else pending.set(key, p);
    }
    if (!flushTimer) (flushTimer = setTimeout(() => void flush(), FLUSH_MS)).unref();
    log.warn("could not write destination delivery counts; kept for the next try", err instanceof Error ? err.message : err);
    return;
  }
  const byKey = new Map(items.map((p) => [keyOf(p.product, p.destinationId), p]));
  try {
    for (const r of rows) {
      remember(r);
      const p = byKey.get(keyOf(r.product, r.destination_id))!;
      if (
        c.breakerEnabled &&
        r.breaker_state === "closed" &&
        r.window_attempts >= c.breakerMinAttempts &&
        r.window_failures >= c.breakerFailureRate * r.window_attempts
      )
        await open(r);
      if (r.throttled >= c.paceThrottles) await slowDown(r, p);
      else if (r.pace && p.throttled === 0 && p.good > 0 && r.pace_changed_at && Date.now() - r.pace_changed_at.getTime() >= c.paceRecoveryMs) await speedUp(r);
    }
  } catch (err) {
    // The counts are written; the next flush that sees them over a threshold applies it.
    log.warn("could not apply destination delivery counts", err instanceof Error ? err.message : err);
  }
}

/** Opens a closed breaker (the statement that does it reports it). */
async function open(r: StateRow): Promise<void> {
  const { rows } = await getBackgroundPool().query<StateRow>(
    `UPDATE delivery_destination_state SET breaker_state = 'open', breaker_changed_at = now(), breaker_openings = breaker_openings + 1,
            window_start = now(), window_attempts = 0, window_failures = 0, updated_at = now()
      WHERE product = $1 AND destination_id = $2 AND breaker_state = 'closed' RETURNING *`,
    [r.product, r.destination_id],
  );
  const o = remember(rows[0]);
  if (o)
    report({
      product: o.product,
      destinationId: o.destination_id,
      ownerId: o.owner_id,
      transition: "opened",
      attempts: r.window_attempts,
      failures: r.window_failures,
      nextProbeAt: new Date(o.breaker_changed_at.getTime() + cooldownMs(o.breaker_openings)),
    });
}

/** Halves the pace (the first time: half of what this worker saw answered in the last second, at least 1/s). */
async function slowDown(r: StateRow, p: Pending): Promise<void> {
  const seen = Math.max(2, p.attempts);
  const { rows } = await getBackgroundPool().query<StateRow>(
    `UPDATE delivery_destination_state SET pace = GREATEST(1, COALESCE(pace, $4) / 2), pace_origin = COALESCE(pace_origin, $4),
            pace_changed_at = now(), throttled = 0, throttle_window_start = now(), updated_at = now()
      WHERE product = $1 AND destination_id = $2 AND throttled >= $3 RETURNING *`,
    [r.product, r.destination_id, getConfig().destinationState.paceThrottles, Math.ceil((seen * 1000) / FLUSH_MS)],
  );
  const s = remember(rows[0]);
  if (s) log.info(`${s.product} destination ${s.destination_id}: pace ${s.pace}/s after 429s`);
}

/** Raises a slowed pace by half; back at its origin, the destination is not slowed any more. */
async function speedUp(r: StateRow): Promise<void> {
  const { rows } = await getBackgroundPool().query<StateRow>(
    `UPDATE delivery_destination_state SET
            pace = CASE WHEN ceil(pace * 1.5) >= pace_origin THEN NULL ELSE ceil(pace * 1.5)::int END,
            pace_origin = CASE WHEN ceil(pace * 1.5) >= pace_origin THEN NULL ELSE pace_origin END,
            pace_changed_at = now(), updated_at = now()
      WHERE product = $1 AND destination_id = $2 AND pace IS NOT NULL AND pace_changed_at <= now() - $3 * interval '1 millisecond' RETURNING *`,
    [r.product, r.destination_id, getConfig().destinationState.paceRecoveryMs],
  );
  remember(rows[0]);
}

/** Forgets the cache and pending counts (tests). */
export function resetDestinationStateCache(): void {
  cache = new Map();
  loadedAt = -Infinity;
  pending.clear();
}
