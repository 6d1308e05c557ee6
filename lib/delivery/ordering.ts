/**
 * A destination's `ordering` setting as stored, shared by the gateway's destinations (docs/pipeline.md
 * "Ordered delivery") and the outbound service's (docs/outbound.md "Ordered delivery"): `{key,
 * on_exhausted}`, null for an unordered destination. Each product validates its own key paths.
 */

import { getBackgroundPool } from "@/lib/db/pool";

/** An `ordering` as an API gives it: both fields optional. */
export type OrderingInput = { key?: string | null; on_exhausted?: "skip" | "block" };

/** The stored form: both fields present. */
export type Ordering = { key: string | null; on_exhausted: "skip" | "block" };

/** `ordering` as stored (the `ordering` column) from an API input; null for unordered. */
export function normalizeOrdering(input: OrderingInput | null): Ordering | null {
  return input ? { key: input.key ?? null, on_exhausted: input.on_exhausted ?? "skip" } : null;
}

/** A stored `ordering` column value read back (anything else than an object is unordered). */
export function storedOrdering(value: unknown): Ordering | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as { key?: unknown; on_exhausted?: unknown };
  return { key: typeof v.key === "string" ? v.key : null, on_exhausted: v.on_exhausted === "block" ? "block" : "skip" };
}

/** A key held back by a delivery that exhausted its retries (`on_exhausted: "block"`). */
export type BlockedKey = { key: string; event_id: string; blocked_at: string };

/**
 * The blocked keys of each of `destinationIds` (destination id → keys, oldest first; at most 100 each) in
 * `table` (the product's table of ordered deliveries, with `destination_id`, `ordering_key`,
 * `ordering_blocked_at` and the event's id in `idColumn`). One statement; none for an empty list.
 */
export async function readBlockedKeys(table: string, idColumn: string, destinationIds: string[]): Promise<Map<string, BlockedKey[]>> {
  const out = new Map<string, BlockedKey[]>();
  if (destinationIds.length === 0) return out;
  const { rows } = await getBackgroundPool().query<{ destination_id: string; ordering_key: string; id: string; ordering_blocked_at: Date }>(
    `SELECT destination_id, ordering_key, id, ordering_blocked_at FROM (
       SELECT destination_id, ordering_key, ${idColumn} AS id, ordering_blocked_at,
              row_number() OVER (PARTITION BY destination_id ORDER BY ordering_blocked_at, ${idColumn}) AS n
         FROM ${table} WHERE destination_id = ANY($1) AND ordering_key IS NOT NULL AND ordering_blocked_at IS NOT NULL) b
      WHERE n <= 100 ORDER BY destination_id, n`,
    [destinationIds],
  );
  for (const r of rows) {
    const list = out.get(r.destination_id) ?? [];
    list.push({ key: r.ordering_key, event_id: r.id, blocked_at: r.ordering_blocked_at.toISOString() });
    out.set(r.destination_id, list);
  }
  return out;
}
