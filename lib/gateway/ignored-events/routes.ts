/** Handlers of `/ignored-events` and `/requests/{id}/ignored_events` (read side; same shape in every version). */
import { assertTeamRequest } from "@/lib/gateway/events/event-store";
import { getIgnoredEvent, listIgnoredEvents } from "@/lib/gateway/ignored-events/ignored-event-store";
import { IGNORED_EVENT_ORDER_BY } from "@/lib/gateway/ignored-events/schemas";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

type IdParams = { id: string };

// GET /ignored-events - filters id, cause, webhook_id, request_id, transformation_id, created_at
export const listIgnoredEventsRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listIgnoredEvents(teamId, query, parsePaging(query, IGNORED_EVENT_ORDER_BY)),
}));

// GET /ignored-events/{id}
export const getIgnoredEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getIgnoredEvent(teamId, params.id) }));

// GET /requests/{id}/ignored_events - filter id; 404 for an unknown or another team's request
export const listRequestIgnoredEventsRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params, query }) => {
  await assertTeamRequest(teamId, params.id);
  return { body: await listIgnoredEvents(teamId, query, parsePaging(query, IGNORED_EVENT_ORDER_BY), params.id) };
});
