/**
 * Handlers of the bulk operation families (docs/gateway-api.md#bulk-operations): list,
 * create, plan, get and cancel under `/bulk/{resource}/{verb}`. Route files under
 * app/api/[version]/bulk/ re-export them. Domain code: bulk-store.ts (records), runner.ts (processing).
 */
import { cancelBulk, createBulk, getBulk, listBulk, planBulk } from "@/lib/gateway/bulk/bulk-store";
import { type BulkFamily, familyAt } from "@/lib/gateway/bulk/families";
import { BULK_ORDER_BY, type TBulkCreate, ZBulkCreate } from "@/lib/gateway/bulk/schemas";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { AppError } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

type FamilyParams = { resource: string; verb: string };
type OperationParams = FamilyParams & { id: string };

/** The family of the path in `version`; 404 for an unknown one or one that does not exist yet in `version`. */
function family(params: FamilyParams, version: ApiVersion): BulkFamily {
  const f = familyAt(params.resource, params.verb);
  if (!f) throw new AppError("NOT_FOUND", `No bulk operation at /bulk/${params.resource}/${params.verb}`);
  if (f.since && !isAtLeast(version, f.since)) throw new AppError("NOT_FOUND", `This endpoint exists from API version ${f.since}`);
  return f;
}

// GET <base> - filters cancelled_at, completed_at, created_at, id, in_progress, query (+ query_partial_match); paging
export const listBulkRoute = gatewayRoute<undefined, FamilyParams>({}, async ({ teamId, version, params, query }) => {
  const f = family(params, version);
  return { body: await listBulk(f, teamId, query, parsePaging(query, BULK_ORDER_BY), version) };
});

// POST <base> {query} - the new operation, processed by the worker
export const createBulkRoute = gatewayRoute<TBulkCreate, FamilyParams>({ body: ZBulkCreate }, async ({ teamId, version, params, body }) => {
  const f = family(params, version);
  return { body: await createBulk(f, teamId, body.query, version) };
});

// GET <base>/plan?query=… - {estimated_count, estimated_batch} (+ progress for events retry)
export const planBulkRoute = gatewayRoute<undefined, FamilyParams>({}, async ({ teamId, version, params, query }) => ({
  body: await planBulk(family(params, version), teamId, query),
}));

// GET <base>/{id}
export const getBulkRoute = gatewayRoute<undefined, OperationParams>({}, async ({ teamId, version, params }) => ({
  body: await getBulk(family(params, version), teamId, params.id, version),
}));

// POST <base>/{id}/cancel - no body
export const cancelBulkRoute = gatewayRoute<undefined, OperationParams>({}, async ({ teamId, version, params }) => ({
  body: await cancelBulk(family(params, version), teamId, params.id, version),
}));
