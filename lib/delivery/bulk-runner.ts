/**
 * The bulk-operation runner, product-free (docs/gateway-api.md#bulk-operations, docs/outbound.md "Bulk
 * redrive"): the gateway's bulk operations and the outbound service's redrives both run on it. An
 * operation is a row of its kind's table (`bulk_operations`, `outbound_redrives`: the same progress
 * columns) over a fixed set of records, those its filter matched at creation, keyed and ordered by the
 * kind's key columns up to the bound (`upper_bound`) taken then. Each batch is one transaction that locks
 * the operation's row, picks the next batch of records after the saved cursor, applies the kind's action
 * and saves the cursor and counts: a worker killed at any point resumes from the last committed batch and
 * handles no record twice. A cancelled operation stops before its next batch. A task works in slices of
 * `sliceMs` and then queues itself again, so a long operation neither holds a worker through shutdown nor
 * starves other jobs. Live traffic first: it waits while the kind's own work is backed up (more than one
 * batch queued and not started), and while ingestion reports its writer saturated
 * (lib/ingest/ingest-pressure.ts) it handles one batch per BULK_PRESSURE_PAUSE_MS only.
 */
import type pg from "pg";
import { getBackgroundPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { underIngestPressure } from "@/lib/delivery/pacing";
import { logger } from "@/lib/log";

const log = logger("bulk");
/** How long one run of a task handles batches before queueing itself again, ms. */
export const BULK_SLICE_MS = 2_000;
/** Work waiting, in batches, above which the runner pauses. */
const MAX_QUEUED_BATCHES = 1;
/** Pause after each batch while ingestion is saturated, ms. */
const BULK_PRESSURE_PAUSE_MS = 500;

export type BulkStep = "more" | "done" | "stopped";
export type BatchResult = { completed: number; failed: number };

/** The progress columns every kind's operation table has (read under the row lock with `SELECT *`). */
export type BulkProgressRow = {
  id: string;
  upper_bound: string | null;
  cursor: string | null;
  estimated_batch: number;
  processed_batch: number;
  completed_count: number;
  failed_count: number | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
};

/** How the records of one operation are selected: FROM, the columns a batch needs, the key columns (ordered), and the filter (parameters from $1). */
export type BulkSelection = { from: string; columns: string; key: string[]; where: string[]; params: unknown[] };

/** One kind of bulk operation (a product's): where its operations are, what they select and what they do. */
export type BulkKind<Row extends BulkProgressRow, Rec extends pg.QueryResultRow> = {
  /** The operations' table. */
  table: string;
  /** The records of operation `op`. */
  select: (op: Row) => BulkSelection;
  /**
   * Picks the next batch itself instead of `select` (records that are not rows of a table: a replay from
   * the archive reads files): up to `batchSize` records after `op.cursor`, the cursor after them (null:
   * unchanged) and whether none remain. Throws on errors (the batch is rolled back and tried again).
   */
  pick?: (op: Row, batchSize: number) => Promise<{ records: Rec[]; cursor: string | null; last: boolean }>;
  /** The values of a record's key columns, in `select().key` order. */
  keyOf: (record: Rec) => string[];
  /** Acts on one batch inside `client`'s transaction. Throws database errors. */
  act: (client: pg.PoolClient, op: Row, records: Rec[]) => Promise<BatchResult>;
  /** A batch refused with this error is redone record by record under savepoints, the refused records counted as failed. */
  isRecordError: (err: unknown) => boolean;
  /** Queues the task that runs operation `id` (in `db`'s transaction, or alone). */
  enqueue: (db: Pick<pg.PoolClient, "query">, id: string) => Promise<void>;
  /** Records this kind queued and not yet started (operation `id`'s, or all of the kind's): the runner waits while more than a batch wait. */
  backlog: (id: string) => Promise<number>;
};

/** The text stored as a cursor or bound for a key: the value itself for one column, a JSON array for several (existing gateway cursors are plain ids). */
export function encodeBulkKey(values: string[]): string {
  return values.length === 1 ? values[0] : JSON.stringify(values);
}

/** The key values of a stored cursor or bound of a `columns`-column key. Throws for a malformed one. */
function decodeBulkKey(text: string, columns: number): string[] {
  if (columns === 1) return [text];
  const v = JSON.parse(text) as unknown;
  if (!Array.isArray(v) || v.length !== columns || !v.every((x) => typeof x === "string")) throw new Error(`bad bulk cursor ${text}`);
  return v;
}

/** `key op (values)` as SQL, the values appended to `params`: `e.id <= $3` for one column, a row comparison for several. */
function keyCompare(key: string[], op: "<=" | ">", text: string, params: unknown[]): string {
  const values = decodeBulkKey(text, key.length);
  const placeholders = values.map((v) => `$${params.push(v)}`);
  return key.length === 1 ? `${key[0]} ${op} ${placeholders[0]}` : `(${key.join(", ")}) ${op} (${placeholders.join(", ")})`;
}

/** Runs `kind.act` on `records`; a batch refused on a record is redone record by record under savepoints, the refused ones counted as failed. */
async function actIsolated<Row extends BulkProgressRow, Rec extends pg.QueryResultRow>(
  client: pg.PoolClient,
  kind: BulkKind<Row, Rec>,
  op: Row,
  records: Rec[],
): Promise<BatchResult> {
  await client.query("SAVEPOINT hookyard_bulk");
  try {
    const r = await kind.act(client, op, records);
    await client.query("RELEASE SAVEPOINT hookyard_bulk");
    return r;
  } catch (err) {
    if (!kind.isRecordError(err)) throw err;
    await client.query("ROLLBACK TO SAVEPOINT hookyard_bulk");
    log.warn(`${op.id}: a batch was refused (${(err as Error).message}); handling it record by record`);
  }
  const total: BatchResult = { completed: 0, failed: 0 };
  for (const record of records) {
    await client.query("SAVEPOINT hookyard_bulk");
    try {
      const r = await kind.act(client, op, [record]);
      await client.query("RELEASE SAVEPOINT hookyard_bulk");
      total.completed += r.completed;
      total.failed += r.failed;
    } catch (err) {
      if (!kind.isRecordError(err)) throw err;
      await client.query("ROLLBACK TO SAVEPOINT hookyard_bulk");
      log.warn(`${op.id}: ${encodeBulkKey(kind.keyOf(record))} failed: ${(err as Error).message}`);
      total.failed += 1;
    }
  }
  return total;
}

/** The next batch of `op`'s records by `kind.select`: after the saved cursor, up to the bound, in key order. */
async function selectBatch<Row extends BulkProgressRow, Rec extends pg.QueryResultRow>(
  client: pg.PoolClient,
  kind: BulkKind<Row, Rec>,
  op: Row,
  bound: string,
  batchSize: number,
): Promise<{ records: Rec[]; cursor: string | null; last: boolean }> {
  const { from, columns, key, where, params } = kind.select(op);
  where.push(keyCompare(key, "<=", bound, params));
  if (op.cursor) where.push(keyCompare(key, ">", op.cursor, params));
  params.push(batchSize);
  const { rows: records } = await client.query<Rec>(
    `SELECT ${columns} FROM ${from} WHERE ${where.join(" AND ")} ORDER BY ${key.join(", ")} LIMIT $${params.length}`,
    params,
  );
  const lastRecord = records.at(-1);
  return { records, cursor: lastRecord === undefined ? null : encodeBulkKey(kind.keyOf(lastRecord)), last: records.length < batchSize };
}

/**
 * Handles the next batch of operation `id` of `kind`, in one transaction with its progress. Resolves
 * "more" when batches remain, "done" when it completed the operation, "stopped" when the operation is
 * cancelled, completed or gone. Throws database errors (the batch is rolled back and tried again).
 */
export async function runBulkBatch<Row extends BulkProgressRow, Rec extends pg.QueryResultRow>(
  kind: BulkKind<Row, Rec>,
  id: string,
  batchSize: number,
): Promise<BulkStep> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<Row>(`SELECT * FROM ${kind.table} WHERE id = $1 FOR UPDATE`, [id]);
    const op = rows[0];
    if (!op || op.cancelled_at || op.completed_at || !op.upper_bound) return "stopped";
    const { records, cursor, last } = kind.pick ? await kind.pick(op, batchSize) : await selectBatch(client, kind, op, op.upper_bound, batchSize);
    const result = records.length ? await actIsolated(client, kind, op, records) : { completed: 0, failed: 0 };
    const processed = op.processed_batch + (records.length ? 1 : 0);
    const progress = last ? 1 : Math.min(0.99, processed / Math.max(1, op.estimated_batch));
    await client.query(
      `UPDATE ${kind.table} SET cursor = coalesce($2, cursor), processed_batch = $3, completed_count = completed_count + $4,
              failed_count = coalesce(failed_count, 0) + $5, progress = $6, in_progress = NOT $7,
              completed_at = CASE WHEN $7 THEN now() END, updated_at = now()
        WHERE id = $1`,
      [op.id, cursor, processed, result.completed, result.failed, progress, last],
    );
    return last ? "done" : "more";
  }, getBackgroundPool());
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A bulk task's run: handles batches of operation `id` of `kind` for up to `sliceMs`, pausing while its
 * work is backed up, then queues itself again if batches remain. Throws database errors (the job is
 * retried; the operation resumes from its saved cursor).
 */
export async function runBulkSlice<Row extends BulkProgressRow, Rec extends pg.QueryResultRow>(
  kind: BulkKind<Row, Rec>,
  id: string,
  batchSize: number,
  sliceMs = BULK_SLICE_MS,
): Promise<BulkStep> {
  const until = Date.now() + sliceMs;
  while (Date.now() < until) {
    const step = await runBulkBatch(kind, id, batchSize);
    if (step !== "more") {
      if (step === "done") log.info(`${id} completed`);
      return step;
    }
    if (underIngestPressure()) await sleep(BULK_PRESSURE_PAUSE_MS);
    while (Date.now() < until && (await kind.backlog(id)) > MAX_QUEUED_BATCHES * batchSize) await sleep(50);
  }
  await kind.enqueue(getBackgroundPool(), id);
  return "more";
}
