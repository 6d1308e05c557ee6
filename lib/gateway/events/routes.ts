/**
 * Handlers of `/events`, `/ignored-events`, `/attempts`, a request's events, ignored events and retry,
 * and transformation executions (shared/spec/gateway.md "Other named endpoints"; reference §1). Route
 * files under app/api/[version]/ re-export them.
 */
import { z } from "zod";
import { cancelEvent, retryEvent, retryRequest } from "@/lib/delivery/event-actions";
import {
  assertTeamRequest,
  EVENT_ORDER_BY,
  getAttempt,
  getEvent,
  getEventRawBody,
  getIgnoredEvent,
  listAttempts,
  listEvents,
  listIgnoredEvents,
} from "@/lib/gateway/events/event-store";
import { getExecution, listExecutions } from "@/lib/gateway/events/execution-store";
import { getRequest } from "@/lib/gateway/requests/request-store";
import { includesAny } from "@/lib/gateway/team-resources";
import { gatewayRoute } from "@/lib/http/gateway";
import { parsePaging } from "@/lib/http/paging";

type IdParams = { id: string };
const CREATED_AT = ["created_at"] as const;

// GET /events - filters status, webhook_id, source_id, destination_id, request_id, attempts, response_status, error_code, cli_id, dates; include=data
export const listEventsRoute = gatewayRoute({}, async ({ teamId, version, query }) => ({
  body: await listEvents(teamId, query, parsePaging(query, EVENT_ORDER_BY), includesAny(query, "data"), version),
}));

// GET /events/{id} - with its data
export const getEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params }) => ({ body: await getEvent(teamId, params.id, version) }));

// GET /events/{id}/raw_body
export const getEventRawBodyRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getEventRawBody(teamId, params.id) }));

// POST /events/{id}/retry - a manual attempt now, whatever the status; returns the event at the root
export const retryEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params }) => {
  await retryEvent(teamId, params.id, "MANUAL");
  return { body: await getEvent(teamId, params.id, version) };
});

// PUT /events/{id}/cancel (2025-07-01) and PUT /events/{id}/mute (every version) - 422 when not cancellable
const cancel = async ({ teamId, version, params }: { teamId: string; version: Parameters<typeof getEvent>[2]; params: IdParams }) => {
  await cancelEvent(teamId, params.id);
  return { body: await getEvent(teamId, params.id, version) };
};
export const cancelEventRoute = gatewayRoute<undefined, IdParams>({ since: "2025-07-01" }, cancel);
export const muteEventRoute = gatewayRoute<undefined, IdParams>({}, cancel);

// GET /requests/{id}/events, GET /requests/{id}/ignored_events
export const listRequestEventsRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, version, params, query }) => {
  await assertTeamRequest(teamId, params.id);
  return { body: await listEvents(teamId, query, parsePaging(query, EVENT_ORDER_BY), includesAny(query, "data"), version, params.id) };
});
export const listRequestIgnoredEventsRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params, query }) => {
  await assertTeamRequest(teamId, params.id);
  return { body: await listIgnoredEvents(teamId, query, parsePaging(query, CREATED_AT), params.id) };
});

// POST /requests/{id}/retry {webhook_ids?} - runs the request through its connections again: {request, events}
const ZRequestRetry = z.strictObject({ webhook_ids: z.array(z.string().min(1)).min(1).max(100).optional() });
export const retryRequestRoute = gatewayRoute<z.infer<typeof ZRequestRetry>, IdParams>({ body: ZRequestRetry, optionalBody: true }, async ({ teamId, version, params, body }) => {
  const ids = await retryRequest(teamId, params.id, body?.webhook_ids);
  const events = await Promise.all(ids.map((id) => getEvent(teamId, id, version)));
  return { body: { request: await getRequest(teamId, params.id), events: events.length ? events : null } };
});

// GET /ignored-events, GET /ignored-events/{id}
export const listIgnoredEventsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await listIgnoredEvents(teamId, query, parsePaging(query, CREATED_AT)) }));
export const getIgnoredEventRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getIgnoredEvent(teamId, params.id) }));

// GET /attempts (filters event_id, destination_id, status, trigger, created_at), GET /attempts/{id}
export const listAttemptsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await listAttempts(teamId, query, parsePaging(query, CREATED_AT)) }));
export const getAttemptRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getAttempt(teamId, params.id) }));

// GET /transformations/{id}/executions (filters log_level, webhook_id, created_at), GET …/executions/{execution_id}
export const listExecutionsRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params, query }) => ({
  body: await listExecutions(teamId, params.id, query, parsePaging(query, CREATED_AT)),
}));
export const getExecutionRoute = gatewayRoute<undefined, { id: string; execution_id: string }>({}, async ({ teamId, params }) => ({
  body: await getExecution(teamId, params.id, params.execution_id),
}));
