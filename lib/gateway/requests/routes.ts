/** Handlers of `/requests` (read side), shared by app/api/[version]/requests. Same shape in every version. */
import { getRequest, getRequestRawBody, listRequests, REQUEST_ORDER_BY } from "@/lib/gateway/requests/request-store";
import { includesAny } from "@/lib/gateway/team-resources";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

// GET /requests - filters id, source_id, status (accepted|rejected), rejection_cause, verified, ingested_at, created_at; include=data
export const listRequestsRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listRequests(teamId, query, parsePaging(query, REQUEST_ORDER_BY), includesAny(query, "data")),
}));

// GET /requests/{id} - with its data
export const getRequestRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({ body: await getRequest(teamId, params.id) }));

// GET /requests/{id}/raw_body
export const getRequestRawBodyRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({
  body: await getRequestRawBody(teamId, params.id),
}));
