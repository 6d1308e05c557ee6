/**
 * Outbound delivery (docs/outbound.md#publish-delivery-retries) on the
 * shared engine: the `outbound_deliveries` row is the truth and the queue; a worker's dispatcher
 * (lib/outbound/dispatch.ts) claims due rows with a lease (a crashed worker's delivery is claimed again
 * when the lease expires: at least once), sends through the destination type (HTTP with
 * the gateway's sender: timeouts, response cap, address guard), records the attempt (`attempt_number`
 * 0 first, `manual`, `code`, `latency_ms`, `response_data`) and schedules the retry: exponential from
 * OUTBOUND_RETRY_INTERVAL_SECONDS up to OUTBOUND_MAX_RETRY_LIMIT, or OUTBOUND_RETRY_SCHEDULE, only for
 * events eligible for retry. A disabled or deleted destination is skipped without an attempt. Failures
 * in a row are counted per destination; OUTBOUND_AUTO_DISABLE_DESTINATION disables one at the limit.
 */
import { recordDelivery } from "@/lib/observability/metrics";
import { outboundConfig, refreshOutboundSettings } from "@/lib/outbound/settings";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { decryptJson } from "@/lib/crypto/secrets";
import { getBackgroundPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { Batcher } from "@/lib/db/batcher";
import { attemptSpan, type AttemptSummary } from "@/lib/delivery/attempt-span";
import { acquireDestinationSlot } from "@/lib/delivery/destination-limits";
import { burstPermit } from "@/lib/delivery/pacing";
import { withJitter } from "@/lib/delivery/retry-schedule";
import { destinationGate, noteAnswer } from "@/lib/delivery/destination-state";
import { base62 } from "@/lib/ids";
import { logger } from "@/lib/log";
import { inSpan } from "@/lib/tracing";
import { alertsAfterFailure } from "@/lib/outbound/alerts";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { dropClient } from "@/lib/outbound/destination-types/clients";
import type { Claimed, Outcome } from "@/lib/outbound/destination-types/type";
import { applyTransformation } from "@/lib/outbound/transformation";
import { ORDERED_CLAIMABLE, promoteOutboundHeads, retrySet, storedOrdering, type OrderingKeyRef } from "@/lib/outbound/ordering";

const log = logger("outbound-delivery");
/** graphile-worker task of one delivery; payload `{event_id, destination_id}`. */
export const OUTBOUND_DELIVER_TASK = "outbound_deliver";
/**
 * Expiry of a lease taken now: longer than any attempt (an HTTP attempt ends by OUTBOUND_DELIVERY_TIMEOUT_SECONDS,
 * a RabbitMQ one by a connect and a confirm within it each) plus a margin for recording. A worker that
 * dies mid-delivery leaves its lease to expire; the dispatcher then claims the delivery again (lib/outbound/dispatch.ts).
 */
const leaseUntil = () => new Date(Date.now() + 2 * outboundConfig().deliveryTimeoutMs + 10_000);

type Db = Pick<pg.PoolClient, "query">;

/** NOTIFY channel the dispatchers of worker processes LISTEN to: deliveries became due (lib/outbound/dispatch.ts). */
export const OUTBOUND_CHANNEL = "hookyard_outbound";

/**
 * Adds deliveries (due now; `manual` for POST /retry), in the caller's transaction, and wakes the
 * dispatchers when it commits (a NOTIFY: this is the low-volume path; publish wakes them without one).
 * A delivery to an ordered destination keeps its place or goes to the end of its key (retrySet).
 */
export async function enqueueOutboundDeliveries(
  db: Db,
  deliveries: { eventId: string; eventTime: Date; destinationId: string; tenantId: string }[],
  manual = false,
): Promise<void> {
  if (deliveries.length === 0) return;
  const cols = [deliveries.map((d) => d.eventId), deliveries.map((d) => d.destinationId), deliveries.map((d) => d.tenantId)];
  const { rows } = await db.query<OrderingKeyRef>(
    `INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, manual, next_attempt_at)
     SELECT e, et, d, t, 'pending', $4, now() FROM unnest($1::text[], $2::text[], $3::text[], $5::timestamptz[]) AS x(e, d, t, et)
     ON CONFLICT (event_id, destination_id) DO UPDATE SET status = 'pending', manual = EXCLUDED.manual, updated_at = now(), ${retrySet("outbound_deliveries")}
     RETURNING destination_id, ordering_key`,
    [...cols, manual, deliveries.map((d) => d.eventTime)],
  );
  await promoteOutboundHeads(rows, db);
  await db.query("SELECT pg_notify($1, '')", [OUTBOUND_CHANNEL]);
}

export type { Claimed };

/**
 * Milliseconds before retry number `n` (1-based) of a delivery, or null when the budget is spent: the
 * schedule's (or the exponential) delay with ±10 % jitter (lib/delivery/retry-schedule.ts withJitter),
 * so the retries of one outage do not arrive in lockstep. Exported for its test.
 */
export function retryDelayMs(n: number): number | null {
  const cfg = outboundConfig();
  if (n > cfg.maxRetries) return null;
  return withJitter(1000 * (cfg.retrySchedule.length ? cfg.retrySchedule[n - 1] : cfg.retryIntervalSeconds * 2 ** (n - 1)));
}

/** The `code` of an attempt whose transformation failed (nothing was sent). */
const TRANSFORMATION_ERROR = "transformation_error";

/**
 * Sends one delivery through its destination type (lib/outbound/destination-types): a type no longer
 * registered is an `unsupported_destination_type` failure without a request. The destination's
 * transformation runs first; its failure is a `transformation_error` without a request, with its output.
 * Never throws for a failed delivery: a failure is an outcome.
 */
async function send(c: Claimed): Promise<Outcome> {
  const credentials = decryptJson<Record<string, string>>(c.credentials_encrypted) ?? {};
  const type = OUTBOUND_DESTINATION_TYPES.find(c.type ?? "");
  if (!type) return { success: false, code: "unsupported_destination_type", latencyMs: null, response: null };
  const delivery = { claimed: c, config: c.config ?? {}, credentials };
  if (!c.transformation) return type.deliver(delivery);
  // The destination's transformation first (docs/outbound.md "Transformations"): its failure is this
  // attempt's failure, retried on the schedule like any other; nothing is sent.
  let applied: Awaited<ReturnType<typeof applyTransformation>>;
  try {
    applied = await applyTransformation(type, delivery, c.transformation, { whenBusy: "queue", forStorage: true });
  } catch (err) {
    const error = `InternalError: the sandbox failed (${err instanceof Error ? err.message : String(err)})`;
    applied = { ok: false, output: { log_level: "fatal", console: [{ type: "error", message: error }], error } };
  }
  if (!applied.ok) return { success: false, code: TRANSFORMATION_ERROR, latencyMs: null, response: null, transformation: applied.output };
  return { ...(await type.deliver(applied.delivery)), transformation: applied.output };
}

/** An outcome as the attempt span reports it (lib/delivery/attempt-span.ts). */
const summaryOf = (o: Outcome): AttemptSummary => ({
  status: o.response?.status_code ?? null,
  success: o.success,
  errorCode: o.success || /^\d+$/.test(o.code) ? null : o.code,
});

const keyOf = (eventId: string, destinationId: string) => `${eventId}\0${destinationId}`;

// The claimed rows (`c`) with their events (from the event's day partition) and destinations.
const CLAIMED_SELECT = `
     SELECT c.event_id, c.destination_id, c.tenant_id, c.attempts, c.manual, c.locked_until, c.ordering_key, d.ordering, e.topic, e.time, e.eligible_for_retry, e.metadata, e.data, e.trace_parent,
            d.type, d.config, d.credentials_encrypted, d.delivery_metadata, d.rate_limit, d.rate_limit_period, d.disabled_at, d.transformation, d.id IS NULL AS deleted, e.id IS NULL AS orphan
       FROM c LEFT JOIN outbound_events e ON e.id = c.event_id AND e.time = c.event_time LEFT JOIN outbound_destinations d ON d.id = c.destination_id`;
// Due, not leased, and (ordered delivery, docs/outbound.md "Ordered delivery") the head of its key.
const DUE = `o.status = 'pending' AND o.next_attempt_at <= now() AND (o.locked_until IS NULL OR o.locked_until < now()) AND ${ORDERED_CLAIMABLE}`;

/**
 * Claims (group execution, lib/db/batcher.ts): the deliveries asked for by jobs meanwhile are leased
 * by one statement. Each caller gets its delivery, or null when it is not due, leased by another worker,
 * or asked for twice in one batch.
 */
const claimer = new Batcher<{ eventId: string; destinationId: string }, Claimed | null>(
  async (keys) => {
    const { rows } = await getBackgroundPool().query<Claimed>(
      `WITH k AS (SELECT DISTINCT e, d FROM unnest($1::text[], $2::text[]) AS k(e, d)),
     c AS (UPDATE outbound_deliveries o SET locked_until = $3, updated_at = now() FROM k WHERE o.event_id = k.e AND o.destination_id = k.d AND ${DUE} RETURNING o.*)
     ${CLAIMED_SELECT}`,
      [keys.map((k) => k.eventId), keys.map((k) => k.destinationId), leaseUntil()],
    );
    const byKey = new Map(rows.map((r) => [keyOf(r.event_id, r.destination_id), r]));
    return keys.map((k) => {
      const r = byKey.get(keyOf(k.eventId, k.destinationId)) ?? null;
      byKey.delete(keyOf(k.eventId, k.destinationId));
      return r;
    });
  },
  100,
  2,
);

/**
 * Claims up to `limit` due deliveries (pending, `next_attempt_at` passed, not leased or lease expired),
 * oldest due first, with one statement over `outbound_deliveries_pending_idx`; rows other workers are
 * claiming, and those of `skipDestinations` (saturated here), are skipped. Returns them leased to this process. Throws on database errors.
 */
export async function claimDueDeliveries(limit: number, skipDestinations: string[] = []): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const { rows } = await getBackgroundPool().query<Claimed>({
    name: "hookyard-outbound-claim-due-v2",
    text: `WITH k AS (SELECT o.event_id, o.destination_id FROM outbound_deliveries o WHERE ${DUE} AND NOT (o.destination_id = ANY($3))
                    ORDER BY o.next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
     c AS (UPDATE outbound_deliveries o SET locked_until = $2, updated_at = now() FROM k WHERE o.event_id = k.event_id AND o.destination_id = k.destination_id RETURNING o.*)
     ${CLAIMED_SELECT}`,
    values: [limit, leaseUntil(), skipDestinations],
  });
  return rows;
}

type Finished = { c: Claimed; outcome: Outcome; next: Date | null; attemptId: string };

/**
 * Records (group execution): the attempts finished meanwhile are written by one transaction: each
 * delivery's new state (if its lease still holds: due again at `next` for a retry) and its attempt row in one statement,
 * then the destinations' failures in a row (a success writes the row only to end a run of failures, so
 * deliveries to one destination do not queue behind each other's row lock). Each caller gets whether it
 * still owned its delivery and, for a failure, the failures in a row it brought its destination to.
 */
const recorder = new Batcher<Finished, { owned: boolean; failures: number }>(
  async (items) =>
    inTransaction(async (db) => {
      const col = <T>(f: (r: Finished) => T) => items.map(f);
      const { rows: owned } = await db.query<{ e: string; d: string }>(
        `WITH r AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::bool[], $13::int[], $14::jsonb[], $15::jsonb[], $16::bool[])
                  AS r(e, d, ok, next, lease, aid, tenant, type, topic, code, n, manual, latency, response, transformation, block)),
       upd AS (
         UPDATE outbound_deliveries o SET attempts = o.attempts + 1, manual = false, locked_until = NULL, next_attempt_at = r.next, updated_at = now(),
                status = CASE WHEN r.ok THEN 'success' WHEN r.next IS NULL THEN 'failed' ELSE 'pending' END,
                ordering_blocked_at = CASE WHEN r.block AND NOT r.ok AND r.next IS NULL AND o.ordering_key IS NOT NULL THEN now() ELSE o.ordering_blocked_at END
           FROM r WHERE o.event_id = r.e AND o.destination_id = r.d AND o.locked_until = r.lease RETURNING r.*),
       att AS (
         INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, latency_ms, response_data, transformation, time)
         SELECT aid, e, tenant, d, type, topic, CASE WHEN ok THEN 'success' ELSE 'failed' END, code, n, manual, latency, response, transformation, now() FROM upd RETURNING 1)
       SELECT e, d, (SELECT count(*) FROM att) AS attempts FROM upd`,
        [
          col((r) => r.c.event_id),
          col((r) => r.c.destination_id),
          col((r) => r.outcome.success),
          col((r) => r.next),
          col((r) => r.c.locked_until),
          col((r) => r.attemptId),
          col((r) => r.c.tenant_id),
          col((r) => r.c.type ?? ""),
          col((r) => r.c.topic),
          col((r) => r.outcome.code),
          col((r) => r.c.attempts),
          col((r) => r.c.manual),
          col((r) => r.outcome.latencyMs),
          col((r) => (r.outcome.response ? JSON.stringify(r.outcome.response) : null)),
          col((r) => (r.outcome.transformation ? JSON.stringify(r.outcome.transformation) : null)),
          col((r) => storedOrdering(r.c.ordering)?.on_exhausted === "block"),
        ],
      );
      const isOwned = new Set(owned.map((o) => keyOf(o.e, o.d)));
      // Per destination, in order: did a success end the run (reset), and how many failures followed it.
      const runs = new Map<string, { reset: boolean; fails: number }>();
      for (const r of items) {
        if (!isOwned.has(keyOf(r.c.event_id, r.c.destination_id))) continue;
        const run = runs.get(r.c.destination_id) ?? { reset: false, fails: 0 };
        if (r.outcome.success) runs.set(r.c.destination_id, { reset: true, fails: 0 });
        else runs.set(r.c.destination_id, { ...run, fails: run.fails + 1 });
      }
      const { rows: before } = runs.size
        ? await db.query<{ id: string; before: number }>(
            // The count before this batch comes from the rows to change, locked first (in id order), not
            // from RETURNING old.* (PostgreSQL 18 only; docs/scaling.md "Database": 14 or newer). A
            // success on a destination without failures locks nothing.
            `WITH x AS (SELECT * FROM unnest($1::text[], $2::bool[], $3::int[]) AS x(id, reset, fails)),
                prev AS (SELECT d.id, d.consecutive_failures FROM outbound_destinations d JOIN x ON x.id = d.id
                          WHERE x.fails > 0 OR d.consecutive_failures <> 0 ORDER BY d.id FOR UPDATE OF d)
           UPDATE outbound_destinations d SET consecutive_failures = CASE WHEN x.reset THEN x.fails ELSE d.consecutive_failures + x.fails END
             FROM x JOIN prev ON prev.id = x.id WHERE d.id = x.id RETURNING d.id, prev.consecutive_failures AS before`,
            [[...runs.keys()], [...runs.values()].map((v) => v.reset), [...runs.values()].map((v) => v.fails)],
          )
        : { rows: [] };
      const count = new Map(before.map((b) => [b.id, b.before]));
      return items.map((r) => {
        if (!isOwned.has(keyOf(r.c.event_id, r.c.destination_id))) return { owned: false, failures: 0 };
        const n = r.outcome.success ? 0 : (count.get(r.c.destination_id) ?? 0) + 1;
        count.set(r.c.destination_id, n);
        return { owned: true, failures: n };
      });
    }, getBackgroundPool()),
  200,
  2,
);

/**
 * Promotions (group execution): the keys whose head ended meanwhile get their next delivery made due by
 * one statement, after the end committed (docs/outbound.md "Ordered delivery"). Each caller gets
 * whether a delivery became due.
 */
const promoter = new Batcher<OrderingKeyRef, boolean>(
  async (keys) => {
    const n = await promoteOutboundHeads(keys);
    return keys.map(() => n > 0);
  },
  200,
  2,
);

/** After ordered delivery `c` ended (its end committed): makes the next of its key due. True when one became due. Throws database errors. */
const promoteAfter = (c: Claimed): Promise<boolean> =>
  c.ordering_key == null ? Promise.resolve(false) : promoter.submit({ destination_id: c.destination_id, ordering_key: c.ordering_key });

/**
 * The `outbound_deliver` task (jobs queued before deliveries were dispatched directly): delivers event
 * `eventId` to destination `destinationId` if its delivery is due and not leased by another worker;
 * otherwise does nothing (a repeated job is harmless). Throws only on database errors.
 */
export async function deliverOutbound(eventId: string, destinationId: string): Promise<void> {
  await refreshOutboundSettings();
  await burstPermit();
  const c = await claimer.submit({ eventId, destinationId });
  if (c) await deliverClaimedOutbound(c);
}

/**
 * Makes the next attempt of delivery `c`, which this process has claimed: a disabled or deleted
 * destination, or an event gone with its retention, skips it without an attempt; a destination with
 * DELIVERY_DESTINATION_CONCURRENCY deliveries in flight here gets it back, due again within a second
 * (one slow or dead destination never takes all of a worker's places); otherwise it sends,
 * records the attempt and the delivery's next state (retry due at its time, or final), and on a failure
 * counts the destination's failures in a row (auto-disable, alerts). Resolves true when the end of an
 * ordered delivery made the next of its key due (the dispatcher then claims again at once). Throws only
 * on database errors (the lease then expires and the delivery is claimed again).
 */
export function deliverClaimedOutbound(c: Claimed): Promise<boolean> {
  const attributes = { "hookyard.event.id": c.event_id, "hookyard.destination.id": c.destination_id, "hookyard.tenant.id": c.tenant_id };
  return inSpan("outbound dispatch", c.trace_parent, attributes, () => deliverClaimed(c));
}

/** Gives claimed delivery `c` back without an attempt, due again at `at` (one statement; nothing if its lease changed). */
async function putBack(c: Claimed, at: Date): Promise<void> {
  await getBackgroundPool().query(
    "UPDATE outbound_deliveries SET locked_until = NULL, next_attempt_at = $4, updated_at = now() WHERE event_id = $1 AND destination_id = $2 AND locked_until = $3",
    [c.event_id, c.destination_id, c.locked_until, at],
  );
}

/** {@link deliverClaimedOutbound} inside its span. */
async function deliverClaimed(c: Claimed): Promise<boolean> {
  const { event_id: eventId, destination_id: destinationId } = c;
  if (c.deleted || c.disabled_at || c.orphan) {
    if (c.deleted || c.disabled_at) dropClient(destinationId); // its broker client, if one is open here (docs/outbound.md "Connections")
    const { rowCount } = await getBackgroundPool().query(
      "UPDATE outbound_deliveries SET status = 'skipped', locked_until = NULL, updated_at = now() WHERE event_id = $1 AND destination_id = $2 AND locked_until = $3",
      [eventId, destinationId, c.locked_until],
    );
    return rowCount ? promoteAfter(c) : false;
  }
  // A paused destination, an open breaker or a used-up pace puts the delivery back without an attempt
  // (docs/outbound.md "Receiver-driven limits"); a destination nothing is wrong with costs no statement here.
  const limited = OUTBOUND_DESTINATION_TYPES.find(c.type ?? "")?.receiverLimits !== false;
  const gate = limited ? await destinationGate("outbound", destinationId, c.tenant_id, 2 * outboundConfig().deliveryTimeoutMs + 10_000) : null;
  if (gate && !gate.ok) return putBack(c, gate.retryAt).then(() => false);
  const slot = await acquireDestinationSlot(destinationId, c);
  if (!slot.ok) return putBack(c, slot.retryAt).then(() => false);
  let outcome: Outcome;
  try {
    const attributes = { "hookyard.event.id": eventId, "hookyard.destination.id": destinationId, "hookyard.attempt.number": c.attempts + 1 };
    outcome = await attemptSpan(null, attributes, () => send(c), summaryOf);
  } finally {
    slot.release();
  }
  const status = outcome.response?.status_code ?? null;
  const sent = outcome.code !== "unsupported_destination_type" && outcome.code !== TRANSFORMATION_ERROR;
  // A Retry-After was honoured: the delivery waits for the pause without spending an attempt.
  const deferUntil = gate && (await noteAnswer(gate, { status, success: outcome.success, retryAfter: outcome.retryAfter, sent }));
  if (deferUntil) return putBack(c, deferUntil).then(() => false);
  const cfg = outboundConfig();
  const delay = outcome.success || !c.eligible_for_retry ? null : retryDelayMs(c.attempts + 1);
  const next = delay === null ? null : new Date(Date.now() + delay);
  recordDelivery("outbound", outcome.success ? "success" : outcome.response?.status_code != null ? "failed" : "error", outcome.latencyMs);
  const { owned, failures } = await recorder.submit({ c, outcome, next, attemptId: cfg.prefixes.attempt + base62(randomBytes(16)) });
  if (!owned) return false; // the lease was lost: another worker owns this delivery now
  // The end of an ordered delivery (delivered, or out of retries and not blocking its key) lets the next of its key go.
  const ended = outcome.success || (next === null && storedOrdering(c.ordering)?.on_exhausted !== "block");
  const promoted = ended ? await promoteAfter(c) : false;
  if (outcome.success) return promoted;
  let disabled = false;
  if (cfg.autoDisable && failures >= cfg.consecutiveFailureLimit) {
    const { rowCount } = await getBackgroundPool().query(
      "UPDATE outbound_destinations SET disabled_at = now(), updated_at = now() WHERE id = $1 AND disabled_at IS NULL",
      [destinationId],
    );
    disabled = (rowCount ?? 0) > 0;
    if (disabled) log.warn(`destination ${destinationId} disabled after ${failures} failures in a row`);
  }
  await alertsAfterFailure({
    tenantId: c.tenant_id,
    destinationId,
    eventId,
    consecutiveFailures: failures,
    disabled,
    exhausted: c.eligible_for_retry && next === null,
  });
  return promoted;
}
