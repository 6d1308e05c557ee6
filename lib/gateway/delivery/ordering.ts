/**
 * Ordered delivery per key (docs/pipeline.md "Ordered delivery"). A destination with `ordering` set
 * delivers the events of each ordering key one at a time, in the order they were accepted. The
 * guarantee lives in PostgreSQL, not in a worker's memory:
 *
 * - every event of an ordered destination carries its key (`events.ordering_key`, "" when the whole
 *   destination is one sequence) and its place (`events.ordering_pos`: the accepting request's id, or
 *   a fresh time-ordered id for an event re-accepted by a retry or a replay);
 * - a claim (lib/gateway/delivery/deliver-event.ts) takes an ordered event only when no earlier event of
 *   its key is unfinished (QUEUED, SCHEDULED, HOLD) or blocked, and no request accepted before it is
 *   still waiting for its fan-out: a later event can never be leased while an earlier one may still go;
 * - when a key's head ends (delivered, cancelled, exhausted with `skip`, released), the next one gets
 *   a job (promoteHeads); a sweep (sweepOrderedHeads) gives a job to any head left without one (a worker
 *   killed between the two).
 *
 * Hand-written SQL over pg: these statements sit on the delivery hot path (docs/architecture.md).
 */
import type pg from "pg";
import { z } from "zod";
import { getBackgroundPool } from "@/lib/db/pool";
import { DELIVER_TASK } from "@/lib/delivery/jobs";
import { fieldValue, keyText } from "@/lib/rules/field-path";
import { createId } from "@/lib/ids";
import type { TransformRequest } from "@/lib/rules/run-transformation";
import { type Ordering, readBlockedKeys } from "@/lib/delivery/ordering";

export { normalizeOrdering, storedOrdering, type BlockedKey, type Ordering } from "@/lib/delivery/ordering";

/** A key path: `body.<path>` (JSON path into the body as delivered) or `headers.<name>`. */
const ZOrderingKeyPath = z
  .string()
  .trim()
  .max(255)
  .regex(/^(body(\.[^.]+)+|headers\.[A-Za-z0-9!#$%&'*+.^_`|~-]+)$/, 'must be "body.<path>" or "headers.<name>"');

/** A destination's `ordering` setting (input and output). null/absent: unordered. */
export const ZOrdering = z
  .strictObject({
    key: ZOrderingKeyPath.nullable()
      .optional()
      .describe('Where the ordering key is taken from: "body.<path>" or "headers.<name>"; null: the whole destination is one sequence.'),
    on_exhausted: z
      .enum(["skip", "block"])
      .optional()
      .describe("When an event of a key exhausts its retries: `skip` (default) lets the next one go; `block` holds the key until it is released."),
  })
  .meta({ id: "DestinationOrdering" });

/**
 * The ordering key of an event as it will be delivered (`request`: the rule view after transformations):
 * a string or number is its text, another JSON value its canonical JSON, and a missing value (or no
 * key path) the empty key "" (docs/pipeline.md "Ordered delivery"). Header names match without case.
 */
export function orderingKeyOf(ordering: Ordering, request: TransformRequest): string {
  if (!ordering.key) return "";
  let value: unknown;
  if (ordering.key.startsWith("headers.")) {
    const name = ordering.key.slice("headers.".length).toLowerCase();
    const found = Object.entries(request.headers ?? {}).find(([k]) => k.toLowerCase() === name);
    value = found?.[1];
  } else {
    value = fieldValue({ body: request.body }, ordering.key);
  }
  return keyText(value);
}

/** A fresh place at the end of every sequence: a time-ordered id of now (a retried or replayed event is accepted again). */
export const freshOrderingPos = (now = Date.now()) => createId("request", now);

/**
 * How long a request may wait for its fan-out and still hold back the ordered events accepted after it,
 * ms: a request its fan-out keeps refusing (docs/pipeline.md "Poison requests") stops holding them after this.
 */
export const FANOUT_WAIT_MAX_MS = 60_000;

/**
 * The claim's condition for an ordered event (`events` is the row being claimed): no earlier event of its
 * key unfinished or blocked, and no request accepted before it still waiting for fan-out (for at most
 * FANOUT_WAIT_MAX_MS). Unordered events (`ordering_key IS NULL`) never evaluate it.
 */
export const ORDERED_CLAIMABLE = `(events.ordering_key IS NULL OR (
  NOT EXISTS (SELECT 1 FROM events p
               WHERE p.destination_id = events.destination_id AND p.ordering_key = events.ordering_key
                 AND (p.status IN ('QUEUED', 'SCHEDULED', 'HOLD') OR p.ordering_blocked_at IS NOT NULL)
                 AND (p.ordering_pos, p.id) < (events.ordering_pos, events.id))
  AND NOT EXISTS (SELECT 1 FROM request_fanouts f
                   WHERE f.request_id COLLATE "C" < events.ordering_pos
                     AND f.request_id COLLATE "C" >= hookyard_id_bound('req_', (extract(epoch FROM now()) * 1000)::bigint - ${FANOUT_WAIT_MAX_MS}))))`;

/**
 * The SET list of a retry (manual or bulk) for ordered events: a blocked event is released; a finished
 * one is accepted again at the end of its key's sequence (`posParam`, a fresh ordering pos); an
 * unfinished or blocked one keeps its place.
 */
export const retryOrderingSet = (posParam: string) =>
  `ordering_blocked_at = NULL, ordering_pos = CASE WHEN ordering_key IS NOT NULL AND ordering_blocked_at IS NULL AND status NOT IN ('QUEUED', 'SCHEDULED', 'HOLD') THEN ${posParam} ELSE ordering_pos END`;

/** One ordering key of one destination. */
export type OrderingKeyRef = { destination_id: string; ordering_key: string };

/** The head (first unfinished or blocked event) of each key of `keysFrom` (a `k(d, k)` relation), as a `h` row per key. */
export const headsOf = (keysFrom: string) => `
SELECT h.* FROM ${keysFrom}
 CROSS JOIN LATERAL (SELECT e.id, e.status, e.locked_until, e.next_attempt_at, e.ordering_blocked_at FROM events e
                      WHERE e.destination_id = k.d AND e.ordering_key = k.k
                        AND (e.status IN ('QUEUED', 'SCHEDULED', 'HOLD') OR e.ordering_blocked_at IS NOT NULL)
                      ORDER BY e.ordering_pos, e.id LIMIT 1) h`;

/** A head that should be claimed now and is not: due, not blocked, not leased (or its lease expired). */
export const WAITING_HEAD = `h.status IN ('QUEUED', 'SCHEDULED') AND h.ordering_blocked_at IS NULL AND (h.locked_until IS NULL OR h.locked_until < now())`;

/**
 * Gives the head of each of `keys` a delivery job when it is due and not being delivered (after the event
 * before it ended). Runs on `db` (a transaction's client: the jobs commit with it). A head given a job
 * twice is harmless (the second claim finds it leased or finished). Returns the number of jobs added;
 * throws on database errors (the sweep then gives the head its job).
 */
export async function promoteHeads(keys: OrderingKeyRef[], db: pg.Pool | pg.PoolClient = getBackgroundPool()): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await db.query(
    `SELECT graphile_worker.add_job($3, json_build_object('event_id', h.id), max_attempts => 10::smallint)
       FROM (${headsOf("(SELECT DISTINCT d, k FROM unnest($1::text[], $2::text[]) AS k(d, k)) k")}) h
      WHERE ${WAITING_HEAD} AND (h.next_attempt_at IS NULL OR h.next_attempt_at <= now())`,
    [keys.map((k) => k.destination_id), keys.map((k) => k.ordering_key), DELIVER_TASK],
  );
  return rowCount ?? 0;
}

/** How long a due head may wait unclaimed before the sweep gives it a job of its own, ms. */
const HEAD_STALLED_MS = 5000;

/**
 * The safety net of ordered delivery (run by the worker's sweeper, lib/worker/index.ts): every key
 * whose head is due, not blocked and not being delivered since HEAD_STALLED_MS gets a job for it (keyed
 * per event, so repeated sweeps add none). Covers a worker killed between finishing an event and
 * promoting the next, and a head whose lease expired. Returns the number of heads found; throws on
 * database errors.
 */
export async function sweepOrderedHeads(): Promise<number> {
  const { rowCount } = await getBackgroundPool().query(
    `SELECT graphile_worker.add_job($1, json_build_object('event_id', h.id), job_key => 'ordered:' || h.id, job_key_mode => 'preserve_run_at', max_attempts => 10::smallint)
       FROM (SELECT DISTINCT ON (destination_id, ordering_key) id, status, locked_until, next_attempt_at, ordering_blocked_at, updated_at FROM events
              WHERE ordering_key IS NOT NULL AND (status IN ('QUEUED', 'SCHEDULED', 'HOLD') OR ordering_blocked_at IS NOT NULL)
              ORDER BY destination_id, ordering_key, ordering_pos, id) h
      WHERE ${WAITING_HEAD} AND COALESCE(h.next_attempt_at, h.updated_at) < now() - make_interval(secs => $2::float8 / 1000)
      LIMIT 1000`,
    [DELIVER_TASK, HEAD_STALLED_MS],
  );
  return rowCount ?? 0;
}

/** The blocked keys of each of `destinationIds` (destination id → keys, oldest first; at most 100 each). */
export const blockedKeysOf = (destinationIds: string[]) => readBlockedKeys("events", "id", destinationIds);

/**
 * Releases the blocked keys of destination `destinationId` (only `keys` when given): the blocking events
 * stay FAILED, and the next event of each key goes out. Returns how many keys were released. Throws on
 * database errors.
 */
export async function releaseBlockedKeys(destinationId: string, keys?: string[]): Promise<number> {
  const { rows } = await getBackgroundPool().query<OrderingKeyRef>(
    `UPDATE events SET ordering_blocked_at = NULL, updated_at = now()
      WHERE destination_id = $1 AND ordering_key IS NOT NULL AND ordering_blocked_at IS NOT NULL AND ($2::text[] IS NULL OR ordering_key = ANY($2))
     RETURNING destination_id, ordering_key`,
    [destinationId, keys ?? null],
  );
  await promoteHeads(rows);
  return new Set(rows.map((r) => r.ordering_key)).size;
}
