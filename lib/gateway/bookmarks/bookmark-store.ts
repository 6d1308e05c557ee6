/**
 * Bookmarks of a team (docs/gateway-api.md#bookmarks): a request's
 * data (`event_data_id`, as events and requests show it) kept with a connection, to be delivered again
 * through it (`POST /bookmarks/{id}/trigger`: the request runs through the connection's rules now and
 * the events made are returned). CRUD, raw body, trigger.
 */
import { getPool } from "@/lib/db/pool";
import { fanOutNow } from "@/lib/gateway/pipeline/fanout";
import { getEvent } from "@/lib/gateway/events/event-store";
import { BOOKMARK_FILTERS } from "@/lib/gateway/issues/schemas";
import { getRequest, getRequestRawBody } from "@/lib/gateway/requests/request-store";
import { deleteTeamRow, getTeamRow, type TeamTable } from "@/lib/gateway/team-resources";
import type { ApiVersion } from "@/lib/gateway/versions";
import { createId, ID_PREFIX } from "@/lib/ids";
import { unprocessable } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";

type BookmarkRow = { id: string; team_id: string; webhook_id: string; event_data_id: string; request_id: string; label: string; name: string | null; created_at: Date; updated_at: Date };
const BOOKMARKS: TeamTable = { table: "bookmarks", alias: "b", columns: "b.*" };

const toBookmark = (r: BookmarkRow) => ({
  id: r.id, team_id: r.team_id, webhook_id: r.webhook_id, event_data_id: r.event_data_id, label: r.label, name: r.name,
  created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
});
export type TBookmark = ReturnType<typeof toBookmark>;

/**
 * The request behind `eventDataId` of `teamId` (`edt_X` is request `req_X`, or event `evt_X`'s request)
 * and checks `webhookId` is one of the team's connections. Throws 422 with `data.id`.
 */
async function resolve(teamId: string, eventDataId: string, webhookId: string): Promise<string> {
  const tail = eventDataId.startsWith("edt_") ? eventDataId.slice(4) : null;
  const { rows } = tail
    ? await getPool().query<{ id: string }>(
        `SELECT id FROM requests WHERE id = $1 AND team_id = $3
         UNION ALL SELECT request_id FROM events WHERE id = $2 AND team_id = $3 LIMIT 1`,
        [ID_PREFIX.request + tail, ID_PREFIX.event + tail, teamId],
      )
    : { rows: [] };
  if (!rows[0]) throw unprocessable(`Event data ${eventDataId} does not exist`, { id: eventDataId });
  const { rowCount } = await getPool().query("SELECT 1 FROM connections WHERE id = $1 AND team_id = $2", [webhookId, teamId]);
  if (!rowCount) throw unprocessable(`Connection ${webhookId} does not exist`, { id: webhookId });
  return rows[0].id;
}

/** `POST /bookmarks`. Throws 422 for unknown data or connection. */
export async function createBookmark(teamId: string, body: { event_data_id: string; webhook_id: string; label: string; name?: string | null }): Promise<TBookmark> {
  const requestId = await resolve(teamId, body.event_data_id, body.webhook_id);
  const { rows } = await getPool().query<BookmarkRow>(
    "INSERT INTO bookmarks (id, team_id, webhook_id, event_data_id, request_id, label, name) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *",
    [createId("bookmark"), teamId, body.webhook_id, body.event_data_id, requestId, body.label, body.name ?? null],
  );
  return toBookmark(rows[0]);
}

/** `PUT /bookmarks/{id}`: the given fields. Throws 404, 422. */
export async function updateBookmark(teamId: string, id: string, body: { event_data_id?: string; webhook_id?: string; label?: string; name?: string | null }): Promise<TBookmark> {
  const current = await getTeamRow<BookmarkRow>(BOOKMARKS, teamId, pathId(id));
  const eventDataId = body.event_data_id ?? current.event_data_id;
  const webhookId = body.webhook_id ?? current.webhook_id;
  const requestId = body.event_data_id || body.webhook_id ? await resolve(teamId, eventDataId, webhookId) : current.request_id;
  const { rows } = await getPool().query<BookmarkRow>(
    "UPDATE bookmarks SET event_data_id = $3, webhook_id = $4, request_id = $5, label = $6, name = $7, updated_at = now() WHERE id = $1 AND team_id = $2 RETURNING *",
    [id, teamId, eventDataId, webhookId, requestId, body.label ?? current.label, body.name === undefined ? current.name : body.name],
  );
  return toBookmark(rows[0]);
}

/** `GET /bookmarks/{id}` with the bookmarked request's `data`. Throws 404. */
export async function getBookmark(teamId: string, id: string) {
  const row = await getTeamRow<BookmarkRow>(BOOKMARKS, teamId, pathId(id));
  const request = await getRequest(teamId, row.request_id).catch(() => null);
  return { ...toBookmark(row), ...(request?.data ? { data: request.data as Record<string, unknown> } : {}) };
}

export const deleteBookmark = (teamId: string, id: string) => deleteTeamRow(BOOKMARKS, teamId, pathId(id));

/** `GET /bookmarks/{id}/raw_body`: `{body}` of the bookmarked request. Throws 404. */
export async function getBookmarkRawBody(teamId: string, id: string): Promise<{ body: string }> {
  const row = await getTeamRow<BookmarkRow>(BOOKMARKS, teamId, pathId(id));
  return getRequestRawBody(teamId, row.request_id);
}

/**
 * `POST /bookmarks/{id}/trigger`: runs the bookmarked request through the bookmark's connection now,
 * with its rules of today; returns the events made (none when a rule filtered it out). Throws 404, 422
 * when the connection is gone or disabled.
 */
export async function triggerBookmark(teamId: string, id: string, version: ApiVersion) {
  const row = await getTeamRow<BookmarkRow>(BOOKMARKS, teamId, pathId(id));
  const { rows } = await getPool().query<{ disabled_at: Date | null }>("SELECT disabled_at FROM connections WHERE id = $1 AND team_id = $2", [row.webhook_id, teamId]);
  if (!rows[0] || rows[0].disabled_at) throw unprocessable(`Connection ${row.webhook_id} does not exist or is disabled`, { id: row.webhook_id });
  const eventIds = await fanOutNow([row.request_id], [row.webhook_id]);
  return Promise.all(eventIds.map((e) => getEvent(teamId, e, version)));
}

/** `GET /bookmarks`: filters and paging. Throws 400. */
export function listBookmarks(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<TBookmark>> {
  const params: unknown[] = [teamId];
  const where = ["b.team_id = $1"];
  applyFilterTable(BOOKMARK_FILTERS, query, where, params);
  return selectPage<BookmarkRow, TBookmark>({
    db: getPool(), select: "b.*", from: "bookmarks b", where, params, page,
    columns: { created_at: { sql: "b.created_at", type: "date" }, label: { sql: "b.label", type: "text" } }, idColumn: "b.id", toModel: toBookmark,
  });
}
