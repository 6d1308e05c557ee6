/**
 * Bookmarks of a team (docs/gateway-api.md#bookmarks): a request's
 * data (`event_data_id`, as events and requests show it) kept with a connection, to be delivered again
 * through it (`POST /bookmarks/{id}/trigger`: the request runs through the connection's rules now and
 * the events made are returned). CRUD, raw body, trigger.
 */
import { getPool } from "@/lib/db/pool";
import { getPrisma, modelColumns, Prisma } from "@/lib/db/prisma";
import type { Bookmark } from "@/lib/generated/prisma/client";
import { fanOutNow } from "@/lib/gateway/pipeline/fanout";
import { getEvent } from "@/lib/gateway/events/event-store";
import { BOOKMARK_FILTERS } from "@/lib/gateway/issues/schemas";
import { getRequest, getRequestRawBody } from "@/lib/gateway/requests/request-store";
import { deleteTeamModel, getTeamModel, type TeamDelegate, type TeamModel } from "@/lib/gateway/team-resources";
import type { ApiVersion } from "@/lib/gateway/versions";
import { createId, ID_PREFIX } from "@/lib/ids";
import { unprocessable } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";

type BookmarkRow = Bookmark;
const BOOKMARKS: TeamModel<BookmarkRow> = {
  table: "bookmarks",
  alias: "b",
  columns: modelColumns("b", Prisma.BookmarkScalarFieldEnum, { connectionId: "webhook_id" }),
  delegate: (db) => db.bookmark as unknown as TeamDelegate<BookmarkRow>,
};

const toBookmark = (r: BookmarkRow) => ({
  id: r.id,
  team_id: r.teamId,
  webhook_id: r.connectionId,
  event_data_id: r.eventDataId,
  label: r.label,
  name: r.name,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});
type TBookmark = ReturnType<typeof toBookmark>;

/**
 * The request behind `eventDataId` of `teamId` (`edt_X` is request `req_X`, or event `evt_X`'s request)
 * and checks `webhookId` is one of the team's connections. Throws 422 with `data.id`.
 */
// The request lookup stays SQL: one statement over the (partitioned) requests and events tables.
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
  const connection = await getPrisma().connection.findFirst({ where: { id: webhookId, teamId }, select: { id: true } });
  if (!connection) throw unprocessable(`Connection ${webhookId} does not exist`, { id: webhookId });
  return rows[0].id;
}

/** `POST /bookmarks`. Throws 422 for unknown data or connection. */
export async function createBookmark(
  teamId: string,
  body: { event_data_id: string; webhook_id: string; label: string; name?: string | null },
): Promise<TBookmark> {
  const requestId = await resolve(teamId, body.event_data_id, body.webhook_id);
  const row = await getPrisma().bookmark.create({
    data: {
      id: createId("bookmark"),
      teamId,
      connectionId: body.webhook_id,
      eventDataId: body.event_data_id,
      requestId,
      label: body.label,
      name: body.name ?? null,
    },
  });
  return toBookmark(row);
}

/** `PUT /bookmarks/{id}`: the given fields. Throws 404, 422. */
export async function updateBookmark(
  teamId: string,
  id: string,
  body: { event_data_id?: string; webhook_id?: string; label?: string; name?: string | null },
): Promise<TBookmark> {
  const current = await getTeamModel(BOOKMARKS, teamId, pathId(id));
  const eventDataId = body.event_data_id ?? current.eventDataId;
  const webhookId = body.webhook_id ?? current.connectionId;
  const requestId = body.event_data_id || body.webhook_id ? await resolve(teamId, eventDataId, webhookId) : current.requestId;
  const data = {
    eventDataId,
    connectionId: webhookId,
    requestId,
    label: body.label ?? current.label,
    name: body.name === undefined ? current.name : body.name,
    updatedAt: new Date(),
  };
  return toBookmark(await BOOKMARKS.delegate(getPrisma()).update({ where: { id, teamId }, data }));
}

/** `GET /bookmarks/{id}` with the bookmarked request's `data`. Throws 404. */
export async function getBookmark(teamId: string, id: string) {
  const row = await getTeamModel(BOOKMARKS, teamId, pathId(id));
  const request = await getRequest(teamId, row.requestId).catch(() => null);
  return { ...toBookmark(row), ...(request?.data ? { data: request.data as Record<string, unknown> } : {}) };
}

export const deleteBookmark = (teamId: string, id: string) => deleteTeamModel(BOOKMARKS, teamId, pathId(id));

/** `GET /bookmarks/{id}/raw_body`: `{body}` of the bookmarked request. Throws 404. */
export async function getBookmarkRawBody(teamId: string, id: string): Promise<{ body: string }> {
  const row = await getTeamModel(BOOKMARKS, teamId, pathId(id));
  return getRequestRawBody(teamId, row.requestId);
}

/**
 * `POST /bookmarks/{id}/trigger`: runs the bookmarked request through the bookmark's connection now,
 * with its rules of today; returns the events made (none when a rule filtered it out). Throws 404, 422
 * when the connection is gone or disabled.
 */
export async function triggerBookmark(teamId: string, id: string, version: ApiVersion) {
  const row = await getTeamModel(BOOKMARKS, teamId, pathId(id));
  const connection = await getPrisma().connection.findFirst({ where: { id: row.connectionId, teamId }, select: { disabledAt: true } });
  if (!connection || connection.disabledAt) throw unprocessable(`Connection ${row.connectionId} does not exist or is disabled`, { id: row.connectionId });
  const eventIds = await fanOutNow([row.requestId], [row.connectionId]);
  return Promise.all(eventIds.map((e) => getEvent(teamId, e, version)));
}

/** `GET /bookmarks`: filters and paging. Throws 400. Stays SQL: the shared filter builders and keyset cursor. */
export function listBookmarks(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<TBookmark>> {
  const params: unknown[] = [teamId];
  const where = ["b.team_id = $1"];
  applyFilterTable(BOOKMARK_FILTERS, query, where, params);
  return selectPage<BookmarkRow, TBookmark>({
    db: getPool(),
    select: BOOKMARKS.columns,
    from: "bookmarks b",
    where,
    params,
    page,
    columns: { created_at: { sql: "b.created_at", type: "date" }, label: { sql: "b.label", type: "text" } },
    idColumn: "b.id",
    toModel: toBookmark,
  });
}
