/**
 * The gateway's bulk operations on the shared runner (lib/delivery/bulk-runner.ts;
 * docs/gateway-api.md#bulk-operations): one graphile-worker task for every family. Its kind selects a
 * family's records (id order, BULK_BATCH_SIZE per batch, after the saved cursor, up to the bound taken at
 * creation) and applies the family's action in the batch's transaction; a batch refused on one record
 * (a record error of the fan-out) is redone record by record. Live traffic first: the runner waits while
 * bulk deliveries are backed up in the job queue (they run after live jobs, BULK_JOB_PRIORITY).
 */
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import { type BulkKind, type BulkStep, BULK_SLICE_MS, runBulkSlice as runSlice } from "@/lib/delivery/bulk-runner";
import { BULK_JOB_PRIORITY, DELIVER_TASK } from "@/lib/delivery/jobs";
import { type BulkRecord, bulkWhere, familyNamed, parseBulkQuery } from "@/lib/gateway/bulk/families";
import { type BulkRow, enqueueBulkRun } from "@/lib/gateway/bulk/bulk-store";
import { isRecordError } from "@/lib/gateway/pipeline/fanout";
import { type ArchivedRequest, pickArchived, replayArchived } from "@/lib/gateway/bulk/archive-replay";

/** Number of bulk deliveries waiting in the job queue (all operations). */
async function queuedBulkDeliveries(): Promise<number> {
  const { rows } = await getBackgroundPool().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1 AND priority = $2 AND locked_at IS NULL",
    [DELIVER_TASK, BULK_JOB_PRIORITY],
  );
  return rows[0]?.n ?? 0;
}

/** The gateway's bulk operations as a kind of the shared runner. */
const GATEWAY_BULK: BulkKind<BulkRow, BulkRecord> = {
  table: "bulk_operations",
  select: (op) => {
    const family = familyNamed(op.family);
    const { where, params } = bulkWhere(family, op.team_id, parseBulkQuery(family, op.query));
    return { from: family.from, columns: family.columns, key: [`${family.alias}.id`], where, params };
  },
  keyOf: (record) => [record.id],
  act: (client, op, records) => familyNamed(op.family).act(client, { id: op.id, teamId: op.team_id, query: op.query }, records),
  isRecordError,
  enqueue: (db, id) => enqueueBulkRun(db, id),
  backlog: () => queuedBulkDeliveries(),
};

/** Replays from the archive (docs/gateway-api.md "Replay from the archive"): their records are archive lines, read by `pick`. */
const ARCHIVE_REPLAY_BULK: BulkKind<BulkRow, ArchivedRequest> = {
  ...(GATEWAY_BULK as unknown as BulkKind<BulkRow, ArchivedRequest>),
  pick: (op, batchSize) => pickArchived(op, batchSize),
  act: (client, op, records) => replayArchived(client, { id: op.id, teamId: op.team_id, query: op.query }, records),
};

/** The kind of operation `bulkId` (by its family). */
async function kindOf(bulkId: string): Promise<BulkKind<BulkRow, BulkRecord> | BulkKind<BulkRow, ArchivedRequest>> {
  const { rows } = await getBackgroundPool().query<{ family: string }>("SELECT family FROM bulk_operations WHERE id = $1", [bulkId]);
  return rows[0]?.family === "requests.archive_replay" ? ARCHIVE_REPLAY_BULK : GATEWAY_BULK;
}

/**
 * The `bulk` task: handles batches of operation `bulkId` for up to `sliceMs`, then queues itself again
 * if batches remain (lib/delivery/bulk-runner.ts). Throws database errors (graphile-worker retries the
 * job; the operation resumes from its saved cursor).
 */
export async function runBulkSlice(bulkId: string, sliceMs = BULK_SLICE_MS): Promise<BulkStep> {
  const kind = await kindOf(bulkId);
  return runSlice(kind as BulkKind<BulkRow, BulkRecord>, bulkId, getConfig().bulkBatchSize, sliceMs);
}
