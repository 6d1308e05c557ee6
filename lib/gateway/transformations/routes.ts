/** Handlers of `/transformations` (CRUD and `PUT /transformations/run`), shared by app/api/[version]/transformations. */
import { z } from "zod";
import { runTransformation } from "@/lib/gateway/transformations/run-transformation";
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
import { unprocessable } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/http/gateway";
import { parsePaging } from "@/lib/http/paging";
import { decryptJson } from "@/lib/crypto/secrets";

/** `PUT /transformations/run` body. */
export const ZTransformationRun = z
  .strictObject({
    code: z.string().min(1).max(100_000).optional(),
    transformation_id: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    webhook_id: z.string().optional(),
    request: z
      .strictObject({
        headers: z.record(z.string(), z.string()),
        body: z.unknown().optional(),
        path: z.string().optional(),
        query: z.string().optional(),
        parsed_query: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  })
  .refine((b) => Boolean(b.code) !== Boolean(b.transformation_id), { message: "give code or transformation_id", path: ["code"] });

// GET /transformations
export const listTransformationsRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listTransformations(teamId, query, parsePaging(query, TRANSFORMATION_ORDER_BY)),
}));
// POST /transformations (409 when the name is taken)
export const createTransformationRoute = gatewayRoute({ body: ZTransformationCreate }, async ({ teamId, body }) => ({ body: toTransformation(await createTransformation(teamId, body)) }));
// PUT /transformations - upsert by name
export const upsertTransformationRoute = gatewayRoute({ body: ZTransformationCreate }, async ({ teamId, body }) => ({ body: toTransformation(await upsertTransformation(teamId, body)) }));
// GET /transformations/count
export const countTransformationsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countTransformations(teamId, query) }));
// GET /transformations/{id}
export const getTransformationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({ body: toTransformation(await getTransformation(teamId, params.id)) }));
// PUT /transformations/{id}
export const updateTransformationRoute = gatewayRoute<z.infer<typeof ZTransformationUpdate>, { id: string }>({ body: ZTransformationUpdate }, async ({ teamId, params, body }) => ({
  body: toTransformation(await updateTransformation(teamId, params.id, body)),
}));
// DELETE /transformations/{id}
export const deleteTransformationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({ body: await deleteTransformation(teamId, params.id) }));

// PUT /transformations/run - run code or a saved transformation on a sample request (200 even when it fails)
export const runTransformationRoute = gatewayRoute<z.infer<typeof ZTransformationRun>>({ body: ZTransformationRun }, async ({ teamId, body }) => {
  let code = body.code;
  let env = body.env ?? {};
  if (body.transformation_id) {
    const saved = await findTransformation(teamId, body.transformation_id);
    if (!saved) throw unprocessable(`Transformation ${body.transformation_id} does not exist`, { field: "transformation_id", id: body.transformation_id });
    code = saved.code;
    env = { ...(decryptJson<Record<string, string>>(saved.env_encrypted) ?? {}), ...(body.env ?? {}) };
  }
  const req = body.request ?? { headers: {} };
  const query = req.query ?? "";
  const result = await runTransformation({
    code: code!,
    env,
    request: { headers: req.headers, body: req.body ?? null, path: req.path ?? "/", query, parsed_query: req.parsed_query ?? Object.fromEntries(new URLSearchParams(query)) },
    context: { connection: null },
  });
  return {
    body: {
      ...(body.transformation_id ? { transformation_id: body.transformation_id } : {}),
      log_level: result.logLevel,
      ...(result.ok ? { request: result.request } : {}),
      console: result.console,
    },
  };
});
