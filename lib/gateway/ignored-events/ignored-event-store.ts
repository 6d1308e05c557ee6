/**
 * Ignored events of a gateway team, read side (docs/gateway-api.md#ignored-events; also
 * `/requests/{id}/ignored_events`). The fan-out writes them (lib/gateway/pipeline).
 */
import { getPool } from "@/lib/db/pool";
import { IGNORED_EVENT_FILTERS, REQUEST_IGNORED_EVENT_FILTERS, type TIgnoredEvent } from "@/lib/gateway/ignored-events/schemas";
import { notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";

type IgnoredRow = {
  id: string;
  team_id: string;
  webhook_id: string;
  cause: TIgnoredEvent["cause"];
  request_id: string;
  meta: TIgnoredEvent["meta"];
  created_at: Date;
  updated_at: Date;
};
const COLUMNS = "i.id, i.team_id, i.webhook_id, i.cause, i.request_id, i.meta, i.created_at, i.updated_at";

const toIgnoredEvent = (r: IgnoredRow): TIgnoredEvent => ({
  id: r.id,
  team_id: r.team_id,
  webhook_id: r.webhook_id,
  cause: r.cause,
  request_id: r.request_id,
  meta: r.meta ?? null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** One page of the team's ignored events, or of request `requestId`'s (then only the `id` filter). Throws 400 on bad filters. */
export function listIgnoredEvents(teamId: string, query: ParsedQuery, page: PageRequest, requestId?: string): Promise<Page<TIgnoredEvent>> {
  const params: unknown[] = [teamId];
  const where = ["i.team_id = $1"];
  if (requestId) {
    params.push(requestId);
    where.push(`i.request_id = $${params.length}`);
  }
  applyFilterTable(requestId ? REQUEST_IGNORED_EVENT_FILTERS : IGNORED_EVENT_FILTERS, query, where, params);
  return selectPage<IgnoredRow, TIgnoredEvent>({
    db: getPool(),
    select: COLUMNS,
    from: "ignored_events i",
    where,
    params,
    page,
    columns: { created_at: { sql: "i.created_at", type: "date" } },
    idColumn: "i.id",
    toModel: toIgnoredEvent,
  });
}

/** Ignored event `id` of `teamId`; throws 404 (also for another team's). */
export async function getIgnoredEvent(teamId: string, id: string): Promise<TIgnoredEvent> {
  const { rows } = await getPool().query<IgnoredRow>(`SELECT ${COLUMNS} FROM ignored_events i WHERE i.id = $1 AND i.team_id = $2`, [pathId(id), teamId]);
  if (!rows[0]) throw notFound(id);
  return toIgnoredEvent(rows[0]);
}
