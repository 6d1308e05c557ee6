/**
 * Bulk operations of a team (docs/gateway-api.md#bulk-operations):
 * create (the matched set is fixed here: records up to the newest match),
 * plan, list, get and cancel. The worker processes them (lib/gateway/bulk/runner.ts).
 */
import type pg from "pg";
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { getPrisma, modelColumns, Prisma } from "@/lib/db/prisma";
import type { BulkOperation } from "@/lib/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import { type BulkFamily, bulkWhere, type FamilyName, parseBulkQuery, type ReplayTarget } from "@/lib/gateway/bulk/families";
import { BULK_FILTERS, type TBulkOperation } from "@/lib/gateway/bulk/schemas";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { createId } from "@/lib/ids";
import { AppError, badRequest, notFound, unprocessable } from "@/lib/http/errors";
import { jsonFilterPath } from "@/lib/http/json-filter";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import { type ParsedQuery, parseJsonParam } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";

/** graphile-worker task that runs a bulk operation; payload `{bulk_id}`. */
export const BULK_TASK = "bulk";

/** A `bulk_operations` row as the runner reads it (`SELECT *` under its row lock, lib/gateway/bulk/runner.ts). */
export type BulkRow = {
  id: string;
  team_id: string;
  family: FamilyName;
  number: number;
  query: Record<string, unknown>;
  upper_bound: string | null;
  cursor: string | null;
  estimated_count: number;
  estimated_batch: number;
  processed_batch: number;
  completed_count: number;
  failed_count: number | null;
  in_progress: boolean;
  progress: number;
  completed_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** The SELECT list of a `bulk_operations b` query that returns the Prisma model (create and list stay SQL). */
const COLUMNS = modelColumns("b", Prisma.BulkOperationScalarFieldEnum);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The API record of `row` (the Prisma model); `type` only from 2025-07-01 and only for the families that have one. */
function toBulkOperation(row: BulkOperation, family: BulkFamily, version: ApiVersion): TBulkOperation {
  return {
    id: row.id,
    team_id: row.teamId,
    ...(family.type && isAtLeast(version, "2025-07-01") ? { type: family.type as TBulkOperation["type"] } : {}),
    query: row.query as Record<string, unknown>,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    cancelled_at: iso(row.cancelledAt),
    completed_at: iso(row.completedAt),
    estimated_batch: row.estimatedBatch,
    estimated_count: row.estimatedCount,
    processed_batch: row.processedBatch,
    completed_count: row.completedCount,
    in_progress: row.inProgress,
    progress: row.progress,
    failed_count: row.failedCount,
    number: row.number,
  };
}

/** Adds (or keeps) the runner job of operation `id`, in `db`'s transaction. */
export async function enqueueBulkRun(db: Pick<pg.PoolClient, "query">, id: string, runAt: Date | null = null): Promise<void> {
  await db.query("SELECT graphile_worker.add_job($1, json_build_object('bulk_id', $2::text), run_at => $3, job_key => $4, max_attempts => 25::smallint)", [
    BULK_TASK,
    id,
    runAt,
    `bulk:${id}`,
  ]);
}

/** The matched count and the newest matched id (the set's upper bound) of `filters` (`query`'s, for a family that counts itself). */
async function countMatches(
  db: Pick<pg.PoolClient, "query">,
  family: BulkFamily,
  teamId: string,
  filters: ParsedQuery,
  query: Record<string, unknown>,
): Promise<{ count: number; bound: string | null }> {
  if (family.count) return family.count(teamId, query);
  const { where, params } = bulkWhere(family, teamId, filters);
  const { rows } = await db.query<{ count: number; bound: string | null }>(
    `SELECT count(*)::int AS count, max(${family.alias}.id) AS bound FROM ${family.from} WHERE ${where.join(" AND ")}`,
    params,
  );
  return rows[0];
}

const batches = (count: number) => Math.ceil(count / getConfig().bulkBatchSize);

/**
 * `GET <base>/plan`: `{estimated_count, estimated_batch}` (+ `progress: 0` for events retry) of `query`
 * (URL-encoded JSON, bracket form, or absent = everything). A replay's `target` is ignored. Throws 422
 * for an invalid query.
 */
export async function planBulk(
  family: BulkFamily,
  teamId: string,
  query: ParsedQuery,
): Promise<{ estimated_count: number; estimated_batch: number; progress?: number }> {
  const raw = parseJsonParam(query, "query") ?? {};
  const filters = parseBulkQuery(family, raw);
  const { count } = await countMatches(getPool(), family, teamId, filters, raw as Record<string, unknown>);
  return { estimated_count: count, estimated_batch: batches(count), ...(family.planHasProgress ? { progress: 0 } : {}) };
}

/** Checks a replay's `query.target` (422 naming the field, or with `data.id` for a missing or disabled source or connection). */
async function checkReplayTarget(db: Pick<pg.PoolClient, "query">, teamId: string, target: unknown): Promise<ReplayTarget> {
  if (!target || typeof target !== "object" || Array.isArray(target))
    throw unprocessable("query.target: required, an object {source_id, webhook_ids?}", { field: "query.target" });
  const { source_id: sourceId, webhook_ids: webhookIds, ...rest } = target as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra) throw unprocessable(`query.target.${extra}: unknown field`, { field: `query.target.${extra}` });
  if (typeof sourceId !== "string" || !sourceId) throw unprocessable("query.target.source_id: required, a source id", { field: "query.target.source_id" });
  if (
    webhookIds !== undefined &&
    !(Array.isArray(webhookIds) && webhookIds.length > 0 && webhookIds.length <= 100 && webhookIds.every((w) => typeof w === "string" && w))
  ) {
    throw unprocessable("query.target.webhook_ids: an array of 1 to 100 connection ids", { field: "query.target.webhook_ids" });
  }
  const { rows: sources } = await db.query<{ disabled_at: Date | null }>("SELECT disabled_at FROM sources WHERE id = $1 AND team_id = $2", [sourceId, teamId]);
  if (!sources[0] || sources[0].disabled_at) throw unprocessable(`Source ${sourceId} does not exist or is disabled`, { id: sourceId });
  if (webhookIds) {
    const { rows } = await db.query<{ id: string; disabled_at: Date | null }>(
      "SELECT id, disabled_at FROM connections WHERE id = ANY($1) AND team_id = $2 AND source_id = $3",
      [webhookIds, teamId, sourceId],
    );
    for (const id of webhookIds as string[]) {
      const c = rows.find((r) => r.id === id);
      if (!c || c.disabled_at) throw unprocessable(`Connection ${id} does not exist, is disabled or is not a connection of source ${sourceId}`, { id });
    }
  }
  return { source_id: sourceId, ...(webhookIds ? { webhook_ids: webhookIds as string[] } : {}) };
}

/**
 * `POST <base>` `{query}`: a new operation over what `query` matches now (later records are never
 * swept in), queued for the worker. Throws 400 for an empty query, 422 for an invalid query or target, 422 UNPROCESSABLE_ENTITY
 * when it matches nothing (the families docs/gateway-api.md#bulk-operations names), 422 while an operation with the same query
 * is in progress.
 */
export async function createBulk(family: BulkFamily, teamId: string, query: Record<string, unknown>, version: ApiVersion): Promise<TBulkOperation> {
  // As the real product answers (docs/gateway-api.md#bulk-operations): an operation never
  // acts on every record by accident. The plan still takes an empty query (an estimate of everything).
  if (Object.keys(query).length === 0) throw badRequest("Empty query object is not allowed", { query: {} });
  const filters = parseBulkQuery(family, query);
  // Stays SQL: one pg transaction holds the team's advisory lock, the family's count and the graphile-worker job.
  const row = await inTransaction(async (client) => {
    // One creation at a time per team: numbers count up without gaps or duplicates.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('hookyard-bulk:' || $1))", [teamId]);
    const stored = { ...query };
    if (family.extraKeys.includes("target")) stored.target = await checkReplayTarget(client, teamId, query.target);
    const { rowCount: running } = await client.query("SELECT 1 FROM bulk_operations WHERE team_id = $1 AND family = $2 AND in_progress AND query = $3::jsonb", [
      teamId,
      family.name,
      JSON.stringify(stored),
    ]);
    if (running) throw unprocessable("Batch operation using same query is currently in progress, wait for it to complete or cancel it");
    const { count, bound } = await countMatches(client, family, teamId, filters, query);
    if (count === 0 && family.emptyIsError) throw unprocessable("The query matches no records: nothing to do");
    const done = count === 0;
    const { rows } = await client.query<BulkOperation>(
      `INSERT INTO bulk_operations AS b (id, team_id, family, number, query, upper_bound, estimated_count, estimated_batch, in_progress, progress, failed_count, completed_at)
       VALUES ($1, $2, $3, (SELECT coalesce(max(number), 0) + 1 FROM bulk_operations WHERE team_id = $2), $4, $5, $6, $7, $8, $9, $10, $11)
       RETURNING ${COLUMNS}`,
      [
        createId("bulkOperation"),
        teamId,
        family.name,
        JSON.stringify(stored),
        bound,
        count,
        batches(count),
        !done,
        done ? 1 : 0,
        done ? 0 : null,
        done ? new Date() : null,
      ],
    );
    if (!done) await enqueueBulkRun(client, rows[0].id);
    return rows[0];
  });
  return toBulkOperation(row, family, version);
}

/** Operation `id` of `teamId` in `family`; throws 404 (also for another team's or another family's). */
export async function getBulk(family: BulkFamily, teamId: string, id: string, version: ApiVersion): Promise<TBulkOperation> {
  const row = await getPrisma().bulkOperation.findFirst({ where: { id: pathId(id), teamId, family: family.name } });
  if (!row) throw notFound(id);
  return toBulkOperation(row, family, version);
}

/**
 * `POST <base>/{id}/cancel`: sets `cancelled_at` (the runner stops before its next batch) and
 * `in_progress` false; a completed operation keeps `completed_at` (docs/gateway-api.md#bulk-operations).
 * Cancelling twice keeps the first time. Throws 404.
 */
export async function cancelBulk(family: BulkFamily, teamId: string, id: string, version: ApiVersion): Promise<TBulkOperation> {
  const bulk = getPrisma().bulkOperation;
  const where = { id: pathId(id), teamId, family: family.name };
  // Two conditional UPDATEs, each atomic: the first cancel sets the time; a later one keeps it.
  for (;;) {
    const now = new Date();
    const [cancelled] = await bulk.updateManyAndReturn({
      where: { ...where, cancelledAt: null },
      data: { cancelledAt: now, inProgress: false, updatedAt: now },
    });
    const row =
      cancelled ?? (await bulk.updateManyAndReturn({ where: { ...where, cancelledAt: { not: null } }, data: { inProgress: false, updatedAt: now } }))[0];
    if (row) return toBulkOperation(row, family, version);
    if (!(await bulk.findFirst({ where, select: { id: true } }))) throw notFound(id);
  }
}

/**
 * One page of the team's operations of `family`: the list filters (BULK_FILTERS), `query` (URL-encoded
 * JSON: equal to the stored query, or contained in it with `query_partial_match=true`; the bracket form
 * compares its text values loosely) and paging. Throws 400.
 */
export function listBulk(family: BulkFamily, teamId: string, query: ParsedQuery, page: PageRequest, version: ApiVersion): Promise<Page<TBulkOperation>> {
  const params: unknown[] = [teamId, family.name];
  const where = ["b.team_id = $1", "b.family = $2"];
  applyFilterTable(BULK_FILTERS, query, where, params);
  const stored = parseJsonParam(query, "query");
  if (stored !== undefined) {
    if (!stored || typeof stored !== "object" || Array.isArray(stored)) throw badRequest('"query" must be a JSON object', { field: "query" });
    const partial = query.query_partial_match === "true" || query.query_partial_match === "1";
    if (typeof query.query === "string") {
      // JSON: compared as JSON.
      params.push(JSON.stringify(stored));
      where.push(partial ? `b.query @> $${params.length}::jsonb` : `b.query = $${params.length}::jsonb`);
    } else {
      // The bracket form (`query[attempts][gte]=2`, as SDKs send objects) holds only text: compared
      // loosely (2 matches "2"), as the rules' filter syntax does; exact means the same top-level keys too.
      try {
        params.push(jsonFilterPath(stored));
      } catch (err) {
        if (err instanceof AppError) throw badRequest(`Invalid value for "query": ${err.message}`, { field: "query" });
        throw err;
      }
      where.push(`b.query @@ $${params.length}::jsonpath`);
      if (!partial) {
        params.push(Object.keys(stored).sort());
        where.push(`ARRAY(SELECT k FROM jsonb_object_keys(b.query) k ORDER BY k COLLATE "C") = $${params.length}::text[]`);
      }
    }
  }
  // Stays SQL: jsonb containment and jsonpath matching of `query`, the shared filter builders and keyset cursor.
  return selectPage<BulkOperation, TBulkOperation>({
    db: getPool(),
    select: COLUMNS,
    from: "bulk_operations b",
    where,
    params,
    page,
    columns: { created_at: { sql: "b.created_at", type: "date" } },
    idColumn: "b.id",
    toModel: (r) => toBulkOperation(r, family, version),
  });
}
