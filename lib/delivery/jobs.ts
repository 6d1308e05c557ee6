/**
 * Delivery jobs on PostgreSQL (graphile-worker). A job carries an event id only; the `events` row is
 * the truth (docs/pipeline.md#delivery-engine). Jobs are added with SQL inside the caller's transaction,
 * so an event and its job commit together or not at all.
 */
import type pg from "pg";

/** Task name of a delivery job; payload `{event_id}`. */
export const DELIVER_TASK = "deliver";
/** graphile-worker's own retries of a job whose handler threw (a database error; delivery failures are ours to schedule). */
const JOB_MAX_ATTEMPTS = 10;

type Db = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * Priority of the delivery jobs of bulk operations (graphile-worker runs lower numbers first; live
 * deliveries are 0), so a bulk retry of many events never holds up live traffic (docs/gateway-api.md#bulk-operations).
 */
export const BULK_JOB_PRIORITY = 10;

/**
 * Adds one delivery job per event, to run at `runAt[i]` (null = now), in the caller's transaction, with
 * `priority` (0 live; BULK_JOB_PRIORITY for bulk operations).
 * Throws the database error (e.g. graphile-worker's schema is not installed: run the migrations).
 */
export async function enqueueDeliveries(db: Db, eventIds: string[], runAt: (Date | null)[] = [], priority = 0): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(
    `SELECT count(*) FROM graphile_worker.add_jobs(
       (SELECT array_agg(ROW($3::text, json_build_object('event_id', t.id), NULL, t.run_at, $4::smallint, NULL, $5::smallint, NULL)::graphile_worker.job_spec)
          FROM unnest($1::text[], $2::timestamptz[]) AS t(id, run_at)))`,
    [eventIds, eventIds.map((_, i) => runAt[i] ?? null), DELIVER_TASK, JOB_MAX_ATTEMPTS, priority],
  );
}
