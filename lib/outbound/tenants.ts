/**
 * Outbound tenants (docs/outbound.md#tenants): keyset-paged list with `count`
 * and its filters (served on both forms: PostgreSQL searches, no Redis module needed), get,
 * idempotent `PUT` (201 created, 200 updated; `metadata` replaced), `DELETE` (its destinations go
 * with it), the tenant JWT and the portal URL.
 */
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { outboundBadRequest, outboundNotFound } from "@/lib/outbound/errors";
import { type ParsedQuery, parseDate } from "@/lib/http/query";
import { tenantToken } from "@/lib/outbound/auth";
import { wantsHealth, withTenantHealth } from "@/lib/outbound/delivery-health";
import { decodeCursor as decode, encodeCursor as encode, single as one, values as many } from "@/lib/outbound/params";

type TenantRow = { id: string; metadata: Record<string, unknown>; created_at: Date; updated_at: Date; destinations_count: number; topics: string[] | null };

/** Tenant ids: any caller-chosen string that fits a path segment. */
const ZTenantId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");
export const ZTenantPut = z.strictObject({ metadata: z.record(z.string(), z.string()).optional() });

const SELECT = `SELECT t.id, t.metadata, t.created_at, t.updated_at,
       (SELECT count(*)::int FROM outbound_destinations d WHERE d.tenant_id = t.id) AS destinations_count,
       (SELECT array_agg(DISTINCT x ORDER BY x) FROM outbound_destinations d, unnest(d.topics) AS x WHERE d.tenant_id = t.id) AS topics
  FROM outbound_tenants t`;

/** The API model: `{id, destinations_count, topics (union of its destinations'), metadata, created_at, updated_at}`. */
export const toTenant = (r: TenantRow) => ({
  id: r.id,
  destinations_count: r.destinations_count,
  topics: r.topics ?? [],
  metadata: r.metadata,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

// Reads stay SQL: destinations_count and the topic union (array_agg DISTINCT in the database's collation order) are aggregates over destinations.
/** Tenant `id`; throws 404 `tenant not found`. */
export async function getTenant(id: string) {
  const { rows } = await getPool().query<TenantRow>(`${SELECT} WHERE t.id = $1`, [id]);
  if (!rows[0]) throw outboundNotFound("tenant not found");
  return toTenant(rows[0]);
}

/** `PUT /tenants/{id}`: creates (201) or replaces its metadata (200). Stays SQL: one INSERT … ON CONFLICT whose `xmax = 0` tells created from updated, which Prisma's upsert does not. */
export async function putTenant(id: string, body: unknown): Promise<{ status: number; body: ReturnType<typeof toTenant> }> {
  const tenantId = ZTenantId.parse(id);
  const { metadata } = ZTenantPut.parse(body ?? {});
  const { rows } = await getPool().query<{ inserted: boolean }>(
    `INSERT INTO outbound_tenants (id, metadata) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET metadata = coalesce($3, outbound_tenants.metadata), updated_at = now()
     RETURNING (xmax = 0) AS inserted`,
    [tenantId, JSON.stringify(metadata ?? {}), metadata === undefined ? null : JSON.stringify(metadata)],
  );
  return { status: rows[0].inserted ? 201 : 200, body: await getTenant(tenantId) };
}

/** `DELETE /tenants/{id}`: `{success: true}`; throws 404. */
export async function deleteTenant(id: string) {
  const { count } = await getPrisma().outboundTenant.deleteMany({ where: { id } });
  if (!count) throw outboundNotFound("tenant not found");
  return { success: true };
}

/**
 * `GET /tenants`: `id` (repeatable), `limit` 1–100 (20), `dir` (desc), `order_by` created_at,
 * `created_at[gte|lte]`, `next`/`prev` (not both), `search` (a case-insensitive part of the id),
 * `include=health` (each tenant's `health`, lib/outbound/delivery-health.ts) → `{models, pagination, count}`
 * (`count`: all that match). `onlyTenant` (a JWT caller) restricts it to that tenant. Throws 400.
 */
export async function listTenants(query: ParsedQuery, onlyTenant?: string) {
  const limit = Number(one(query, "limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw outboundBadRequest("limit must be an integer from 1 to 100");
  const dir = one(query, "dir") ?? "desc";
  if (dir !== "asc" && dir !== "desc") throw outboundBadRequest("dir must be asc or desc");
  const orderBy = one(query, "order_by") ?? "created_at";
  if (orderBy !== "created_at") throw outboundBadRequest("order_by must be created_at");
  const [next, prev] = [one(query, "next"), one(query, "prev")];
  if (next && prev) throw outboundBadRequest("next and prev cannot be used together");
  const params: unknown[] = [];
  const where: string[] = [];
  const ids = many(query, "id");
  if (ids) where.push(`t.id = ANY($${params.push(ids)})`);
  // `search`: a case-insensitive part of the id (docs/outbound.md "Delivery health"); a scan of the tenant ids.
  const search = one(query, "search")?.trim();
  if (search) where.push(`strpos(lower(t.id), lower($${params.push(search)})) > 0`);
  if (onlyTenant) where.push(`t.id = $${params.push(onlyTenant)}`);
  const range = query.created_at;
  if (range !== undefined) {
    if (typeof range !== "object" || Array.isArray(range)) throw outboundBadRequest("created_at takes created_at[gte] and created_at[lte]");
    for (const [op, sym] of [
      ["gte", ">="],
      ["lte", "<="],
    ] as const) {
      const v = range[op];
      if (v === undefined) continue;
      if (typeof v !== "string") throw outboundBadRequest(`created_at[${op}] must be a date`);
      let d: Date;
      try {
        d = parseDate(`created_at[${op}]`, v);
      } catch {
        throw outboundBadRequest(`created_at[${op}] must be a date or RFC 3339 time`);
      }
      where.push(`t.created_at ${sym} $${params.push(d)}`);
    }
  }
  const countSql = `SELECT count(*)::int AS n FROM outbound_tenants t ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`;
  const { rows: counted } = await getPool().query<{ n: number }>(countSql, params);
  const cursor = next ? decode(next) : prev ? decode(prev) : null;
  const backwards = Boolean(prev);
  const scanAsc = (dir === "asc") !== backwards;
  const pageWhere = [...where];
  const pageParams = [...params];
  if (cursor) pageWhere.push(`(t.created_at, t.id) ${scanAsc ? ">" : "<"} ($${pageParams.push(cursor.time)}, $${pageParams.push(cursor.id)})`);
  const order = scanAsc ? "ASC" : "DESC";
  const { rows } = await getPool().query<TenantRow>(
    `${SELECT} ${pageWhere.length ? `WHERE ${pageWhere.join(" AND ")}` : ""} ORDER BY t.created_at ${order}, t.id ${order} LIMIT ${limit + 1}`,
    pageParams,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const at = (r: TenantRow | undefined) => (r ? encode(r.created_at, r.id) : null);
  const hasNext = backwards ? true : more;
  const hasPrev = backwards ? more : Boolean(cursor);
  const models = page.map(toTenant);
  return {
    models: wantsHealth(query) ? await withTenantHealth(models) : models,
    pagination: { order_by: "created_at", dir, limit, next: hasNext ? at(page.at(-1)) : null, prev: hasPrev ? at(page[0]) : null },
    count: counted[0].n,
  };
}

/** `GET /tenants/{id}/token`: `{token, tenant_id}`. Throws 404. */
export async function tokenFor(id: string) {
  await getTenant(id);
  return { token: await tenantToken(id), tenant_id: id };
}

/** `GET /tenants/{id}/portal?theme=light|dark`: `{redirect_url, tenant_id}` to `{PUBLIC_URL}/portal?token=…`. Throws 400, 404. */
export async function portalFor(id: string, query: ParsedQuery) {
  const theme = one(query, "theme");
  if (theme !== undefined && theme !== "light" && theme !== "dark") throw outboundBadRequest("theme must be light or dark");
  const { token } = await tokenFor(id);
  const url = new URL(`${getConfig().publicUrl}/portal`);
  url.searchParams.set("token", token);
  if (theme) url.searchParams.set("theme", theme);
  return { redirect_url: url.toString(), tenant_id: id };
}
