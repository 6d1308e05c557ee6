/** Handlers of `/transformations/{id}/executions` (read side; same shape in every version). */
import { EXECUTION_ORDER_BY, getExecution, listExecutions } from "@/lib/gateway/transformations/execution-store";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

// GET /transformations/{id}/executions - filters id, log_level, webhook_id, created_at; 404 for an unknown or another team's transformation
export const listExecutionsRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params, query }) => ({
  body: await listExecutions(teamId, params.id, query, parsePaging(query, EXECUTION_ORDER_BY)),
}));

// GET /transformations/{id}/executions/{execution_id}
export const getExecutionRoute = gatewayRoute<undefined, { id: string; execution_id: string }>({}, async ({ teamId, params }) => ({
  body: await getExecution(teamId, params.id, params.execution_id),
}));
