/** Handlers of `/transformations` (CRUD and `PUT /transformations/run`), shared by app/api/[version]/transformations. */
import { z } from "zod";
import { runTransformation } from "@/lib/rules/run-transformation";
import {
  countTransformations,
  createTransformation,
  deleteTransformation,
  findTransformation,
  getTransformation,
  listTransformations,
  toTransformation,
  TRANSFORMATION_ORDER_BY,
  updateTransformation,
  upsertTransformation,
  ZTransformationCreate,
  ZTransformationUpdate,
} from "@/lib/gateway/transformations/transformation-store";
import { getConnection } from "@/lib/gateway/connections/connection-store";
import { parseQueryString } from "@/lib/http/query";
import { AppError, unprocessable } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";
import { decryptJson } from "@/lib/crypto/secrets";

const ZRunRequest = z
  .strictObject({
    headers: z.record(z.string(), z.string()),
    body: z.unknown().optional(),
    path: z.string().optional().meta({ description: 'Default "/"' }),
    query: z.string().optional().meta({ description: 'Raw query string without "?"; default ""' }),
    parsed_query: z.record(z.string(), z.unknown()).optional().meta({ description: "Default: `query` parsed" }),
  })
  .meta({ description: "The sample request given to the handler" });

/**
 * `PUT /transformations/run` body: `code` and/or `transformation_id` (at least one). With both, the
 * given code runs with the saved transformation's env (to try an edit before saving it); `env` adds to
 * or overrides the saved env. `webhook_id` (a connection of the team) is given as `context.connection`.
 */
export const ZTransformationRun = z
  .strictObject({
    code: ZTransformationCreate.shape.code.optional(),
    transformation_id: z.string().min(1).optional(),
    env: ZTransformationCreate.shape.env,
    webhook_id: z.string().min(1).optional(),
    request: ZRunRequest.optional().meta({ description: 'Default: `{headers: {}, body: null, path: "/", query: ""}`' }),
  })
  .refine((b) => b.code !== undefined || b.transformation_id !== undefined, { message: "Give code or transformation_id", path: ["code"] });

/** The run endpoint's answer (the product's ExecutorOutput); 200 even when the code fails (`log_level: "fatal"`). */
export const ZTransformationRunOutput = z
  .object({
    transformation_id: z.string().optional(),
    log_level: z.enum(["debug", "info", "warn", "error", "fatal"]),
    request: z
      .object({
        headers: z.record(z.string(), z.string()),
        path: z.string(),
        query: z.string(),
        parsed_query: z.record(z.string(), z.unknown()),
        body: z.unknown(),
      })
      .optional(),
    console: z.array(z.object({ type: z.enum(["log", "info", "warn", "error", "debug"]), message: z.string() })),
  })
  .meta({ id: "TransformationRunOutput" });

// GET /transformations
export const listTransformationsRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listTransformations(teamId, query, parsePaging(query, TRANSFORMATION_ORDER_BY)),
}));
// POST /transformations (409 when the name is taken)
export const createTransformationRoute = gatewayRoute({ body: ZTransformationCreate }, async ({ teamId, body }) => ({
  body: toTransformation(await createTransformation(teamId, body)),
}));
// PUT /transformations - upsert by name
export const upsertTransformationRoute = gatewayRoute({ body: ZTransformationCreate }, async ({ teamId, body }) => ({
  body: toTransformation(await upsertTransformation(teamId, body)),
}));
// GET /transformations/count
export const countTransformationsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countTransformations(teamId, query) }));
// GET /transformations/{id}
export const getTransformationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({
  body: toTransformation(await getTransformation(teamId, params.id)),
}));
// PUT /transformations/{id}
export const updateTransformationRoute = gatewayRoute<z.infer<typeof ZTransformationUpdate>, { id: string }>(
  { body: ZTransformationUpdate },
  async ({ teamId, params, body }) => ({
    body: toTransformation(await updateTransformation(teamId, params.id, body)),
  }),
);
// DELETE /transformations/{id}
export const deleteTransformationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({
  body: await deleteTransformation(teamId, params.id),
}));

// PUT /transformations/run - run code or a saved transformation on a sample request (200 even when it fails;
// 429 when every sandbox thread is busy and TRANSFORMATION_QUEUE_MAX runs already wait)
export const runTransformationRoute = gatewayRoute<z.infer<typeof ZTransformationRun>>({ body: ZTransformationRun }, async ({ teamId, body }) => {
  let code = body.code;
  let env = body.env ?? {};
  if (body.transformation_id !== undefined) {
    const saved = await findTransformation(teamId, body.transformation_id);
    if (!saved) throw unprocessable(`Transformation ${body.transformation_id} does not exist`, { field: "transformation_id", id: body.transformation_id });
    code ??= saved.code;
    env = { ...(decryptJson<Record<string, string>>(saved.envEncrypted) ?? {}), ...env };
  }
  let connection: Record<string, unknown> | null = null;
  if (body.webhook_id !== undefined) {
    const row = await getConnection(teamId, body.webhook_id).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 404)
        throw unprocessable(`Connection ${body.webhook_id} does not exist`, { field: "webhook_id", id: body.webhook_id });
      throw err;
    });
    connection = {
      id: row.id,
      team_id: row.teamId,
      name: row.name,
      description: row.description,
      source_id: row.sourceId,
      destination_id: row.destinationId,
      rules: row.rules,
      paused_at: row.pausedAt?.toISOString() ?? null,
      disabled_at: row.disabledAt?.toISOString() ?? null,
      updated_at: row.updatedAt.toISOString(),
      created_at: row.createdAt.toISOString(),
    };
  }
  const req = body.request ?? { headers: {} };
  const query = req.query ?? "";
  const result = await runTransformation({
    code: code!,
    env,
    request: { headers: req.headers, body: req.body ?? null, path: req.path ?? "/", query, parsed_query: req.parsed_query ?? parseQueryString(query) },
    context: { connection },
    // Every sandbox thread busy and the queue full: a RATE_LIMITED AppError, the API's rate-limit answer.
    whenBusy: "refuse",
  });
  return {
    body: {
      ...(body.transformation_id !== undefined ? { transformation_id: body.transformation_id } : {}),
      log_level: result.logLevel,
      ...(result.ok ? { request: result.request } : {}),
      console: result.console,
    } satisfies z.infer<typeof ZTransformationRunOutput>,
  };
});
