/**
 * Transformation executions, read side (docs/gateway-api.md#transformation-executions;
 * `GET /transformations/{id}/executions`): one per run of a transformation by a connection's
 * `transform` rule, written by the fan-out (lib/gateway/pipeline).
 */
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { notFound } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, dateFilter, enumFilter, type FilterTable, pathId, stringFilter } from "@/lib/http/query-schema";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "fatal"] as const;

const ZExecutionRequest = z
  .object({
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
    path: z.string(),
    query: z.string(),
    parsed_query: z.record(z.string(), z.unknown()),
  })
  .partial()
  .meta({ description: "A request as the handler sees it." });

export const ZTransformationExecution = z
  .object({
    id: z.string(),
    team_id: z.string(),
    transformation_id: z.string(),
    webhook_id: z.string().nullable().meta({ description: "The connection whose rule ran it." }),
    request_id: z.string().nullable(),
    event_id: z.string().nullable().meta({ description: "The event it made; null when it failed." }),
    log_level: z.enum(LOG_LEVELS).meta({ description: "The highest level logged; `fatal` when the code failed." }),
    logs: z.array(z.object({ type: z.string(), message: z.string() })).meta({ description: "`console.*` output." }),
    original_event_data: ZExecutionRequest.nullable(),
    transformed_event_data: ZExecutionRequest.nullable().meta({ description: "What the handler returned; null when it failed." }),
    issue_id: z
      .string()
      .nullable()
      .meta({ description: "The transformation issue (`iss_…`) it counts in, if a trigger opened one for its transformation and log level." }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "TransformationExecution" });
type TTransformationExecution = z.infer<typeof ZTransformationExecution>;

/**
 * The issue an execution counts in (lib/gateway/issues/detect.ts groups transformation issues by
 * transformation and log level): the latest of that group seen first no later than the execution.
 */
const ISSUE_OF = `(SELECT i.id FROM issues i WHERE i.team_id = x.team_id AND i.type = 'transformation' AND i.group_key = x.transformation_id || '|' || x.log_level
    AND i.first_seen_at <= x.created_at ORDER BY i.first_seen_at DESC, i.id DESC LIMIT 1)`;

/** Filters of `GET /transformations/{id}/executions` (table alias `x`). */
export const EXECUTION_FILTERS = {
  id: stringFilter("x.id", "Execution id, or an array."),
  issue_id: stringFilter(ISSUE_OF, "Issue (`iss_…`) the execution counts in, or an array; `issue_id[any]=true` for those in one."),
  log_level: enumFilter("x.log_level", LOG_LEVELS, "debug, info, warn, error or fatal; or an array."),
  webhook_id: stringFilter("x.webhook_id", "Connection id, or an array."),
  created_at: dateFilter("x.created_at", "Date with operators."),
} satisfies FilterTable;
export const EXECUTION_ORDER_BY = ["created_at"] as const;

type ExecutionRow = {
  id: string;
  team_id: string;
  transformation_id: string;
  webhook_id: string | null;
  request_id: string | null;
  event_id: string | null;
  log_level: TTransformationExecution["log_level"];
  logs: TTransformationExecution["logs"] | null;
  original_data: TTransformationExecution["original_event_data"];
  transformed_data: TTransformationExecution["transformed_event_data"];
  issue_id: string | null;
  created_at: Date;
  updated_at: Date;
};
const COLUMNS = `x.id, x.team_id, x.transformation_id, x.webhook_id, x.request_id, x.event_id, x.log_level, x.logs, x.original_data, x.transformed_data, x.created_at, x.updated_at, ${ISSUE_OF} AS issue_id`;

const toExecution = (r: ExecutionRow): TTransformationExecution => ({
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
  issue_id: r.issue_id,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

async function assertTransformation(teamId: string, id: string) {
  const { rowCount } = await getPool().query("SELECT 1 FROM transformations WHERE id = $1 AND team_id = $2", [pathId(id), teamId]);
  if (!rowCount) throw notFound(id);
}

/** One page of transformation `transformationId`'s executions; 404 for an unknown or another team's transformation, 400 on bad filters. */
export async function listExecutions(teamId: string, transformationId: string, query: ParsedQuery, page: PageRequest): Promise<Page<TTransformationExecution>> {
  await assertTransformation(teamId, transformationId);
  const params: unknown[] = [teamId, transformationId];
  const where = ["x.team_id = $1", "x.transformation_id = $2"];
  applyFilterTable(EXECUTION_FILTERS, query, where, params);
  return selectPage<ExecutionRow, TTransformationExecution>({
    db: getPool(),
    select: COLUMNS,
    from: "transformation_executions x",
    where,
    params,
    page,
    columns: { created_at: { sql: "x.created_at", type: "date" } },
    idColumn: "x.id",
    toModel: toExecution,
  });
}

/** Execution `executionId` of transformation `transformationId` of `teamId`; throws 404. */
export async function getExecution(teamId: string, transformationId: string, executionId: string): Promise<TTransformationExecution> {
  const { rows } = await getPool().query<ExecutionRow>(
    `SELECT ${COLUMNS} FROM transformation_executions x WHERE x.id = $1 AND x.transformation_id = $2 AND x.team_id = $3`,
    [pathId(executionId), pathId(transformationId), teamId],
  );
  if (!rows[0]) throw notFound(executionId);
  return toExecution(rows[0]);
}
