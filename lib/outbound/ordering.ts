/**
 * Ordered delivery per key for outbound destinations (docs/outbound.md "Ordered delivery"), the design
 * of the gateway's (docs/pipeline.md "Ordered delivery") on `outbound_deliveries`. The order lives in
 * PostgreSQL, not in a worker's memory:
 *
 * - every delivery to an ordered destination carries its key (`ordering_key`, "" when the whole
 *   destination is one sequence) and its place (`ordering_pos`, from `outbound_ordering_seq`, taken by the
 *   statement that writes the publish: a publish answered before the next was sent has the smaller one);
 * - it is written **parked** (`next_attempt_at` NULL: not due), so the dispatchers' claim never scans the
 *   deliveries waiting behind their key's head; the head is made due (promoteOutboundHeads) by a statement
 *   after the publish commits, and the next one after the head ends (delivered, skipped, exhausted with
 *   `skip`, released), each after its own commit, so one of the two always sees the other;
 * - the claim (lib/outbound/delivery.ts) refuses a delivery while an earlier one of its key is pending or
 *   blocked (ORDERED_CLAIMABLE): a later delivery is never leased while an earlier one may still go;
 * - the worker's sweep (sweepOutboundOrderedHeads) makes due any head left parked for HEAD_STALLED_MS (a
 *   worker killed between the end of one delivery and the promotion of the next).
 *
 * Hand-written SQL over pg: these statements sit on the delivery hot path (docs/architecture.md).
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { getBackgroundPool } from "@/lib/db/pool";
import { readBlockedKeys, storedOrdering, type Ordering } from "@/lib/delivery/ordering";
import { fieldValue, keyText } from "@/lib/rules/field-path";

export { normalizeOrdering, storedOrdering, type BlockedKey, type Ordering } from "@/lib/delivery/ordering";

/** A key path: `topic`, `metadata.<name>`, or `data.<path>` (the gateway's `body.<path>` syntax: `data.customer.id`, `data.items[0].sku`). */
const ZOrderingKeyPath = z
  .string()
  .trim()
  .max(255)
  .regex(/^(topic|metadata\.[^.]+|data(\.[^.]+)+)$/, 'must be "topic", "metadata.<name>" or "data.<path>"');

/** An outbound destination's `ordering` setting (input). null: unordered. */
export const ZOutboundOrdering = z
  .strictObject({
    key: ZOrderingKeyPath.nullable()
      .optional()
      .describe('Where the ordering key is taken from: "topic", "metadata.<name>" or "data.<path>"; null: the whole destination is one sequence.'),
    on_exhausted: z
      .enum(["skip", "block"])
      .optional()
      .describe("When a delivery of a key exhausts its retries: `skip` (default) lets the next one go; `block` holds the key until it is released."),
  })
  .describe('Ordered delivery per key (docs/outbound.md "Ordered delivery"); null on update turns it off.');

/** The `ordering` of a destination as the API shows it: the setting and its blocked keys (oldest first, at most 100). */
export const ZOutboundOrderingView = z
  .object({
    key: z.string().nullable(),
    on_exhausted: z.enum(["skip", "block"]),
    blocked_keys: z
      .array(z.object({ key: z.string(), event_id: z.string(), blocked_at: z.iso.datetime() }))
      .describe("Keys held by a delivery that exhausted its retries under `block` (at most 100, oldest first)."),
  })
  .describe("Ordered delivery per key: the setting and its blocked keys (absent on unordered destinations).");

/**
 * The ordering key of a publish (`event`: its topic, metadata and data) for a destination ordered by
 * `ordering`: the value at its path as text (lib/rules/field-path.ts keyText: a missing value, or a
 * `key` of null, is the empty key ""); a text longer than MAX_KEY_LENGTH is replaced by its SHA-256.
 */
export function outboundOrderingKey(ordering: Ordering, event: { topic: string; metadata: Record<string, string>; data: unknown }): string {
  if (!ordering.key) return "";
  if (ordering.key === "topic") return event.topic;
  if (ordering.key.startsWith("metadata.")) return boundedKey(keyText(event.metadata[ordering.key.slice("metadata.".length)]));
  return boundedKey(keyText(fieldValue({ data: event.data }, ordering.key)));
}

/** Longest key kept as it is, characters; a longer one is stored as `sha256:<hex>` of its text (an index entry has to stay small). */
export const MAX_KEY_LENGTH = 255;

const boundedKey = (key: string) => (key.length <= MAX_KEY_LENGTH ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`);

/** The key of each publish for a stored `ordering` column value, or null when the destination is unordered. */
export function orderingKeyFor(stored: unknown, event: { topic: string; metadata: Record<string, string>; data: unknown }): string | null {
  const ordering = storedOrdering(stored);
  return ordering ? outboundOrderingKey(ordering, event) : null;
}

/** Waiting in its key's sequence (or holding it): pending, or blocked. `t` is the table's alias. */
const WAITING = (t: string) => `(${t}.status = 'pending' OR ${t}.ordering_blocked_at IS NOT NULL)`;

/**
 * The claim's condition (alias `o`): an unordered delivery (`ordering_key IS NULL`, which never evaluates
 * the rest), or one with no earlier delivery of its key pending or blocked.
 */
export const ORDERED_CLAIMABLE = `(o.ordering_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM outbound_deliveries p
   WHERE p.destination_id = o.destination_id AND p.ordering_key = o.ordering_key AND ${WAITING("p")}
     AND (p.ordering_pos, p.event_id) < (o.ordering_pos, o.event_id)))`;

/**
 * The SET list of a retry (POST /retry, a redrive) of delivery `t` (the table's name or alias), beside
 * `status = 'pending'`: an unordered one is due now; an ordered one is parked and its key's head made due
 * afterwards (promoteOutboundHeads). A blocked one is released and keeps its place, as does one still
 * waiting; a finished one goes to the end of its key's sequence.
 */
export const retrySet = (t: string) =>
  `next_attempt_at = CASE WHEN ${t}.ordering_key IS NULL THEN now() END,
   ordering_pos = CASE WHEN ${t}.ordering_key IS NOT NULL AND ${t}.ordering_blocked_at IS NULL AND ${t}.status <> 'pending' THEN nextval('outbound_ordering_seq') ELSE ${t}.ordering_pos END,
   ordering_blocked_at = NULL`;

/** One ordering key of one destination. */
export type OrderingKeyRef = { destination_id: string; ordering_key: string | null };

/**
 * Makes the head (first pending or blocked delivery, by place) of each of `keys` due when it is pending,
 * not blocked and parked; keys of null (unordered deliveries) are ignored. Runs on `db` (a transaction's
 * client, or the pool after a commit). Returns how many heads were made due; throws on database errors
 * (the sweep then makes them due).
 */
export async function promoteOutboundHeads(keys: OrderingKeyRef[], db: Pick<pg.PoolClient, "query"> = getBackgroundPool()): Promise<number> {
  const ordered = keys.filter((k) => k.ordering_key !== null);
  if (ordered.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE outbound_deliveries o SET next_attempt_at = now(), updated_at = now()
       FROM (SELECT DISTINCT d, k FROM unnest($1::text[], $2::text[]) AS k(d, k)) k
       CROSS JOIN LATERAL (SELECT h.event_id, h.destination_id, h.status, h.ordering_blocked_at FROM outbound_deliveries h
                            WHERE h.destination_id = k.d AND h.ordering_key = k.k AND ${WAITING("h")}
                            ORDER BY h.ordering_pos, h.event_id LIMIT 1) h
      WHERE o.event_id = h.event_id AND o.destination_id = h.destination_id AND h.status = 'pending' AND h.ordering_blocked_at IS NULL
        AND o.status = 'pending' AND o.next_attempt_at IS NULL`,
    [ordered.map((k) => k.destination_id), ordered.map((k) => k.ordering_key)],
  );
  return rowCount ?? 0;
}

/** How long a head may stay parked before the sweep makes it due, ms. */
const HEAD_STALLED_MS = 5000;

/**
 * The safety net (run by the worker's sweeper, lib/worker/index.ts): every key whose head is pending, not
 * blocked and parked since HEAD_STALLED_MS is made due. Covers a worker killed between the end of a
 * delivery and the promotion of the next, and a publish and an end that missed each other. Returns how
 * many heads it made due; throws on database errors.
 */
export async function sweepOutboundOrderedHeads(): Promise<number> {
  const { rowCount } = await getBackgroundPool().query(
    `UPDATE outbound_deliveries o SET next_attempt_at = now(), updated_at = now()
       FROM (SELECT DISTINCT ON (destination_id, ordering_key) event_id, destination_id, status, next_attempt_at, ordering_blocked_at, updated_at
               FROM outbound_deliveries WHERE ordering_key IS NOT NULL AND ${WAITING("outbound_deliveries")}
              ORDER BY destination_id, ordering_key, ordering_pos, event_id) h
      WHERE o.event_id = h.event_id AND o.destination_id = h.destination_id AND h.status = 'pending' AND h.ordering_blocked_at IS NULL
        AND h.next_attempt_at IS NULL AND h.updated_at < now() - make_interval(secs => $1::float8 / 1000) AND o.next_attempt_at IS NULL`,
    [HEAD_STALLED_MS],
  );
  return rowCount ?? 0;
}

/** The blocked keys of each of `destinationIds` (destination id → keys, oldest first; at most 100 each). One statement; none for an empty list. */
export const blockedKeysOf = (destinationIds: string[]) => readBlockedKeys("outbound_deliveries", "event_id", destinationIds);

/**
 * Releases the blocked keys of destination `destinationId` (only `keys` when given): the blocking
 * deliveries stay `failed`, and the next of each key is made due. Returns how many keys were released
 * and how many heads were made due. Throws on database errors.
 */
export async function releaseOutboundKeys(destinationId: string, keys?: string[]): Promise<{ released: number; promoted: number }> {
  const { rows } = await getBackgroundPool().query<OrderingKeyRef>(
    `UPDATE outbound_deliveries SET ordering_blocked_at = NULL, updated_at = now()
      WHERE destination_id = $1 AND ordering_key IS NOT NULL AND ordering_blocked_at IS NOT NULL AND ($2::text[] IS NULL OR ordering_key = ANY($2))
     RETURNING destination_id, ordering_key`,
    [destinationId, keys ?? null],
  );
  const promoted = await promoteOutboundHeads(rows);
  return { released: new Set(rows.map((r) => r.ordering_key)).size, promoted };
}
