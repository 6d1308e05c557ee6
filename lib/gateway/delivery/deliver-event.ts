/**
 * One delivery of one event (docs/pipeline.md#delivery-engine). The job
 * carries only the event id: this claims the event row with a lease, reloads everything it needs,
 * sends, and records the attempt and the event's new state in one statement. At-least-once: a worker
 * that dies mid-delivery leaves an expired lease, and the sweeper queues the event again.
 */
import { recordDelivery } from "@/lib/observability/metrics";
import { getConfig } from "@/lib/config";
import { type AttemptContext, type AttemptOutcome, preparationFailure } from "@/lib/gateway/delivery/attempt-context";
import { getBackgroundPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { Batcher } from "@/lib/db/batcher";
import { type DeliveryRow, EVENT_DELIVERY_COLUMNS, SELECT_DELIVERY, toEventDelivery, withSigningSecret } from "@/lib/gateway/delivery/event-delivery";
import { attemptSpan } from "@/lib/delivery/attempt-span";
import { acquireDestinationSlot } from "@/lib/delivery/destination-limits";
import { destinationGate, noteAnswer } from "@/lib/delivery/destination-state";
import { DELIVER_TASK, enqueueDeliveries } from "@/lib/delivery/jobs";
import { nextRetryDelay, type RetryRule } from "@/lib/delivery/retry-schedule";
import { holdLease, newLease, withLeases } from "@/lib/delivery/leases";
import { createId } from "@/lib/ids";
import { storableText } from "@/lib/ingest/storable";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import type { GatewayDestinationType } from "@/lib/gateway/destination-types/type";
import { headsOf, ORDERED_CLAIMABLE, type OrderingKeyRef, promoteHeads, WAITING_HEAD } from "@/lib/gateway/delivery/ordering";
import { logger } from "@/lib/log";

const log = logger("delivery");

/** The jitter key of an event's retry after attempt `attemptNumber`: the announced and the scheduled delay agree (lib/delivery/retry-schedule.ts withJitter). */
const retryJitterKey = (eventId: string, attemptNumber: number) => `${eventId}:${attemptNumber}`;

const CLAIM_SQL = `
WITH c AS (
  UPDATE events SET locked_until = $2, status = 'QUEUED', updated_at = now()
   WHERE id = ANY($1) AND status IN ('QUEUED', 'SCHEDULED') AND (locked_until IS NULL OR locked_until < now())
     AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '50 milliseconds')
     AND ${ORDERED_CLAIMABLE}
  RETURNING ${EVENT_DELIVERY_COLUMNS}
) ${SELECT_DELIVERY}`;

/**
 * Puts a claimed event back without an attempt: `status` HOLD (paused) or CANCELLED, or QUEUED again at
 * `retryAt`. A cancelled ordered event lets the next of its key go (docs/pipeline.md "Ordered delivery").
 */
async function release(
  eventId: string,
  lease: Date,
  status: "HOLD" | "CANCELLED" | "QUEUED",
  retryAt: Date | null,
  errorCode: string | null = null,
): Promise<void> {
  await withLeases(() =>
    inTransaction(async (client) => {
      const { rows } = await client.query<OrderingKeyRef>(
        `UPDATE events SET status = $3, next_attempt_at = $4, locked_until = NULL, error_code = COALESCE($5, error_code), updated_at = now()
        WHERE id = $1 AND locked_until = $2 RETURNING destination_id, ordering_key`,
        [eventId, lease, status, retryAt, errorCode],
      );
      if (rows.length && status === "QUEUED") await enqueueDeliveries(client, [eventId], [retryAt]);
      if (status === "CANCELLED") await promoteHeads(orderedKeys(rows), client);
    }, getBackgroundPool()),
  );
}

/** The ordered ones of `rows` (an unordered event has no key). */
const orderedKeys = (rows: { destination_id: string; ordering_key: string | null }[]) => rows.filter((r): r is OrderingKeyRef => r.ordering_key !== null);

/** The outcome of one attempt, to record (lib/gateway/delivery/attempt-context.ts). */
export type { AttemptOutcome };

/**
 * Records attempt `attemptId` of a claimed event and moves the event: SUCCESSFUL on a 2xx; QUEUED again
 * with `next_attempt_at` when the connection's retry rule allows another attempt; FAILED otherwise.
 * The event is only changed while `lease` is still its lease and it is still QUEUED (a cancel made
 * meanwhile wins). Exported for the CLI channel, which records attempts answered by `hookyard listen`.
 */
export async function recordAttempt(a: AttemptContext & { outcome: AttemptOutcome }): Promise<void> {
  const o = a.outcome;
  const success = o.status !== null && o.status >= 200 && o.status < 300;
  const delay = success ? null : nextRetryDelay(a.retryRule, a.attemptNumber, o.status, retryJitterKey(a.eventId, a.attemptNumber));
  const now = new Date();
  const nextAt = delay === null ? null : new Date(now.getTime() + delay);
  const eventStatus = success ? "SUCCESSFUL" : nextAt ? "QUEUED" : "FAILED";
  // Nothing was sent when the event could not be prepared (no requested URL): no duration then.
  recordDelivery("gateway", success ? "success" : o.status === null ? "error" : "failed", o.requestedUrl === null ? null : o.deliveryLatency);
  await recordBatcher.submit({ ...a, success, nextAt, eventStatus, now });
}

type AttemptRecord = AttemptContext & { outcome: AttemptOutcome; success: boolean; nextAt: Date | null; eventStatus: string; now: Date };

// One statement per batch: the attempts, the events' new states and the retries' jobs commit together.
const RECORD_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[],
                       $11::text[], $12::text[], $13::text[], $14::timestamptz[], $15::timestamptz[], $16::timestamptz[], $17::int[], $18::int[],
                       $19::timestamptz[], $20::timestamptz[], $21::text[], $22::timestamptz[], $23::bool[])
    AS v(attempt_id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, error_code, body,
         requested_url, http_method, cli_id, successful_at, delivered_at, responded_at, delivery_latency, response_latency,
         now, lease, event_status, next_at, success)
), a AS (
  INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, error_code, body,
                        requested_url, http_method, cli_id, successful_at, delivered_at, responded_at, delivery_latency, response_latency, created_at, updated_at, bulk_retry_id)
  SELECT attempt_id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, error_code, body,
         requested_url, http_method, cli_id, successful_at, delivered_at, responded_at, delivery_latency, response_latency, now, now,
         -- only a bulk retry's attempt names its operation (read from the event, which the bulk run marked)
         CASE WHEN v.trigger = 'BULK_RETRY' THEN (SELECT ev.bulk_retry_id FROM events ev WHERE ev.id = v.event_id) END FROM v
), e AS (
  UPDATE events SET status = v.event_status, attempts = events.attempts + 1, last_attempt_at = v.now, next_attempt_at = v.next_at,
         next_trigger = 'AUTOMATIC', response_status = v.response_status, error_code = v.error_code,
         successful_at = CASE WHEN v.success THEN v.now ELSE events.successful_at END,
         cli_id = COALESCE(v.cli_id, events.cli_id), locked_until = NULL, updated_at = now(),
         -- an ordered event out of retries holds its key when its destination says so (docs/pipeline.md "Ordered delivery")
         ordering_blocked_at = CASE WHEN v.event_status = 'FAILED' AND events.ordering_key IS NOT NULL
                                     AND (SELECT d.ordering->>'on_exhausted' FROM destinations d WHERE d.id = events.destination_id) = 'block'
                                    THEN v.now END
    FROM v WHERE events.id = v.event_id AND events.locked_until = v.lease AND events.status = 'QUEUED'
  RETURNING events.id, v.next_at, events.destination_id, events.ordering_key
), j AS (
  SELECT graphile_worker.add_job($24, json_build_object('event_id', e.id), run_at => e.next_at, max_attempts => 10::smallint)
    FROM e WHERE e.next_at IS NOT NULL
)
-- the ordered events that ended: the next of their keys may go
SELECT (SELECT count(*) FROM j) AS jobs,
       (SELECT json_agg(json_build_object('destination_id', e.destination_id, 'ordering_key', e.ordering_key)) FROM e
         WHERE e.ordering_key IS NOT NULL AND e.next_at IS NULL) AS ended`;

// Recording is off the delivery's critical path (the destination slot is given back before it): one
// batch at a time makes the batches large (fewer statements per attempt); the statement is prepared once
// per connection (named), so it is not parsed and planned again for every batch.
const recordBatcher = new Batcher<AttemptRecord, void>(
  async (items) => {
    const col = <T>(f: (r: AttemptRecord) => T) => items.map(f);
    const { rows } = await withLeases(() =>
      getBackgroundPool().query<{ ended: OrderingKeyRef[] | null }>({
        name: "hookyard-record-attempts",
        text: RECORD_SQL,
        values: [
          col((r) => r.attemptId),
          col((r) => r.teamId),
          col((r) => r.eventId),
          col((r) => r.destinationId),
          col((r) => r.attemptNumber),
          col((r) => r.trigger),
          col((r) => (r.success ? "SUCCESSFUL" : "FAILED")),
          col((r) => r.outcome.status),
          col((r) => r.outcome.errorCode),
          col((r) => storableText(r.outcome.body)),
          col((r) => storableText(r.outcome.requestedUrl)),
          col((r) => r.outcome.httpMethod),
          col((r) => r.outcome.cliId ?? null),
          col((r) => (r.success ? r.now : null)),
          col((r) => r.outcome.deliveredAt),
          col((r) => r.outcome.respondedAt),
          col((r) => r.outcome.deliveryLatency),
          col((r) => r.outcome.responseLatency),
          col((r) => r.now),
          col((r) => r.lease),
          col((r) => r.eventStatus),
          col((r) => r.nextAt),
          col((r) => r.success),
          DELIVER_TASK,
        ],
      }),
    );
    const ended = rows[0]?.ended;
    if (ended)
      await nextHeads(ended).catch((err) => log.warn("could not start the next ordered events; the sweeper will", err instanceof Error ? err.message : err));
    return items.map(() => undefined);
  },
  500,
  1,
);

/** Where a worker process delivers the heads it claims itself (its dispatch queue); null: give them jobs instead. */
let headDispatch: ((events: ClaimedEvent[]) => void) | null = null;

/**
 * Makes this process deliver the next head of an ordered key itself when the event before it ends here
 * (`dispatch`, the dispatch queue's: no job round trip), or, with null, give it a job. Set by
 * lib/gateway/delivery/dispatch-queue.ts while it runs.
 */
export function setHeadDispatch(dispatch: ((events: ClaimedEvent[]) => void) | null): void {
  headDispatch = dispatch;
}

// The due heads of keys whose event before just ended, leased in one statement (docs/pipeline.md "Ordered delivery").
const CLAIM_HEADS_SQL = `
WITH h AS (${headsOf("(SELECT DISTINCT d, k FROM unnest($1::text[], $2::text[]) AS k(d, k)) k")}),
c AS (
  UPDATE events SET locked_until = $3, status = 'QUEUED', updated_at = now()
   WHERE id IN (SELECT h.id FROM h WHERE ${WAITING_HEAD} AND (h.next_attempt_at IS NULL OR h.next_attempt_at <= now() + interval '50 milliseconds'))
     AND status IN ('QUEUED', 'SCHEDULED') AND (locked_until IS NULL OR locked_until < now()) AND ${ORDERED_CLAIMABLE}
  RETURNING ${EVENT_DELIVERY_COLUMNS}
) ${SELECT_DELIVERY}`;

/**
 * The next events of ordered keys whose event ended: claimed and delivered by this process when it runs a
 * dispatch queue, else given jobs (promoteHeads). Throws on database errors (the sweeper then queues them).
 */
async function nextHeads(keys: OrderingKeyRef[]): Promise<void> {
  const dispatch = headDispatch;
  if (!dispatch) {
    await promoteHeads(keys);
    return;
  }
  const lease = newLease();
  const { rows } = await getBackgroundPool().query<DeliveryRow>({
    name: "hookyard-claim-heads",
    text: CLAIM_HEADS_SQL,
    values: [keys.map((k) => k.destination_id), keys.map((k) => k.ordering_key), lease],
  });
  if (rows.length) dispatch(rows.map((row) => ({ row, lease })));
}

/**
 * Claims events `ids` with one statement (one lease for all): returns, in order, each event's claim, or
 * null when it is not due, leased by another worker, or already claimed by an earlier entry of `ids`
 * (two jobs of one event in one batch deliver it once). Throws on database errors.
 */
export async function claimEvents(ids: string[]): Promise<(ClaimedEvent | null)[]> {
  const lease = newLease();
  const { rows } = await getBackgroundPool().query<DeliveryRow>({ name: "hookyard-claim-events", text: CLAIM_SQL, values: [ids, lease] });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    byId.delete(id);
    return row ? { row, lease } : null;
  });
}

// Claims are batched the same way; every event of a batch gets the same lease.
const claimBatcher = new Batcher<string, ClaimedEvent | null>(claimEvents);

/** An event this process holds the lease of (`lease` is its `locked_until`), with everything its delivery needs. */
export type ClaimedEvent = { row: DeliveryRow; lease: Date };

/** A new lease's expiry (DELIVERY_LEASE_MS from now; renewed while held: lib/delivery/leases.ts). */
export { newLease };

/**
 * Delivers event `eventId` if it is due and not leased by another worker; otherwise does nothing (a
 * repeated or stale job is harmless). Resolves when the attempt is recorded. Throws only on database
 * errors (graphile-worker then retries the job).
 */
export async function deliverEvent(eventId: string): Promise<void> {
  const claimed = await claimBatcher.submit(eventId);
  if (!claimed) return;
  const unhold = holdLease(claimed);
  await deliverClaimed(claimed).finally(unhold);
}

/**
 * Puts claimed events back in the queue without an attempt (QUEUED, due at `retryAt`, default now, with
 * a job), in one transaction for all of them: e.g. when a worker stops before it could deliver them, or
 * when their destination stayed at its ceiling of deliveries in flight (lib/gateway/delivery/dispatch-queue.ts).
 * Events whose lease changed meanwhile are left alone. Throws on database errors.
 */
export async function releaseClaimed(events: ClaimedEvent[], retryAt: Date | null = null): Promise<void> {
  if (events.length === 0) return;
  await withLeases(() =>
    inTransaction(async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `UPDATE events SET locked_until = NULL, next_attempt_at = COALESCE($3, now()), updated_at = now()
         FROM unnest($1::text[], $2::timestamptz[]) AS v(id, lease)
        WHERE events.id = v.id AND events.locked_until = v.lease AND events.status = 'QUEUED'
       RETURNING events.id`,
        [events.map((e) => e.row.id), events.map((e) => e.lease), retryAt],
      );
      await enqueueDeliveries(
        client,
        rows.map((r) => r.id),
        rows.map(() => retryAt),
      );
    }, getBackgroundPool()),
  );
}

/**
 * Makes the next attempt of an event this process has claimed (deliverEvent's claim, or the fan-out's
 * insert for direct dispatch, lib/gateway/delivery/dispatch-queue.ts): checks the connection and destination
 * are still active, takes a destination slot (or reschedules), sends, gives the slot back once the
 * response is in, and records the attempt.
 * Resolves when the attempt is recorded (for CLI destinations: when the event is handed to the CLI);
 * `onAnswered` is called before that, as soon as the destination's part is over (the answer is in, or
 * nothing is sent), while the attempt is still being recorded.
 * Throws only on database errors; the lease then expires and the sweeper queues the event again.
 */
export async function deliverClaimed(claimed: ClaimedEvent, onAnswered: () => void = () => {}): Promise<void> {
  const config = getConfig();
  const { row: ev, lease } = claimed;

  if (!ev.connection_name || !ev.destination_type || ev.connection_disabled_at || ev.destination_disabled_at) {
    return release(ev.id, lease, "CANCELLED", null, "CANCELLED");
  }
  if (ev.paused_at) return release(ev.id, lease, "HOLD", null);

  // The slot first, with no await before it: the dispatch queue starts a delivery only when its destination
  // has a free slot, and counts on this call taking it (lib/gateway/delivery/dispatch-queue.ts).
  const destinationConfig = ev.destination_config ?? {};
  const slot = await acquireDestinationSlot(ev.destination_id, destinationConfig);
  if (!slot.ok) return release(ev.id, lease, "QUEUED", slot.retryAt);

  try {
    // A paused destination, an open breaker or a used-up pace puts the event back without an attempt
    // (docs/pipeline.md "Receiver-driven limits"); a destination nothing is wrong with costs no statement here.
    const limited = GATEWAY_DESTINATION_TYPES.find(ev.destination_type)?.receiverLimits !== false;
    const gate = limited ? await destinationGate("gateway", ev.destination_id, ev.team_id, config.deliveryTimeoutMs + 10_000) : null;
    if (gate && !gate.ok) return await release(ev.id, lease, "QUEUED", gate.retryAt);
    const rules = Array.isArray(ev.rules) ? (ev.rules as { type: string }[]) : [];
    const retryRule = (rules.find((r) => r.type === "retry") as RetryRule | undefined) ?? null;
    const attemptId = createId("attempt");
    const attemptNumber = ev.attempts + 1;
    const retryAfterMs = nextRetryDelay(retryRule, attemptNumber, null, retryJitterKey(ev.id, attemptNumber));
    const base = { eventId: ev.id, teamId: ev.team_id, destinationId: ev.destination_id, attemptId, attemptNumber, trigger: ev.next_trigger, lease, retryRule };
    // An event that cannot be prepared (stored data or a destination row nothing can be sent from, a
    // secret that does not decrypt) fails this attempt with the reason, like an answer-less failure,
    // instead of leaving its lease to expire again and again; it never holds up the others. Only
    // withSigningSecret reads the database: its errors propagate (the lease expires, the event is retried).
    const row = await withSigningSecret(ev);
    let delivery: ReturnType<typeof toEventDelivery> & { eventUrl: string; willRetryAfterS: number | null };
    let type: GatewayDestinationType;
    try {
      delivery = {
        ...toEventDelivery(row, attemptId),
        eventUrl: `${config.gatewayApiUrl}/2025-07-01/events/${ev.id}`,
        willRetryAfterS: retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
      };
      type = GATEWAY_DESTINATION_TYPES.get(ev.destination_type);
    } catch (err) {
      return recordAttempt({ ...base, outcome: preparationFailure(err) });
    }
    // The type sends (lib/gateway/destination-types); it calls `answered` once the destination is done
    // with this delivery, so its slot serves the next one while the attempt is recorded.
    const attributes = { "hookyard.event.id": ev.id, "hookyard.destination.id": ev.destination_id, "hookyard.attempt.number": attemptNumber };
    const outcome = await attemptSpan(
      ev.trace_parent,
      attributes,
      () =>
        type.deliver({
          attempt: base,
          connectionId: ev.webhook_id,
          delivery,
          timeoutMs: config.deliveryTimeoutMs,
          answered: () => {
            slot.release();
            onAnswered();
          },
        }),
      (o) => o && { status: o.status, success: o.status !== null && o.status >= 200 && o.status < 300, errorCode: o.errorCode },
    );
    if (!outcome) return;
    const success = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    // A Retry-After was honoured: the event waits for the pause without spending an attempt.
    const deferUntil =
      gate && (await noteAnswer(gate, { status: outcome.status, success, retryAfter: outcome.retryAfter, sent: outcome.requestedUrl !== null }));
    if (deferUntil) return release(ev.id, lease, "QUEUED", deferUntil);
    return recordAttempt({ ...base, outcome });
  } finally {
    slot.release();
  }
}
