/**
 * Outbound events, attempts and manual retry (docs/outbound.md#events-attempts-metrics-health,
 * docs/outbound.md#manual-retry): `/events`, `/events/{id}`, `/attempts`, `/attempts/{id}`,
 * the destination attempt routes, with their filters, `include`, the paging envelope `{models,
 * pagination}` (null cursors) and tenant-JWT scoping; `POST /retry` with its four rules (docs/outbound.md#manual-retry).
 */
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { measure, type MetricsTable, parseGranularity, runMetrics } from "@/lib/metrics/query";
import { inTransaction } from "@/lib/db/transaction";
import { isAppError } from "@/lib/http/errors";
import { outboundBadRequest, outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import { type ParsedQuery, parseDate } from "@/lib/http/query";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { enqueueOutboundDeliveries } from "@/lib/outbound/delivery";
import { toDestination } from "@/lib/outbound/destinations";
import { transformationAccess } from "@/lib/outbound/transformation";
import { decodeCursor as decode, encodeCursor as encode, single, values } from "@/lib/outbound/params";
import { filterMatches, topicMatches } from "@/lib/outbound/publish";

type EventRow = {
  id: string;
  tenant_id: string;
  topic: string;
  time: Date;
  eligible_for_retry: boolean;
  metadata: Record<string, string> | null;
  data: Buffer;
  matched_destination_ids: string[];
  destination_id: string | null;
  schema_version?: number | null;
  schema_warnings?: string[] | null;
};
type AttemptRow = {
  id: string;
  event_id: string;
  tenant_id: string;
  destination_id: string;
  destination_type: string;
  topic: string;
  status: string;
  code: string | null;
  attempt_number: number;
  manual: boolean;
  latency_ms: number | null;
  response_data: unknown;
  /** The destination's transformation output (docs/outbound.md "Transformations"); null when none ran. */
  transformation: unknown;
  time: Date;
};

const parseData = (b: Buffer) => {
  try {
    return JSON.parse(b.toString("utf8")) as unknown;
  } catch {
    return b.toString("utf8");
  }
};
/** An event: the summary (`id, tenant_id, topic, time, eligible_for_retry, metadata, matched_destination_ids`, `schema_version` and `schema_warnings` when checked), plus `data` in the full form. */
export const toEvent = (r: EventRow, full = true) => ({
  id: r.id,
  tenant_id: r.tenant_id,
  topic: r.topic,
  time: r.time.toISOString(),
  eligible_for_retry: r.eligible_for_retry,
  metadata: r.metadata ?? {},
  matched_destination_ids: r.matched_destination_ids,
  // The schema version it was checked against and the failures `warn` accepted (docs/outbound.md "Event catalog"): only on checked events.
  ...(r.schema_version != null ? { schema_version: r.schema_version } : {}),
  ...(r.schema_warnings ? { schema_warnings: r.schema_warnings } : {}),
  ...(full ? { data: parseData(r.data) } : {}),
});

/** The tenant ids a caller may read: a JWT's own (a `tenant_id` naming another is 403), or the admin's filter. */
function scope(q: ParsedQuery, caller: OutboundCaller): string[] | undefined {
  const asked = values(q, "tenant_id");
  if (caller.kind === "tenant") {
    if (asked && asked.some((t) => t !== caller.tenantId)) throw outboundForbidden();
    return [caller.tenantId];
  }
  return asked;
}

/** The time filter operators and their SQL: a Map, so `time[toString]` is unknown like any other name. */
const TIME_OPERATORS = new Map([
  ["gte", ">="],
  ["lte", "<="],
  ["gt", ">"],
  ["lt", "<"],
]);

/** One keyset page over `table` (alias x) by (time, id): `time[gte|lte|gt|lt]`, `limit` (100, at most 1000), `dir`, `next`/`prev`. */
async function page<R extends { time: Date; id: string }>(
  table: string,
  where: string[],
  params: unknown[],
  q: ParsedQuery,
): Promise<{ rows: R[]; pagination: Record<string, unknown> }> {
  const limit = Math.min(1000, Number(single(q, "limit") ?? 100));
  if (!Number.isInteger(limit) || limit < 1) throw outboundBadRequest("limit must be a positive integer");
  const dir = single(q, "dir") ?? "desc";
  if (dir !== "asc" && dir !== "desc") throw outboundInvalid(["dir must be asc or desc"]);
  if ((single(q, "order_by") ?? "time") !== "time") throw outboundBadRequest("order_by must be time");
  const range = q.time;
  if (range !== undefined) {
    if (typeof range !== "object" || Array.isArray(range)) throw outboundBadRequest("time takes time[gte], time[lte], time[gt], time[lt]");
    for (const [op, value] of Object.entries(range)) {
      const sym = TIME_OPERATORS.get(op);
      if (!sym || typeof value !== "string") throw outboundBadRequest(`time[${op}] is not a time filter`);
      let d: Date;
      try {
        d = parseDate(`time[${op}]`, value);
      } catch {
        throw outboundBadRequest(`time[${op}] must be a date or RFC 3339 time`);
      }
      where.push(`x.time ${sym} $${params.push(d)}`);
    }
  }
  const [next, prev] = [single(q, "next"), single(q, "prev")];
  if (next && prev) throw outboundBadRequest("next and prev cannot be used together");
  const cursor = next ? decode(next) : prev ? decode(prev) : null;
  const backwards = Boolean(prev);
  const asc = (dir === "asc") !== backwards;
  if (cursor) where.push(`(x.time, x.id) ${asc ? ">" : "<"} ($${params.push(cursor.time)}, $${params.push(cursor.id)})`);
  const order = asc ? "ASC" : "DESC";
  const { rows } = await getPool().query<R>(
    `SELECT x.* FROM ${table} x ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY x.time ${order}, x.id ${order} LIMIT ${limit + 1}`,
    params,
  );
  const more = rows.length > limit;
  const out = rows.slice(0, limit);
  if (backwards) out.reverse();
  const at = (r: R | undefined) => (r ? encode(r.time, r.id) : null);
  return {
    rows: out,
    pagination: {
      order_by: "time",
      dir,
      limit,
      next: (backwards || more) && out.length ? at(out.at(-1)) : null,
      prev: (backwards ? more : Boolean(cursor)) && out.length ? at(out[0]) : null,
    },
  };
}

/** `GET /events`: `id[]`, `tenant_id[]`, `destination_id[]`, `topic[]`, time filters, paging. Throws 400, 403. */
export async function listEvents(q: ParsedQuery, caller: OutboundCaller) {
  const where: string[] = [];
  const params: unknown[] = [];
  const tenants = scope(q, caller);
  if (tenants) where.push(`x.tenant_id = ANY($${params.push(tenants)})`);
  const ids = values(q, "id");
  if (ids) where.push(`x.id = ANY($${params.push(ids)})`);
  const topics = values(q, "topic");
  if (topics) where.push(`x.topic = ANY($${params.push(topics)})`);
  const destinations = values(q, "destination_id");
  if (destinations) where.push(`x.matched_destination_ids && $${params.push(destinations)}::text[]`);
  const { rows, pagination } = await page<EventRow>("outbound_events", where, params, q);
  return { body: { models: rows.map((r) => toEvent(r)), pagination } };
}

/** `GET /events/{id}`: 404 for an unknown event or another tenant's (JWT). */
export async function getEvent(id: string, caller: OutboundCaller) {
  const { rows } = await getPool().query<EventRow>("SELECT * FROM outbound_events WHERE id = $1", [id]);
  if (!rows[0] || (caller.kind === "tenant" && rows[0].tenant_id !== caller.tenantId)) throw outboundNotFound("event not found");
  return { body: toEvent(rows[0]) };
}

/**
 * The API model of an attempt, with what `include` asks for (`event`, `event.data`, `response_data`,
 * `destination`, `transformation`). `caller`: a tenant whose transformation access is `off` sees neither
 * the transformation output nor the destination's code.
 */
async function toAttempts(rows: AttemptRow[], include: string[], caller: OutboundCaller) {
  const transformations = transformationAccess(caller) !== "off";
  const events = new Map<string, EventRow>();
  const destinations = new Map<string, Parameters<typeof toDestination>[0]>();
  if (include.some((i) => i.startsWith("event"))) {
    const { rows: e } = await getPool().query<EventRow>("SELECT * FROM outbound_events WHERE id = ANY($1)", [[...new Set(rows.map((r) => r.event_id))]]);
    for (const r of e) events.set(r.id, r);
  }
  if (include.includes("destination")) {
    const d = await getPrisma().outboundDestination.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.destination_id))] } } });
    for (const r of d) destinations.set(r.id, r);
  }
  return rows.map((r) => {
    const event = events.get(r.event_id);
    const destination = destinations.get(r.destination_id);
    return {
      id: r.id,
      tenant_id: r.tenant_id,
      status: r.status,
      delivered_at: r.time.toISOString(),
      time: r.time.toISOString(),
      code: r.code,
      attempt_number: r.attempt_number,
      manual: r.manual,
      event_id: r.event_id,
      destination_id: r.destination_id,
      destination_type: r.destination_type,
      ...(r.latency_ms !== null ? { latency_ms: r.latency_ms } : {}),
      ...(include.includes("response_data") ? { response_data: r.response_data ?? null } : {}),
      ...(include.includes("transformation") && transformations && r.transformation !== null ? { transformation: r.transformation } : {}),
      ...(event ? { event: toEvent(event, include.includes("event.data")) } : {}),
      ...(destination
        ? {
            destination: (({ credentials: _c, transformation, ...rest }) => (transformations && transformation ? { ...rest, transformation } : rest))(
              toDestination(destination),
            ),
          }
        : {}),
    };
  });
}

/**
 * `GET /attempts` (and the destination attempt routes with `destinationId`): `tenant_id[]`, `event_id[]`,
 * `destination_id[]`, `destination_type[]`, `status`, `topic[]`, time filters, paging, `include[]`.
 */
export async function listAttempts(q: ParsedQuery, caller: OutboundCaller, destinationId?: string) {
  const where: string[] = [];
  const params: unknown[] = [];
  const tenants = scope(q, caller);
  if (tenants) where.push(`x.tenant_id = ANY($${params.push(tenants)})`);
  if (destinationId) where.push(`x.destination_id = $${params.push(destinationId)}`);
  for (const [name, col] of [
    ["event_id", "event_id"],
    ["destination_id", "destination_id"],
    ["destination_type", "destination_type"],
    ["topic", "topic"],
    ["id", "id"],
  ] as const) {
    const v = values(q, name);
    if (v) where.push(`x.${col} = ANY($${params.push(v)})`);
  }
  const status = single(q, "status");
  if (status !== undefined) {
    if (status !== "success" && status !== "failed") throw outboundBadRequest("status must be success or failed");
    where.push(`x.status = $${params.push(status)}`);
  }
  const include = values(q, "include") ?? [];
  const { rows, pagination } = await page<AttemptRow>("outbound_attempts", where, params, q);
  return { body: { models: await toAttempts(rows, include, caller), pagination } };
}

/** `GET /attempts/{id}` (only of `destinationId` on the destination route): 404 otherwise. */
export async function getAttempt(id: string, q: ParsedQuery, caller: OutboundCaller, destinationId?: string) {
  const { rows } = await getPool().query<AttemptRow>("SELECT * FROM outbound_attempts WHERE id = $1", [id]);
  const r = rows[0];
  if (!r || (caller.kind === "tenant" && r.tenant_id !== caller.tenantId) || (destinationId && r.destination_id !== destinationId))
    throw outboundNotFound("attempt not found");
  return { body: (await toAttempts([r], values(q, "include") ?? [], caller))[0] };
}

/** Throws 404 unless destination `id` of tenant `tenantId` exists (the destination attempt routes). */
export async function assertDestination(tenantId: string, id: string): Promise<void> {
  const { rowCount } = await getPool().query("SELECT 1 FROM outbound_destinations WHERE id = $1 AND tenant_id = $2", [id, tenantId]);
  if (!rowCount) throw outboundNotFound("destination not found");
}

/** The body of `POST /retry`. */
export const ZRetry = z.object({ event_id: z.string().min(1), destination_id: z.string().min(1) });

/**
 * `POST /retry {event_id, destination_id}` (docs/outbound.md#manual-retry): the event must exist
 * (a JWT: its tenant's; else 404 `event not found`); the destination must exist for the event's tenant
 * (404 `destination not found`), be enabled (400), match the event's topic and filter (400), and have an
 * earlier attempt for the event (else 404 `event not found`). Queues a manual attempt: 202 `{success: true}`.
 */
export async function retry(body: unknown, caller: OutboundCaller) {
  const parsed = ZRetry.safeParse(body ?? {});
  if (!parsed.success) throw outboundInvalid([...new Set(parsed.error.issues.map((i) => `${String(i.path[0])} is required`))]);
  const b = parsed.data;
  const { rows: events } = await getPool().query<EventRow>("SELECT * FROM outbound_events WHERE id = $1", [b.event_id]);
  const event = events[0];
  if (!event || (caller.kind === "tenant" && event.tenant_id !== caller.tenantId)) throw outboundNotFound("event not found");
  const { rows: dests } = await getPool().query<{ id: string; topics: string[]; filter: Record<string, unknown> | null; disabled_at: Date | null }>(
    "SELECT id, topics, filter, disabled_at FROM outbound_destinations WHERE id = $1 AND tenant_id = $2",
    [b.destination_id, event.tenant_id],
  );
  const d = dests[0];
  if (!d) throw outboundNotFound("destination not found");
  if (d.disabled_at) throw outboundBadRequest("Destination is disabled", { error: "destination_disabled" });
  const view = {
    id: event.id,
    topic: event.topic,
    time: event.time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    metadata: event.metadata ?? {},
    data: parseData(event.data),
  };
  if (!topicMatches(d.topics, event.topic) || !filterMatches(d.filter, view)) throw outboundBadRequest("destination does not match event");
  const { rowCount } = await getPool().query("SELECT 1 FROM outbound_attempts WHERE event_id = $1 AND destination_id = $2 LIMIT 1", [event.id, d.id]);
  if (!rowCount) throw outboundNotFound("event not found");
  await inTransaction((client) =>
    enqueueOutboundDeliveries(client, [{ eventId: event.id, eventTime: event.time, destinationId: d.id, tenantId: event.tenant_id }], true),
  );
  return { status: 202, body: { success: true } };
}

const { count, share, value, percentile } = measure;
/** Per second over the bucket (or the range): `seconds` is the SQL of its length. */
const rate = (seconds: string, where?: string) => ({ sql: `(count(*) ${where ? `FILTER (WHERE ${where})` : ""})::float8 / ${seconds}`, empty: 0 as const });

/** Metrics tables of the outbound service (docs/outbound.md#events-attempts-metrics-health), scoped by `$1` (tenant ids, null = all). */
function outboundMetricsTables(seconds: string): Record<"events" | "attempts", MetricsTable> {
  return {
    events: {
      kind: "events",
      from: "outbound_events e CROSS JOIN LATERAL unnest(CASE WHEN cardinality(e.matched_destination_ids) = 0 THEN ARRAY[NULL::text] ELSE e.matched_destination_ids END) AS md(destination_id)",
      time: "e.time",
      scope: ["($1::text[] IS NULL OR e.tenant_id = ANY($1))"],
      measures: { count: { sql: "count(DISTINCT e.id)", empty: 0 }, rate: { sql: `count(DISTINCT e.id)::float8 / ${seconds}`, empty: 0 } },
      dimensions: { tenant_id: "e.tenant_id", topic: "e.topic", destination_id: "md.destination_id" },
      filters: { tenant_id: "e.tenant_id", topic: "e.topic", destination_id: "md.destination_id" },
    },
    attempts: {
      kind: "events",
      from: "outbound_attempts a",
      time: "a.time",
      scope: ["($1::text[] IS NULL OR a.tenant_id = ANY($1))"],
      measures: {
        count: count(),
        successful_count: count("a.status = 'success'"),
        failed_count: count("a.status = 'failed'"),
        error_rate: share("a.status = 'failed'"),
        first_attempt_count: count("a.attempt_number = 0"),
        retry_count: count("a.attempt_number > 0"),
        manual_retry_count: count("a.manual"),
        avg_attempt_number: value("avg(a.attempt_number)"),
        rate: rate(seconds),
        successful_rate: rate(seconds, "a.status = 'success'"),
        failed_rate: rate(seconds, "a.status = 'failed'"),
        avg_latency: value("avg(a.latency_ms)"),
        p50_latency: percentile(0.5, "a.latency_ms"),
        p95_latency: percentile(0.95, "a.latency_ms"),
        p99_latency: percentile(0.99, "a.latency_ms"),
      },
      dimensions: {
        tenant_id: "a.tenant_id",
        destination_id: "a.destination_id",
        destination_type: "a.destination_type",
        topic: "a.topic",
        status: "a.status",
        code: "a.code",
        manual: "a.manual",
        attempt_number: "a.attempt_number",
      },
      filters: {
        tenant_id: "a.tenant_id",
        destination_id: "a.destination_id",
        destination_type: "a.destination_type",
        topic: "a.topic",
        status: "a.status",
        code: "a.code",
        manual: "a.manual",
        attempt_number: "a.attempt_number",
      },
    },
  };
}

/**
 * `GET /metrics/events` and `/metrics/attempts` (docs/outbound.md#events-attempts-metrics-health):
 * `time[start]`, `time[end]` (required, end exclusive), `measures` (required), `granularity`,
 * `dimensions`, `filters[name]`, on the shared builder (lib/metrics/query.ts). A tenant JWT is forced to
 * its tenant (a `tenant_id` dimension or another tenant's filter is 403). A bad parameter is a 400 naming it.
 */
export async function outboundMetrics(which: "events" | "attempts", q: ParsedQuery, caller: OutboundCaller) {
  const t = q.time;
  if (!t || typeof t !== "object" || Array.isArray(t) || typeof t.start !== "string" || typeof t.end !== "string")
    throw outboundBadRequest("time[start] and time[end] are required");
  let start: Date;
  let end: Date;
  try {
    start = parseDate("time[start]", t.start);
    end = parseDate("time[end]", t.end);
  } catch {
    throw outboundBadRequest("time[start] and time[end] must be RFC 3339 times");
  }
  const list = (name: string) => values(q, name) ?? values(q, `${name}[]`) ?? [];
  const filters: Record<string, string[]> = {};
  const f = q.filters;
  if (f !== undefined) {
    if (typeof f !== "object" || Array.isArray(f)) throw outboundBadRequest("filters takes filters[name]=value");
    for (const [k, v] of Object.entries(f)) filters[k] = typeof v === "string" ? [v] : Array.isArray(v) ? (v as string[]) : (Object.values(v) as string[]);
  }
  const dimensions = list("dimensions");
  let tenants: string[] | null = null;
  if (caller.kind === "tenant") {
    if (dimensions.includes("tenant_id") || (filters.tenant_id && filters.tenant_id.some((x) => x !== caller.tenantId))) throw outboundForbidden();
    tenants = [caller.tenantId];
  }
  const granularity = single(q, "granularity");
  try {
    const g = granularity ? parseGranularity(granularity) : null;
    const seconds = g
      ? `extract(epoch FROM (${g.unit === "M" ? `interval '${g.n} months'` : `interval '${g.n}${{ s: " seconds", m: " minutes", h: " hours", d: " days", w: " weeks" }[g.unit]}'`}))`
      : `${(end.getTime() - start.getTime()) / 1000}`;
    const result = await runMetrics(getPool(), outboundMetricsTables(seconds)[which], [tenants], {
      start,
      end,
      granularity: g,
      measures: list("measures"),
      dimensions,
      filters,
    });
    if (!g) {
      result.data = result.data.map(({ time_bucket: _t, ...rest }) => rest);
      delete (result.metadata as { granularity?: unknown }).granularity;
    }
    return { body: result };
  } catch (err) {
    if (isAppError(err, "BAD_REQUEST") && err.details.field !== undefined) throw outboundBadRequest(err.message, { param: err.details.field });
    throw err;
  }
}
