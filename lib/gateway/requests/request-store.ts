/**
 * The requests a gateway team received (docs/gateway-api.md#requests):
 * list with filters and paging, get one, its raw body. Read side only: ingestion writes them
 * (lib/ingest); the counts come from the pipeline's events and ignored events.
 */
import { z } from "zod";
import { bodyPreview } from "@/lib/http/body-preview";
import { getPool } from "@/lib/db/pool";
import { parseQueryString } from "@/lib/http/query";
import { notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, booleanFilter, dateFilter, documentFilter, enumFilter, type FilterTable, searchFilter, stringFilter } from "@/lib/http/query-schema";

export type RequestRow = {
  id: string;
  team_id: string;
  source_id: string;
  verified: boolean;
  rejection_cause: string | null;
  ingested_at: Date;
  created_at: Date;
  updated_at: Date;
  events_count?: number;
  cli_events_count?: number;
  ignored_count?: number;
  method?: string;
  path?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: Buffer | null;
  body_size?: number;
};

export const ZRequest = z
  .object({
    id: z.string(),
    team_id: z.string(),
    verified: z.boolean().nullable(),
    original_event_data_id: z.string().nullable(),
    rejection_cause: z.string().nullable(),
    ingested_at: z.iso.datetime().nullable(),
    source_id: z.string(),
    events_count: z.number().int().nullable(),
    cli_events_count: z.number().int().nullable(),
    ignored_count: z.number().int().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    data: z
      .object({
        method: z.string().optional().meta({ description: "The HTTP method the request arrived with." }),
        path: z.string(),
        query: z.string().nullable(),
        parsed_query: z.record(z.string(), z.unknown()),
        headers: z.record(z.string(), z.string()),
        body: z.unknown().meta({ description: "Parsed JSON, text, or base64 for a binary body (see `body_encoding`)." }),
        body_encoding: z.enum(["json", "text", "base64"]).nullable().meta({ description: "How `body` is given; null without a body." }),
        is_large_payload: z.boolean().meta({ description: "The body is cut to its first 64 KiB; the whole body is at `/requests/{id}/raw_body`." }),
      })
      .optional(),
  })
  .meta({ id: "Request" });
export type TRequest = z.infer<typeof ZRequest>;

// Counts from the pipeline's tables. An event is a CLI event when a CLI session took it (`cli_id`) or
// its destination is a CLI one; `events_count` counts the others (it excludes CLI).
const CLI_EVENT = "(e.cli_id IS NOT NULL OR dd.type = 'CLI')";
const COUNTS =
  `(SELECT count(*) FILTER (WHERE NOT ${CLI_EVENT}) FROM events e LEFT JOIN destinations dd ON dd.id = e.destination_id WHERE e.request_id = r.id)::int AS events_count, ` +
  `(SELECT count(*) FILTER (WHERE ${CLI_EVENT}) FROM events e LEFT JOIN destinations dd ON dd.id = e.destination_id WHERE e.request_id = r.id)::int AS cli_events_count, ` +
  "(SELECT count(*) FROM ignored_events i WHERE i.request_id = r.id)::int AS ignored_count";
const BASE_COLUMNS = "r.id, r.team_id, r.source_id, r.verified, r.rejection_cause, r.ingested_at, r.created_at, r.updated_at";
const COLUMNS = `${BASE_COLUMNS}, ${COUNTS}`;
const DATA_COLUMNS = "d.method, d.path, d.query, d.headers, d.body, d.body_size";
export const REQUEST_ORDER_BY = ["created_at", "ingested_at"] as const;

/**
 * The API model. With data: `body` is parsed JSON when the body is JSON, text otherwise, and for
 * binary bodies a base64 string (`is_large_payload` marks bodies cut at 64 KiB; the whole body is
 * always at `/requests/{id}/raw_body`).
 */
export function toRequest(row: RequestRow): TRequest {
  const model: TRequest = {
    id: row.id,
    team_id: row.team_id,
    verified: row.verified,
    original_event_data_id: null,
    rejection_cause: row.rejection_cause,
    ingested_at: row.ingested_at.toISOString(),
    source_id: row.source_id,
    events_count: row.events_count ?? 0,
    cli_events_count: row.cli_events_count ?? 0,
    ignored_count: row.ignored_count ?? 0,
    updated_at: row.updated_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
  if (row.path !== undefined) {
    const preview = bodyPreview(row.body ?? null, row.body_size ?? 0);
    model.data = {
      ...(row.method !== undefined ? { method: row.method } : {}),
      path: row.path,
      query: row.query ? row.query : null,
      parsed_query: parseQueryString(row.query ?? ""),
      headers: row.headers ?? {},
      body: preview.body,
      body_encoding: preview.body_encoding ?? null,
      is_large_payload: Boolean(preview.body_truncated),
    };
  }
  return model;
}

/** The request's raw data (`raw`), for the content filters. */
const REQUEST_RAW = "EXISTS (SELECT 1 FROM request_raw_data raw WHERE raw.request_id = r.id AND {})";

/** `GET /requests` filters (validation, SQL and OpenAPI; docs/gateway-api.md#requests). */
export const REQUEST_FILTERS: FilterTable = {
  id: stringFilter("r.id", "Request id, or an array."),
  source_id: stringFilter("r.source_id", "Source id, or an array."),
  status: enumFilter(
    "(CASE WHEN r.rejection_cause IS NULL THEN 'accepted' ELSE 'rejected' END)",
    ["accepted", "rejected"],
    "`accepted` (events were made, or none were due) or `rejected` (see `rejection_cause`).",
  ),
  rejection_cause: stringFilter(
    "r.rejection_cause",
    "A cause (`VERIFICATION_FAILED`, `SOURCE_DISABLED`, …), or an array; `rejection_cause[any]=true` for any.",
  ),
  verified: booleanFilter("r.verified", "Whether the source verified the request's signature."),
  ingested_at: dateFilter("r.ingested_at", "A date, or operators `gte gt lte lt`."),
  created_at: dateFilter("r.created_at", "A date, or operators `gte gt lte lt`."),
  headers: documentFilter("raw.headers", REQUEST_RAW, "Filter on the headers, in the filter syntax of rules (URL-encoded JSON or `headers[x-topic]=…`)."),
  body: documentFilter("hookyard_json_body(raw.body)", REQUEST_RAW, "Filter on the JSON body, in the filter syntax of rules."),
  parsed_query: documentFilter("hookyard_parsed_query(raw.query)", REQUEST_RAW, "Filter on the parsed query string, in the filter syntax of rules."),
  path: documentFilter("to_jsonb(raw.path)", REQUEST_RAW, 'The path: a string, or operators (`path={"$startsWith":"/orders"}`).'),
  search_term: searchFilter(REQUEST_RAW, "Text found in the body, headers, path or query."),
  bulk_retry_id: stringFilter("r.bulk_retry_id", "Bulk operation (`bch_…`, requests retry or replay) that last ran the request again, or an array."),
};

function requestFilters(teamId: string, query: ParsedQuery): { where: string[]; params: unknown[] } {
  const params: unknown[] = [teamId];
  const where = ["r.team_id = $1"];
  applyFilterTable(REQUEST_FILTERS, query, where, params);
  return { where, params };
}

/**
 * One page of the team's requests; `withData` joins the raw data (`include=data`). The counts are read
 * for the page's rows only, once the page is chosen: as columns of the paged SELECT the planner could
 * compute them for every matching row before sorting (seconds over a large team; docs/benchmarks.md "Explorers").
 */
export async function listRequests(teamId: string, query: ParsedQuery, page: PageRequest, withData: boolean): Promise<Page<TRequest>> {
  const { where, params } = requestFilters(teamId, query);
  const rows = await selectPage<RequestRow, RequestRow>({
    db: getPool(),
    select: withData ? `${BASE_COLUMNS}, ${DATA_COLUMNS.replace("d.body", "substring(d.body from 1 for 65537) AS body")}` : BASE_COLUMNS,
    from: withData ? "requests r JOIN request_raw_data d ON d.request_id = r.id" : "requests r",
    where,
    params,
    page,
    columns: { created_at: { sql: "r.created_at", type: "date" }, ingested_at: { sql: "r.ingested_at", type: "date" } },
    idColumn: "r.id",
    toModel: (r) => r,
  });
  const counts = new Map<string, Pick<RequestRow, "events_count" | "cli_events_count" | "ignored_count">>();
  if (rows.models.length) {
    const { rows: found } = await getPool().query<RequestRow>(`SELECT r.id, ${COUNTS} FROM unnest($1::text[]) AS r(id)`, [rows.models.map((r) => r.id)]);
    for (const c of found) counts.set(c.id, c);
  }
  return { ...rows, models: rows.models.map((r) => toRequest({ ...r, ...counts.get(r.id) })) };
}

/** Request `id` of `teamId` with its data; throws 404. */
export async function getRequest(teamId: string, id: string): Promise<TRequest> {
  const { rows } = await getPool().query<RequestRow>(
    `SELECT ${COLUMNS}, ${DATA_COLUMNS.replace("d.body", "substring(d.body from 1 for 65537) AS body")}
       FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.id = $1 AND r.team_id = $2`,
    [id, teamId],
  );
  if (!rows[0]) throw notFound(id);
  return toRequest(rows[0]);
}

/** `{body}`: the whole raw body as UTF-8 text, or base64 when it is not valid UTF-8. Throws 404. */
export async function getRequestRawBody(teamId: string, id: string): Promise<{ body: string }> {
  const { rows } = await getPool().query<{ body: Buffer | null }>(
    "SELECT d.body FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.id = $1 AND r.team_id = $2",
    [id, teamId],
  );
  if (!rows[0]) throw notFound(id);
  const body = rows[0].body ?? Buffer.alloc(0);
  const text = body.toString("utf8");
  return { body: Buffer.from(text, "utf8").equals(body) ? text : body.toString("base64") };
}
