/**
 * Attempts of a gateway team, read side (docs/gateway-api.md#attempts): list
 * rows without `body` and `requested_url`, get one with them. Delivery writes them (lib/delivery).
 */
import { getPool } from "@/lib/db/pool";
import { ATTEMPT_FILTERS, type TAttempt } from "@/lib/gateway/attempts/schemas";
import { notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";
import { parseCapturedJson } from "@/lib/http/json-input";

type AttemptRow = {
  id: string;
  team_id: string;
  event_id: string;
  destination_id: string;
  attempt_number: number;
  trigger: TAttempt["trigger"];
  status: string;
  response_status: number | null;
  error_code: string | null;
  body?: string | null;
  requested_url?: string | null;
  http_method: string | null;
  bulk_retry_id: string | null;
  successful_at: Date | null;
  delivered_at: Date | null;
  responded_at: Date | null;
  delivery_latency: number | null;
  response_latency: number | null;
  created_at: Date;
  updated_at: Date;
};

const LIST_COLUMNS =
  "a.id, a.team_id, a.event_id, a.destination_id, a.attempt_number, a.trigger, a.status, a.response_status, a.error_code, a.http_method, a.bulk_retry_id, a.successful_at, a.delivered_at, a.responded_at, a.delivery_latency, a.response_latency, a.created_at, a.updated_at";
const FULL_COLUMNS = `${LIST_COLUMNS}, a.body, a.requested_url`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The stored response text: a JSON object or array parsed, anything else as it is. */
function responseBody(text: string | null | undefined): TAttempt["body"] {
  if (text == null) return null;
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return parseCapturedJson(text) as TAttempt["body"];
    } catch {
      /* not JSON: the text */
    }
  }
  return text;
}

/** Attempt row → API model; `full` adds `body` and `requested_url`. The stored SUCCESSFUL is listed as SUCCESFUL, the API's spelling. */
function toAttempt(row: AttemptRow, full: boolean): TAttempt {
  return {
    id: row.id,
    team_id: row.team_id,
    event_id: row.event_id,
    destination_id: row.destination_id,
    response_status: row.response_status,
    attempt_number: row.attempt_number,
    trigger: row.trigger,
    error_code: row.error_code,
    ...(full ? { body: responseBody(row.body), requested_url: row.requested_url ?? null } : {}),
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

/** One page of the team's attempts. Throws 400 on bad filters. */
export function listAttempts(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<TAttempt>> {
  const params: unknown[] = [teamId];
  const where = ["a.team_id = $1"];
  applyFilterTable(ATTEMPT_FILTERS, query, where, params);
  return selectPage<AttemptRow, TAttempt>({
    db: getPool(),
    select: LIST_COLUMNS,
    from: "attempts a",
    where,
    params,
    page,
    columns: { created_at: { sql: "a.created_at", type: "date" } },
    idColumn: "a.id",
    toModel: (r) => toAttempt(r, false),
  });
}

/** Attempt `id` of `teamId`, with its response body and requested URL; throws 404 (also for another team's). */
export async function getAttempt(teamId: string, id: string): Promise<TAttempt> {
  const { rows } = await getPool().query<AttemptRow>(`SELECT ${FULL_COLUMNS} FROM attempts a WHERE a.id = $1 AND a.team_id = $2`, [pathId(id), teamId]);
  if (!rows[0]) throw notFound(id);
  return toAttempt(rows[0], true);
}
