/**
 * Transformation executions (shared/reference/gateway-product.md §1 `GET /transformations/{id}/executions`):
 * one per run of a transformation by a connection's `transform` rule, written by the fan-out.
 */
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { notFound } from "@/lib/http/errors";
import { type PageRequest, selectPage } from "@/lib/http/paging";
import { applyFilters } from "@/lib/gateway/events/event-store";
import type { ParsedQuery } from "@/lib/http/query";

export const ZTransformationExecution = z
  .object({
    id: z.string(),
    team_id: z.string(),
    transformation_id: z.string(),
    webhook_id: z.string().nullable(),
    request_id: z.string().nullable(),
    event_id: z.string().nullable(),
    log_level: z.enum(["debug", "info", "warn", "error", "fatal"]),
    logs: z.array(z.object({ type: z.string(), message: z.string() })),
    original_event_data: z.unknown().nullable(),
    transformed_event_data: z.unknown().nullable(),
    issue_id: z.null(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "TransformationExecution" });

const toExecution = (r: Record<string, any>): z.infer<typeof ZTransformationExecution> => ({
  id: r.id,
  team_id: r.team_id,
  transformation_id: r.transformation_id,
  webhook_id: r.webhook_id,
  request_id: r.request_id,
  event_id: r.event_id,
  log_level: r.log_level,
  logs: r.logs ?? [],
  original_event_data: r.original_data ?? null,
  transformed_event_data: r.transformed_data ?? null,
  issue_id: null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

async function assertTransformation(teamId: string, id: string) {
  const { rowCount } = await getPool().query("SELECT 1 FROM transformations WHERE id = $1 AND team_id = $2", [id, teamId]);
  if (!rowCount) throw notFound(id);
}

/** One page of transformation `transformationId`'s executions; throws 404 for another team's or unknown transformation. */
export async function listExecutions(teamId: string, transformationId: string, query: ParsedQuery, page: PageRequest) {
  await assertTransformation(teamId, transformationId);
  const params: unknown[] = [teamId, transformationId];
  const where = ["x.team_id = $1", "x.transformation_id = $2"];
  applyFilters(query, where, params, [
    ["id", "x.id", "string"],
    ["log_level", "x.log_level", "string"],
    ["webhook_id", "x.webhook_id", "string"],
    ["created_at", "x.created_at", "date"],
  ]);
  return selectPage({ db: getPool(), select: "x.*", from: "transformation_executions x", where, params, page, columns: { created_at: { sql: "x.created_at", type: "date" } }, idColumn: "x.id", toModel: toExecution });
}

/** Execution `executionId` of transformation `transformationId`; throws 404. */
export async function getExecution(teamId: string, transformationId: string, executionId: string) {
  const { rows } = await getPool().query("SELECT * FROM transformation_executions WHERE id = $1 AND transformation_id = $2 AND team_id = $3", [executionId, transformationId, teamId]);
  if (!rows[0]) throw notFound(executionId);
  return toExecution(rows[0]);
}
