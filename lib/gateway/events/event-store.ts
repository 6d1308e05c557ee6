/**
 * Events of a gateway team, read side (docs/gateway-api.md#events; also
 * `/requests/{id}/events`): list with filters and paging, get one with its data, its raw
 * body. The pipeline writes them (lib/gateway/pipeline, lib/delivery).
 */
import { bodyPreview } from "@/lib/http/body-preview";
import { getPool } from "@/lib/db/pool";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import { EVENT_FILTERS, EVENT_STATUSES, type TEvent } from "@/lib/gateway/events/schemas";
import { parseQueryString } from "@/lib/http/query";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";
import { APPENDED_HEADERS } from "@/lib/delivery/outgoing";

export { EVENT_ORDER_BY } from "@/lib/gateway/events/schemas";

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const withoutPrefix = (id: string) => id.slice(id.indexOf("_") + 1);

/** What the pipeline stores in `events.data` when a transformation changed the request. */
type TransformedData = { path?: string; query?: string; headers?: Record<string, string>; body?: unknown; body_base64?: unknown };

/**
 * The delivered body of transformed data: a string as stored (anything else as JSON, as delivery would
 * send it), the text of `body_base64` (a body holding U+0000, lib/gateway/pipeline/fanout.ts), or null.
 */
const transformedBody = (t: TransformedData): string | null =>
  typeof t.body_base64 === "string"
    ? Buffer.from(t.body_base64, "base64").toString("utf8")
    : t.body == null
      ? null
      : typeof t.body === "string"
        ? t.body
        : JSON.stringify(t.body);

export type EventRow = {
  id: string;
  team_id: string;
  webhook_id: string;
  source_id: string;
  destination_id: string;
  request_id: string;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  response_status: number | null;
  error_code: string | null;
  status: (typeof EVENT_STATUSES)[number];
  successful_at: Date | null;
  cli_id: string | null;
  updated_at: Date;
  created_at: Date;
  transformed: boolean;
  // With the data columns:
  data?: TransformedData | null;
  method?: string | null;
  raw_path?: string | null;
  raw_query?: string | null;
  raw_headers?: Record<string, string> | null;
  raw_body?: Buffer | null;
  body_size?: number | null;
  destination_type?: string | null;
  destination_config?: Record<string, unknown> | null;
};

const EVENT_COLUMNS =
  "e.id, e.team_id, e.webhook_id, e.source_id, e.destination_id, e.request_id, e.attempts, e.last_attempt_at, e.next_attempt_at, e.response_status, e.error_code, e.status, e.successful_at, e.cli_id, e.updated_at, e.created_at, (e.data IS NOT NULL) AS transformed";
// The request's raw data and the destination, for `data` (the body cut one byte past the preview size, to tell it was cut).
const EVENT_DATA_COLUMNS =
  "e.data, raw.method, raw.path AS raw_path, raw.query AS raw_query, raw.headers AS raw_headers, substring(raw.body from 1 for 65537) AS raw_body, raw.body_size, d.type AS destination_type, d.config AS destination_config";
const EVENT_DATA_FROM = "events e LEFT JOIN request_raw_data raw ON raw.request_id = e.request_id LEFT JOIN destinations d ON d.id = e.destination_id";

// Nullable sort keys sort as the epoch (first ascending, last descending), so keyset cursors always have a value.
const EVENT_ORDER_COLUMNS = {
  created_at: { sql: "e.created_at", type: "date" as const },
  last_attempt_at: { sql: "COALESCE(e.last_attempt_at, 'epoch'::timestamptz)", type: "date" as const },
  next_attempt_at: { sql: "COALESCE(e.next_attempt_at, 'epoch'::timestamptz)", type: "date" as const },
};

/** Where the event goes, as its destination's type describes it (the HTTP URL as delivery builds it, the CLI path, null for MOCK_API); null for no destination. */
function deliveryUrl(type: string | null | undefined, config: Record<string, unknown>, path: string, query: string): string | null {
  return GATEWAY_DESTINATION_TYPES.find(type ?? "")?.target(config, { path, query }) ?? null;
}

/** The API model of an event row; `data` when the row carries the data columns. 2024-09-01 gets the short data. */
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
    const t = row.data ?? null;
    const path = t?.path ?? row.raw_path ?? "/";
    const query = t?.query ?? row.raw_query ?? "";
    const body = t ? transformedBody(t) : null;
    const preview = t
      ? bodyPreview(body === null ? null : Buffer.from(body, "utf8"), Buffer.byteLength(body ?? ""))
      : bodyPreview(row.raw_body ?? null, row.body_size ?? 0);
    const config = row.destination_config ?? {};
    const short = {
      path,
      query: query || null,
      parsed_query: parseQueryString(query),
      headers: t?.headers ?? row.raw_headers ?? {},
      body: preview.body,
      body_encoding: preview.body_encoding ?? null,
      is_large_payload: Boolean(preview.body_truncated),
    };
    model.data = isAtLeast(version, "2025-01-01")
      ? {
          url: deliveryUrl(row.destination_type, config, path, query),
          method: (typeof config.http_method === "string" && config.http_method) || row.method || "POST",
          ...short,
          appended_headers: [...APPENDED_HEADERS],
        }
      : short;
  }
  return model;
}

/** One page of the team's events (only request `requestId`'s when given); `withData` adds `data`. Throws 400 on bad filters. */
export function listEvents(
  teamId: string,
  query: ParsedQuery,
  page: PageRequest,
  withData: boolean,
  version: ApiVersion,
  requestId?: string,
): Promise<Page<TEvent>> {
  const params: unknown[] = [teamId];
  const where = ["e.team_id = $1"];
  if (requestId) {
    params.push(requestId);
    where.push(`e.request_id = $${params.length}`);
  }
  applyFilterTable(EVENT_FILTERS, query, where, params);
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

/** Event `id` of `teamId` with its data; throws 404 (also for another team's). */
export async function getEvent(teamId: string, id: string, version: ApiVersion): Promise<TEvent> {
  const { rows } = await getPool().query<EventRow>(
    `SELECT ${EVENT_COLUMNS}, ${EVENT_DATA_COLUMNS} FROM ${EVENT_DATA_FROM} WHERE e.id = $1 AND e.team_id = $2`,
    [pathId(id), teamId],
  );
  if (!rows[0]) throw notFound(id);
  return toEvent(rows[0], version);
}

/** `{body}` of event `id`: what it delivers (the transformed body, or the request's raw body as UTF-8 text, base64 when binary). Throws 404. */
export async function getEventRawBody(teamId: string, id: string): Promise<{ body: string }> {
  const { rows } = await getPool().query<{ data: TransformedData | null; body: Buffer | null }>(
    "SELECT e.data, raw.body FROM events e LEFT JOIN request_raw_data raw ON raw.request_id = e.request_id WHERE e.id = $1 AND e.team_id = $2",
    [pathId(id), teamId],
  );
  if (!rows[0]) throw notFound(id);
  if (rows[0].data) return { body: transformedBody(rows[0].data) ?? "" };
  const body = rows[0].body ?? Buffer.alloc(0);
  const text = body.toString("utf8");
  return { body: Buffer.from(text, "utf8").equals(body) ? text : body.toString("base64") };
}

/** Throws 404 unless request `id` belongs to `teamId`. */
export async function assertTeamRequest(teamId: string, id: string): Promise<void> {
  const { rowCount } = await getPool().query("SELECT 1 FROM requests WHERE id = $1 AND team_id = $2", [pathId(id), teamId]);
  if (!rowCount) throw notFound(id);
}
