/**
 * Delivery health of tenants and destinations (docs/outbound.md "Delivery health"): over the attempts of the
 * last {@link HEALTH_WINDOW_HOURS} hours, how many there were, how many failed, the failure rate and the
 * last failure (time and code). Served as the optional `health` field of `GET /tenants?include=health`
 * and `GET /tenants/{id}/destinations?include=health`, and as the cross-tenant list of failing
 * destinations `GET /destination-health` (admin key only).
 * Stays SQL: one GROUP BY per page over the (tenant_id, time) or (destination_id, time) index of
 * outbound_attempts, pruned to the last day's partitions by the time bound.
 */
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import type { ParsedQuery } from "@/lib/http/query";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { outboundBadRequest } from "@/lib/outbound/errors";
import { single } from "@/lib/outbound/params";

/** The window the health fields cover, hours back from now. */
export const HEALTH_WINDOW_HOURS = 24;

/** The `health` field: counts over the window; `failure_rate` 0–1 (null without attempts); the last failure's time and code. */
export type DeliveryHealth = {
  window_hours: number;
  attempts: number;
  failed: number;
  failure_rate: number | null;
  last_failure_at: string | null;
  last_failure_code: string | null;
};

type HealthRow = { key: string; tenant_id: string; attempts: number; failed: number; last_failure_at: Date | null; last_failure_code: string | null };

const AGGREGATES = `count(*)::int AS attempts,
       count(*) FILTER (WHERE status = 'failed')::int AS failed,
       max(time) FILTER (WHERE status = 'failed') AS last_failure_at,
       (array_agg(code ORDER BY time DESC) FILTER (WHERE status = 'failed'))[1] AS last_failure_code`;

const since = () => new Date(Date.now() - HEALTH_WINDOW_HOURS * 3_600_000);

/** The API form of one aggregate row (no row: no attempts in the window). */
function toHealth(r: Pick<HealthRow, "attempts" | "failed" | "last_failure_at" | "last_failure_code"> | undefined): DeliveryHealth {
  const attempts = r?.attempts ?? 0;
  const failed = r?.failed ?? 0;
  return {
    window_hours: HEALTH_WINDOW_HOURS,
    attempts,
    failed,
    failure_rate: attempts ? Math.round((failed / attempts) * 10_000) / 10_000 : null,
    last_failure_at: r?.last_failure_at ? r.last_failure_at.toISOString() : null,
    last_failure_code: r?.last_failure_code ?? null,
  };
}

/** Health of each of `ids` grouped by `column` (`tenant_id` or `destination_id`): a Map by id, every id present. */
async function healthBy(column: "tenant_id" | "destination_id", ids: string[]): Promise<Map<string, DeliveryHealth>> {
  const out = new Map<string, DeliveryHealth>();
  if (!ids.length) return out;
  const { rows } = await getPool().query<HealthRow>(
    `SELECT ${column} AS key, ${AGGREGATES} FROM outbound_attempts WHERE ${column} = ANY($1) AND time >= $2 GROUP BY ${column}`,
    [ids, since()],
  );
  const found = new Map(rows.map((r) => [r.key, r]));
  for (const id of ids) out.set(id, toHealth(found.get(id)));
  return out;
}

/** `items` with `health` added (the `include=health` of the tenant list). */
export async function withTenantHealth<T extends { id: string }>(items: T[]): Promise<(T & { health: DeliveryHealth })[]> {
  const health = await healthBy(
    "tenant_id",
    items.map((t) => t.id),
  );
  return items.map((t) => ({ ...t, health: health.get(t.id)! }));
}

/** `items` with `health` added (the `include=health` of a tenant's destination list). */
export async function withDestinationHealth<T extends { id: string }>(items: T[]): Promise<(T & { health: DeliveryHealth })[]> {
  const health = await healthBy(
    "destination_id",
    items.map((d) => d.id),
  );
  return items.map((d) => ({ ...d, health: health.get(d.id)! }));
}

/** True when the list query asks for `include=health` (`include` may repeat). Throws 400 for a malformed `include`. */
export function wantsHealth(q: ParsedQuery): boolean {
  const v = q.include;
  if (v === undefined) return false;
  const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : Object.values(v);
  if (list.some((x) => typeof x !== "string")) throw outboundBadRequest("include must be a list of values");
  return (list as string[]).includes("health");
}

/**
 * `GET /destination-health` (admin key): destinations of every tenant with at least one failed attempt in
 * the window, most failures first, `limit` 1–100 (default 50) →
 * `{models: [{tenant_id, destination_id, destination: {type, target, disabled_at} | null (deleted), health}], window_hours}`.
 * Throws 400 for a bad `limit`.
 */
export async function failingDestinations(q: ParsedQuery) {
  const limit = Number(single(q, "limit") ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw outboundBadRequest("limit must be an integer from 1 to 100");
  const { rows } = await getPool().query<HealthRow>(
    `SELECT destination_id AS key, tenant_id, ${AGGREGATES}
       FROM outbound_attempts WHERE time >= $1
      GROUP BY tenant_id, destination_id
     HAVING count(*) FILTER (WHERE status = 'failed') > 0
      ORDER BY failed DESC, last_failure_at DESC, destination_id
      LIMIT $2`,
    [since(), limit],
  );
  const destinations = await getPrisma().outboundDestination.findMany({
    where: { id: { in: rows.map((r) => r.key) } },
    select: { id: true, type: true, config: true, disabledAt: true },
  });
  const byId = new Map(destinations.map((d) => [d.id, d]));
  return {
    body: {
      models: rows.map((r) => {
        const d = byId.get(r.key);
        return {
          tenant_id: r.tenant_id,
          destination_id: r.key,
          destination: d
            ? {
                type: d.type,
                target: OUTBOUND_DESTINATION_TYPES.find(d.type)?.target(d.config as Record<string, string>).target ?? "",
                disabled_at: d.disabledAt ? d.disabledAt.toISOString() : null,
              }
            : null,
          health: toHealth(r),
        };
      }),
      window_hours: HEALTH_WINDOW_HOURS,
    },
  };
}
