/**
 * Handlers of `/bookmarks` (docs/gateway-api.md#bookmarks). Route files under
 * app/api/[version]/bookmarks re-export them.
 */
import type { z } from "zod";
import {
  createBookmark,
  deleteBookmark,
  getBookmark,
  getBookmarkRawBody,
  listBookmarks,
  triggerBookmark,
  updateBookmark,
} from "@/lib/gateway/bookmarks/bookmark-store";
import { ZBookmarkCreate, ZBookmarkUpdate } from "@/lib/gateway/issues/schemas";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

type IdParams = { id: string };

// GET /bookmarks - filters id, name, label, webhook_id, event_data_id, created_at; paging
export const listBookmarksRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listBookmarks(teamId, query, parsePaging(query, ["created_at", "label"])),
}));
// POST /bookmarks {event_data_id, webhook_id, label, name?}
export const createBookmarkRoute = gatewayRoute<z.infer<typeof ZBookmarkCreate>>({ body: ZBookmarkCreate }, async ({ teamId, body }) => ({
  body: await createBookmark(teamId, body),
}));
// GET /bookmarks/{id} - with the request's data
export const getBookmarkRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getBookmark(teamId, params.id) }));
// PUT /bookmarks/{id}
export const updateBookmarkRoute = gatewayRoute<z.infer<typeof ZBookmarkUpdate>, IdParams>({ body: ZBookmarkUpdate }, async ({ teamId, params, body }) => ({
  body: await updateBookmark(teamId, params.id, body),
}));
// DELETE /bookmarks/{id} - {id}
export const deleteBookmarkRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await deleteBookmark(teamId, params.id) }));
// GET /bookmarks/{id}/raw_body
export const bookmarkRawBodyRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({
  body: await getBookmarkRawBody(teamId, params.id),
}));
// POST /bookmarks/{id}/trigger - the events made
export const triggerBookmarkRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params }) => ({
  body: await triggerBookmark(teamId, params.id, version),
}));
