/**
 * The bulk operation runner (docs/gateway-api.md#bulk-operations): one
 * graphile-worker task for every family. Each batch is one transaction that locks the operation's row,
 * picks the next BULK_BATCH_SIZE records of its fixed set (id order, after the saved cursor, up to the
 * bound taken at creation), applies the family's action and saves the cursor and counts: a worker killed
 * at any point resumes from the last committed batch and handles no record twice. A cancelled
 * operation stops before its next batch. The task works in slices of BULK_SLICE_MS and then queues
 * itself again, so a long operation neither holds a worker through shutdown nor starves other jobs.
 * Live traffic first: it waits while bulk deliveries are backed up in the job queue (they run after
 * live jobs, BULK_JOB_PRIORITY), and while ingestion reports its writer saturated
 * (lib/ingest/ingest-pressure.ts) it handles one batch per BULK_PRESSURE_PAUSE_MS only: it still
 * progresses, but leaves the machine to the senders.
 */
import type pg from "pg";
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { underIngestPressure } from "@/lib/delivery/pacing";
import { BULK_JOB_PRIORITY, DELIVER_TASK } from "@/lib/delivery/jobs";
import { type BatchResult, type BulkFamily, type BulkRecord, bulkWhere, familyNamed, parseBulkQuery, type RunningOperation } from "@/lib/gateway/bulk/families";
import { type BulkRow, enqueueBulkRun } from "@/lib/gateway/bulk/bulk-store";
import { isRecordError } from "@/lib/gateway/pipeline/fanout";
import { logger } from "@/lib/log";

const log = logger("bulk");
/** How long one run of the task handles batches before queueing itself again, ms. */
const BULK_SLICE_MS = 2_000;
/** Bulk deliveries waiting in the job queue, in batches, above which the runner pauses. */
const MAX_QUEUED_BATCHES = 1;
/** Pause after each batch while ingestion is saturated, ms. */
const BULK_PRESSURE_PAUSE_MS = 500;

type Step = "more" | "done" | "stopped";

/** Runs `family.act` on `records`; a batch refused on a record is redone record by record under savepoints, the refused ones counted as failed. */
async function actIsolated(client: pg.PoolClient, family: BulkFamily, op: RunningOperation, records: BulkRecord[]): Promise<BatchResult> {
  await client.query("SAVEPOINT hookyard_bulk");
  try {
    const r = await family.act(client, op, records);
    await client.query("RELEASE SAVEPOINT hookyard_bulk");
    return r;
  } catch (err) {
    if (!isRecordError(err)) throw err;
    await client.query("ROLLBACK TO SAVEPOINT hookyard_bulk");
    log.warn(`${op.id}: a batch was refused (${(err as Error).message}); handling it record by record`);
  }
  const total: BatchResult = { completed: 0, failed: 0 };
  for (const record of records) {
    await client.query("SAVEPOINT hookyard_bulk");
    try {
      const r = await family.act(client, op, [record]);
      await client.query("RELEASE SAVEPOINT hookyard_bulk");
      total.completed += r.completed;
      total.failed += r.failed;
    } catch (err) {
      if (!isRecordError(err)) throw err;
      await client.query("ROLLBACK TO SAVEPOINT hookyard_bulk");
      log.warn(`${op.id}: ${record.id} failed: ${(err as Error).message}`);
      total.failed += 1;
    }
  }
  return total;
}

/**
 * Handles the next batch of operation `bulkId`, in one transaction with its progress. Resolves "more"
 * when batches remain, "done" when it completed the operation, "stopped" when the operation is
 * cancelled, completed or gone. Throws database errors (the batch is rolled back and tried again).
 */
async function runBatch(bulkId: string, batchSize = getConfig().bulkBatchSize): Promise<Step> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<BulkRow>("SELECT * FROM bulk_operations WHERE id = $1 FOR UPDATE", [bulkId]);
    const op = rows[0];
    if (!op || op.cancelled_at || op.completed_at || !op.upper_bound) return "stopped";
    const family = familyNamed(op.family);
    const { where, params } = bulkWhere(family, op.team_id, parseBulkQuery(family, op.query));
    const id = `${family.alias}.id`;
    params.push(op.upper_bound);
    where.push(`${id} <= $${params.length}`);
    if (op.cursor) {
      params.push(op.cursor);
      where.push(`${id} > $${params.length}`);
    }
    params.push(batchSize);
    const { rows: records } = await client.query<BulkRecord>(
      `SELECT ${family.columns} FROM ${family.from} WHERE ${where.join(" AND ")} ORDER BY ${id} LIMIT $${params.length}`,
      params,
    );
    const result = records.length
      ? await actIsolated(client, family, { id: op.id, teamId: op.team_id, query: op.query }, records)
      : { completed: 0, failed: 0 };
    const last = records.length < batchSize;
    const processed = op.processed_batch + (records.length ? 1 : 0);
    const progress = last ? 1 : Math.min(0.99, processed / Math.max(1, op.estimated_batch));
    await client.query(
      `UPDATE bulk_operations SET cursor = coalesce($2, cursor), processed_batch = $3, completed_count = completed_count + $4,
              failed_count = coalesce(failed_count, 0) + $5, progress = $6, in_progress = NOT $7,
              completed_at = CASE WHEN $7 THEN now() END, updated_at = now()
        WHERE id = $1`,
      [op.id, records.at(-1)?.id ?? null, processed, result.completed, result.failed, progress, last],
    );
    return last ? "done" : "more";
  }, getBackgroundPool());
}

/** Number of bulk deliveries waiting in the job queue (all operations). */
async function queuedBulkDeliveries(): Promise<number> {
  const { rows } = await getBackgroundPool().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1 AND priority = $2 AND locked_at IS NULL",
    [DELIVER_TASK, BULK_JOB_PRIORITY],
  );
  return rows[0]?.n ?? 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The `bulk` task: handles batches of operation `bulkId` for up to `sliceMs`, pausing while its
 * deliveries are backed up, then queues itself again if batches remain. Throws database errors
 * (graphile-worker retries the job; the operation resumes from its saved cursor).
 */
export async function runBulkSlice(bulkId: string, sliceMs = BULK_SLICE_MS): Promise<Step> {
  const until = Date.now() + sliceMs;
  const batchSize = getConfig().bulkBatchSize;
  while (Date.now() < until) {
    const step = await runBatch(bulkId, batchSize);
    if (step !== "more") {
      if (step === "done") log.info(`${bulkId} completed`);
      return step;
    }
    if (underIngestPressure()) await sleep(BULK_PRESSURE_PAUSE_MS);
    while (Date.now() < until && (await queuedBulkDeliveries()) > MAX_QUEUED_BATCHES * batchSize) await sleep(50);
  }
  await enqueueBulkRun(getBackgroundPool(), bulkId);
  return "more";
}
