/**
 * Events, ignored events and attempts of a gateway team, read side (shared/reference/gateway-product.md
 * §1 `/events`, `/attempts`, `/requests/{id}/events|ignored_events`, §2 Event, EventAttempt,
 * IgnoredEvent). The pipeline writes them (lib/gateway/pipeline, lib/delivery).
 */
import { z } from "zod";
import { bodyPreview } from "@/lib/console/preview";
import { getPool } from "@/lib/db/pool";
import { destinationUrl } from "@/lib/delivery/outgoing";
import { parseQueryString } from "@/lib/gateway/requests/request-data";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { badRequest, notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import { filterSql, type ParsedQuery, parseFilter } from "@/lib/http/query";

export const EVENT_STATUSES = ["SCHEDULED", "QUEUED", "HOLD", "SUCCESSFUL", "FAILED", "CANCELLED"] as const;

const ZEventData = z.object({
  url: z.string().nullable().optional(),
  method: z.string().optional(),
  path: z.string(),
  query: z.string().nullable(),
  parsed_query: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
  appended_headers: z.array(z.string()).optional(),
  body: z.unknown(),
  is_large_payload: z.boolean(),
});

export const ZEvent = z
  .object({
    id: z.string(),
    team_id: z.string(),
    webhook_id: z.string(),
    source_id: z.string(),
    destination_id: z.string(),
    event_data_id: z.string(),
    request_id: z.string(),
    attempts: z.number().int(),
    last_attempt_at: z.iso.datetime().nullable(),
    next_attempt_at: z.iso.datetime().nullable(),
    response_status: z.number().int().nullable(),
    error_code: z.string().nullable(),
    status: z.enum(EVENT_STATUSES),
    successful_at: z.iso.datetime().nullable(),
    cli_id: z.string().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    data: ZEventData.optional(),
  })
  .meta({ id: "Event" });
export type TEvent = z.infer<typeof ZEvent>;

export const ZAttempt = z
  .object({
    id: z.string(),
    team_id: z.string(),
    event_id: z.string(),
    destination_id: z.string(),
    response_status: z.number().int().nullable(),
    attempt_number: z.number().int(),
    trigger: z.enum(["INITIAL", "MANUAL", "BULK_RETRY", "UNPAUSE", "AUTOMATIC"]),
    error_code: z.string().nullable(),
    body: z.unknown().optional().meta({ description: "The response body: parsed JSON, or text. Only on GET /attempts/{id}." }),
    requested_url: z.string().nullable().optional(),
    http_method: z.string().nullable(),
    bulk_retry_id: z.string().nullable(),
    status: z.enum(["SUCCESFUL", "FAILED"]).meta({ description: "SUCCESFUL is the spec's spelling" }),
    successful_at: z.iso.datetime().nullable(),
    delivered_at: z.iso.datetime().nullable(),
    responded_at: z.iso.datetime().nullable(),
    delivery_latency: z.number().int().nullable().meta({ description: "ms" }),
    response_latency: z.number().int().nullable().meta({ description: "ms" }),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "EventAttempt" });
export type TAttempt = z.infer<typeof ZAttempt>;

export const ZIgnoredEvent = z
  .object({
    id: z.string(),
    team_id: z.string(),
    webhook_id: z.string(),
    cause: z.string(),
    request_id: z.string(),
    meta: z.unknown().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "IgnoredEvent" });

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const withoutPrefix = (id: string) => id.slice(id.indexOf("_") + 1);

type EventRow = Record<string, any>;

const EVENT_COLUMNS =
  "e.id, e.team_id, e.webhook_id, e.source_id, e.destination_id, e.request_id, e.attempts, e.last_attempt_at, e.next_attempt_at, e.response_status, e.error_code, e.status, e.successful_at, e.cli_id, e.updated_at, e.created_at, (e.data IS NOT NULL) AS transformed";
const EVENT_DATA_COLUMNS =
  "e.data, raw.method, raw.path AS raw_path, raw.query AS raw_query, raw.headers AS raw_headers, substring(raw.body from 1 for 65537) AS raw_body, raw.body_size, d.type AS destination_type, d.config AS destination_config";
const EVENT_DATA_FROM = "events e LEFT JOIN request_raw_data raw ON raw.request_id = e.request_id LEFT JOIN destinations d ON d.id = e.destination_id";

/** The API model of an event row; `data` when the row carries the data columns. 2024 versions get the short data. */
export function toEvent(row: EventRow, version: ApiVersion): TEvent {
  const model: TEvent = {
    id: row.id,
    team_id: row.team_id,
    webhook_id: row.webhook_id,
    source_id: row.source_id,
    destination_id: row.destination_id,
    event_data_id: `edt_${withoutPrefix(row.transformed ? row.id : row.request_id)}`,
    request_id: row.request_id,
    attempts: row.attempts,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: iso(row.next_attempt_at),
    response_status: row.response_status,
    error_code: row.error_code,
    status: row.status,
    successful_at: iso(row.successful_at),
    cli_id: row.cli_id,
    updated_at: row.updated_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
  if ("raw_path" in row) {
    const t = row.data as { path: string; query: string; headers: Record<string, string>; body: string | null } | null;
    const path = t?.path ?? row.raw_path ?? "/";
    const query = t?.query ?? row.raw_query ?? "";
    const preview = t ? bodyPreview(t.body === null ? null : Buffer.from(t.body), Buffer.byteLength(t.body ?? "")) : bodyPreview(row.raw_body ?? null, row.body_size ?? 0);
    const config = (row.destination_config ?? {}) as Record<string, unknown>;
    const url = row.destination_type === "HTTP" ? destinationUrl(config, path, query) : row.destination_type === "CLI" ? String(config.path ?? "/") : null;
    model.data = {
      ...(isAtLeast(version, "2025-01-01") ? { url, method: (typeof config.http_method === "string" && config.http_method) || row.method, appended_headers: [] } : {}),
      path,
      query: query || null,
      parsed_query: parseQueryString(query),
      headers: t?.headers ?? row.raw_headers ?? {},
      body: preview.body,
      is_large_payload: Boolean(preview.body_truncated),
    };
  }
  return model;
}

/** Attempt row → API model (stored SUCCESSFUL is listed as the spec's SUCCESFUL). */
export function toAttempt(row: Record<string, any>, full: boolean): TAttempt {
  let body: unknown = row.body ?? null;
  if (typeof body === "string") {
    try {
      body = JSON.parse(body);
    } catch {}
  }
  return {
    id: row.id,
    team_id: row.team_id,
    event_id: row.event_id,
    destination_id: row.destination_id,
    response_status: row.response_status,
    attempt_number: row.attempt_number,
    trigger: row.trigger,
    error_code: row.error_code,
    ...(full ? { body, requested_url: row.requested_url } : {}),
    http_method: row.http_method,
    bulk_retry_id: row.bulk_retry_id,
    status: row.status === "SUCCESSFUL" ? "SUCCESFUL" : "FAILED",
    successful_at: iso(row.successful_at),
    delivered_at: iso(row.delivered_at),
    responded_at: iso(row.responded_at),
    delivery_latency: row.delivery_latency,
    response_latency: row.response_latency,
    updated_at: row.updated_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

const toIgnored = (r: Record<string, any>): z.infer<typeof ZIgnoredEvent> => ({
  id: r.id,
  team_id: r.team_id,
  webhook_id: r.webhook_id,
  cause: r.cause,
  request_id: r.request_id,
  meta: r.meta ?? null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** Adds the SQL of each `[name, column, type]` filter present in `query` to `where` (params appended). */
export function applyFilters(query: ParsedQuery, where: string[], params: unknown[], specs: readonly (readonly [string, string, "string" | "number" | "date" | "boolean"])[]) {
  for (const [name, column, type] of specs) {
    const f = parseFilter(query, name, type);
    if (f) where.push(filterSql(column, f, params));
  }
}

function checkEnum(query: ParsedQuery, name: string, allowed: readonly string[]) {
  const v = query[name];
  if (v === undefined) return;
  const values = (Array.isArray(v) ? v : typeof v === "object" ? Object.values(v) : [v]).flat() as unknown[];
  for (const x of values) if (typeof x === "string" && !allowed.includes(x)) throw badRequest(`"${name}" must be one of ${allowed.join(", ")}`, { [name]: v });
}

const EVENT_FILTERS = [
  ["id", "e.id", "string"],
  ["status", "e.status", "string"],
  ["webhook_id", "e.webhook_id", "string"],
  ["source_id", "e.source_id", "string"],
  ["destination_id", "e.destination_id", "string"],
  ["request_id", "e.request_id", "string"],
  ["error_code", "e.error_code", "string"],
  ["cli_id", "e.cli_id", "string"],
  ["attempts", "e.attempts", "number"],
  ["response_status", "e.response_status", "number"],
  ["created_at", "e.created_at", "date"],
  ["last_attempt_at", "e.last_attempt_at", "date"],
  ["next_attempt_at", "e.next_attempt_at", "date"],
  ["successful_at", "e.successful_at", "date"],
] as const;

export const EVENT_ORDER_BY = ["created_at", "last_attempt_at", "next_attempt_at"] as const;
const EVENT_ORDER_COLUMNS = {
  created_at: { sql: "e.created_at", type: "date" as const },
  last_attempt_at: { sql: "COALESCE(e.last_attempt_at, 'epoch'::timestamptz)", type: "date" as const },
  next_attempt_at: { sql: "COALESCE(e.next_attempt_at, 'epoch'::timestamptz)", type: "date" as const },
};

/** One page of the team's events (optionally only request `requestId`'s); `withData` adds `data`. */
export function listEvents(teamId: string, query: ParsedQuery, page: PageRequest, withData: boolean, version: ApiVersion, requestId?: string): Promise<Page<TEvent>> {
  checkEnum(query, "status", EVENT_STATUSES);
  const params: unknown[] = [teamId];
  const where = ["e.team_id = $1"];
  if (requestId) {
    params.push(requestId);
    where.push(`e.request_id = $${params.length}`);
  }
  applyFilters(query, where, params, EVENT_FILTERS);
  return selectPage<EventRow, TEvent>({
    db: getPool(),
    select: withData ? `${EVENT_COLUMNS}, ${EVENT_DATA_COLUMNS}` : EVENT_COLUMNS,
    from: withData ? EVENT_DATA_FROM : "events e",
    where,
    params,
    page,
    columns: EVENT_ORDER_COLUMNS,
    idColumn: "e.id",
    toModel: (r) => toEvent(r, version),
  });
}

/** Event `id` of `teamId` with its data; throws 404. */
export async function getEvent(teamId: string, id: string, version: ApiVersion): Promise<TEvent> {
  const { rows } = await getPool().query(`SELECT ${EVENT_COLUMNS}, ${EVENT_DATA_COLUMNS} FROM ${EVENT_DATA_FROM} WHERE e.id = $1 AND e.team_id = $2`, [id, teamId]);
  if (!rows[0]) throw notFound(id);
  return toEvent(rows[0], version);
}

/** `{body}` of event `id`: what it delivers (the transformed body, or the request's raw body). Throws 404. */
export async function getEventRawBody(teamId: string, id: string): Promise<{ body: string }> {
  const { rows } = await getPool().query<{ data: { body: string | null } | null; body: Buffer | null }>(
    "SELECT e.data, raw.body FROM events e LEFT JOIN request_raw_data raw ON raw.request_id = e.request_id WHERE e.id = $1 AND e.team_id = $2",
    [id, teamId],
  );
  if (!rows[0]) throw notFound(id);
  if (rows[0].data) return { body: rows[0].data.body ?? "" };
  const body = rows[0].body ?? Buffer.alloc(0);
  const text = body.toString("utf8");
  return { body: Buffer.from(text, "utf8").equals(body) ? text : body.toString("base64") };
}

/** Throws 404 unless request `id` belongs to `teamId`. */
export async function assertTeamRequest(teamId: string, id: string): Promise<void> {
  const { rowCount } = await getPool().query("SELECT 1 FROM requests WHERE id = $1 AND team_id = $2", [id, teamId]);
  if (!rowCount) throw notFound(id);
}

/** One page of ignored events (filters id, cause, webhook_id, request_id, created_at). */
export function listIgnoredEvents(teamId: string, query: ParsedQuery, page: PageRequest, requestId?: string) {
  const params: unknown[] = [teamId];
  const where = ["i.team_id = $1"];
  if (requestId) {
    params.push(requestId);
    where.push(`i.request_id = $${params.length}`);
  }
  applyFilters(query, where, params, [
    ["id", "i.id", "string"],
    ["cause", "i.cause", "string"],
    ["webhook_id", "i.webhook_id", "string"],
    ["request_id", "i.request_id", "string"],
    ["created_at", "i.created_at", "date"],
  ]);
  return selectPage({ db: getPool(), select: "i.*", from: "ignored_events i", where, params, page, columns: { created_at: { sql: "i.created_at", type: "date" } }, idColumn: "i.id", toModel: toIgnored });
}

/** Ignored event `id` of `teamId`; throws 404. */
export async function getIgnoredEvent(teamId: string, id: string) {
  const { rows } = await getPool().query("SELECT * FROM ignored_events WHERE id = $1 AND team_id = $2", [id, teamId]);
  if (!rows[0]) throw notFound(id);
  return toIgnored(rows[0]);
}

/** One page of attempts (filters id, event_id, destination_id, status, trigger, created_at); rows without body and requested_url. */
export function listAttempts(teamId: string, query: ParsedQuery, page: PageRequest) {
  checkEnum(query, "status", ["SUCCESFUL", "SUCCESSFUL", "FAILED"]);
  const status = query.status;
  const q = { ...query };
  if (status !== undefined) {
    const norm = (v: unknown) => (v === "SUCCESFUL" ? "SUCCESSFUL" : v);
    q.status = (Array.isArray(status) ? status.map(norm) : norm(status)) as ParsedQuery[string];
  }
  const params: unknown[] = [teamId];
  const where = ["a.team_id = $1"];
  applyFilters(q, where, params, [
    ["id", "a.id", "string"],
    ["event_id", "a.event_id", "string"],
    ["destination_id", "a.destination_id", "string"],
    ["status", "a.status", "string"],
    ["trigger", "a.trigger", "string"],
    ["created_at", "a.created_at", "date"],
  ]);
  return selectPage({
    db: getPool(),
    select: "a.id, a.team_id, a.event_id, a.destination_id, a.attempt_number, a.trigger, a.status, a.response_status, a.error_code, a.http_method, a.bulk_retry_id, a.successful_at, a.delivered_at, a.responded_at, a.delivery_latency, a.response_latency, a.created_at, a.updated_at",
    from: "attempts a",
    where,
    params,
    page,
    columns: { created_at: { sql: "a.created_at", type: "date" } },
    idColumn: "a.id",
    toModel: (r) => toAttempt(r, false),
  });
}

/** Attempt `id` of `teamId`, with its response body and requested URL; throws 404. */
export async function getAttempt(teamId: string, id: string): Promise<TAttempt> {
  const { rows } = await getPool().query("SELECT * FROM attempts WHERE id = $1 AND team_id = $2", [id, teamId]);
  if (!rows[0]) throw notFound(id);
  return toAttempt(rows[0], true);
}
