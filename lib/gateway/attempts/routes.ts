/** Handlers of `/attempts` (read side; same shape in every version). */
import { getAttempt, listAttempts } from "@/lib/gateway/attempts/attempt-store";
import { ATTEMPT_ORDER_BY } from "@/lib/gateway/attempts/schemas";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

// GET /attempts - filters id, event_id, destination_id, status (SUCCESFUL|SUCCESSFUL|FAILED), trigger, created_at
export const listAttemptsRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listAttempts(teamId, query, parsePaging(query, ATTEMPT_ORDER_BY)),
}));

// GET /attempts/{id} - with the response body and requested_url
export const getAttemptRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({ body: await getAttempt(teamId, params.id) }));
