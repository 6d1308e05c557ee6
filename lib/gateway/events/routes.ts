/**
 * Handlers of `/events` and a request's events and retry (docs/gateway-api.md#events).
 * Route files under app/api/[version]/ re-export them. The read side is
 * event-store.ts; retry and cancel are the delivery engine's actions (lib/gateway/delivery/event-actions.ts).
 */
import type { z } from "zod";
import { cancelEvent, retryEvent, retryRequest } from "@/lib/gateway/delivery/event-actions";
import { assertTeamRequest, EVENT_ORDER_BY, getEvent, getEventRawBody, listEvents } from "@/lib/gateway/events/event-store";
import { ZRequestRetry } from "@/lib/gateway/events/schemas";
import { getRequest } from "@/lib/gateway/requests/request-store";
import { includesAny } from "@/lib/gateway/team-resources";
import type { ApiVersion } from "@/lib/gateway/versions";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";
import { pathId } from "@/lib/http/query-schema";

type IdParams = { id: string };

// GET /events - filters id, status, webhook_id, source_id, destination_id, request_id, attempts, response_status, error_code, cli_id, dates; include=data
export const listEventsRoute = gatewayRoute({}, async ({ teamId, version, query }) => ({
  body: await listEvents(teamId, query, parsePaging(query, EVENT_ORDER_BY), includesAny(query, "data"), version),
}));

// GET /events/{id} - always with its data
export const getEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params }) => ({
  body: await getEvent(teamId, params.id, version),
}));

// GET /events/{id}/raw_body
export const getEventRawBodyRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getEventRawBody(teamId, params.id) }));

// GET /requests/{id}/events - the event filters and paging; 404 for an unknown or another team's request
export const listRequestEventsRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params, query }) => {
  await assertTeamRequest(teamId, params.id);
  return { body: await listEvents(teamId, query, parsePaging(query, EVENT_ORDER_BY), includesAny(query, "data"), version, params.id) };
});

// POST /events/{id}/retry - a manual attempt now, whatever the status; returns the event at the root,
// with the former `attempt` property, always null (docs/gateway-api.md#events)
export const retryEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params }) => {
  await retryEvent(teamId, pathId(params.id), "MANUAL");
  return { body: { ...(await getEvent(teamId, params.id, version)), attempt: null } };
});

// PUT /events/{id}/cancel (2025-07-01) and PUT /events/{id}/mute (every version) - 422 when not cancellable
const cancel = async ({ teamId, version, params }: { teamId: string; version: ApiVersion; params: IdParams }) => {
  await cancelEvent(teamId, pathId(params.id));
  return { body: await getEvent(teamId, params.id, version) };
};
export const cancelEventRoute = gatewayRoute<undefined, IdParams>({ since: "2025-07-01" }, cancel);
export const muteEventRoute = gatewayRoute<undefined, IdParams>({}, cancel);

// POST /requests/{id}/retry {webhook_ids?} - runs the request through its connections again: {request, events}
export const retryRequestRoute = gatewayRoute<z.infer<typeof ZRequestRetry>, IdParams>(
  { body: ZRequestRetry, optionalBody: true },
  async ({ teamId, version, params, body }) => {
    const ids = await retryRequest(teamId, pathId(params.id), body?.webhook_ids);
    const events = await Promise.all(ids.map((id) => getEvent(teamId, id, version)));
    return { body: { request: await getRequest(teamId, params.id), events: events.length ? events : null } };
  },
);
