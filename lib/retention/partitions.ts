import type pg from "pg";
import { ID_PREFIX } from "@/lib/ids";

/**
 * Time partitions of the tables that grow with traffic (issue 15 §5 "Retention"; design "Data lifecycle").
 * Migration 20261123220000_time_partitions partitions each by RANGE of its id: ids of these kinds start
 * with their creation time (lib/ids.ts), so a range of ids is a range of creation times. Partitions are
 * named `{table}_pYYYYMMDD` after their first UTC day and created by the SQL function
 * `hookyard_create_partition`; a `{table}_default` partition takes any id outside every range so an insert
 * never fails.
 */

/** Partitioned tables, children before parents (request_raw_data references requests). */
export const PARTITIONED_TABLES = [
  { table: "request_raw_data", prefix: ID_PREFIX.request, key: "request_id" },
  { table: "requests", prefix: ID_PREFIX.request, key: "id" },
  { table: "events", prefix: ID_PREFIX.event, key: "id" },
  { table: "ignored_events", prefix: ID_PREFIX.ignoredEvent, key: "id" },
  { table: "attempts", prefix: ID_PREFIX.attempt, key: "id" },
  { table: "transformation_executions", prefix: ID_PREFIX.execution, key: "id" },
] as const;

export const DAY_MS = 86_400_000;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Creation time (Unix ms) an id or partition bound encodes: its first 48 of 128 bits. Null when not a time-ordered id. */
export function idTimeMs(id: string, prefix: string): number | null {
  const body = id.slice(prefix.length);
  if (!id.startsWith(prefix) || !/^[0-9A-Za-z]{22}$/.test(body)) return null;
  let n = 0n;
  for (const ch of body) n = n * 62n + BigInt(ALPHABET.indexOf(ch));
  return Number(n >> 80n);
}

export type Partition = { name: string; table: string; fromMs: number | null; toMs: number | null };

/** The range partitions of `table` (the default one excluded), with the creation times their bounds encode. */
export async function listPartitions(db: pg.Pool | pg.PoolClient, table: string, prefix: string): Promise<Partition[]> {
  const { rows } = await db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );
  const out: Partition[] = [];
  for (const r of rows) {
    const m = /FROM \('([^']*)'\) TO \('([^']*)'\)/.exec(r.bound);
    if (!m) continue; // DEFAULT
    out.push({ name: r.name, table, fromMs: idTimeMs(m[1]!, prefix), toMs: idTimeMs(m[2]!, prefix) });
  }
  return out;
}

/**
 * Creates the partitions that hold ids created up to `now + aheadDays`, `intervalDays` wide, the first
 * starting where the newest one ends (or at the start of `now`'s interval when none exists). A range whose ids
 * already sit in the default partition (the worker was off for longer than `aheadDays`) cannot be attached
 * without moving rows; it is skipped and its rows expire from the default partition instead
 * ({@link purgeExpired}). Returns the names created.
 */
export async function ensurePartitions(db: pg.Pool, opts: { now: number; intervalDays: number; aheadDays: number }): Promise<string[]> {
  const interval = opts.intervalDays * DAY_MS;
  const until = opts.now + opts.aheadDays * DAY_MS;
  const created: string[] = [];
  for (const { table, prefix } of PARTITIONED_TABLES) {
    const parts = await listPartitions(db, table, prefix);
    // Continue from the newest partition's end, so no range is left out after a pause of the worker.
    let start = parts.length ? Math.max(...parts.map((p) => p.toMs ?? 0)) : Math.floor(opts.now / interval) * interval;
    while (start < until) {
      try {
        const { rows } = await db.query<{ made: boolean }>("SELECT hookyard_create_partition($1, $2, $3, $4) AS made", [table, prefix, start, start + interval]);
        if (rows[0]?.made) created.push(`${table}_p${new Date(start).toISOString().slice(0, 10).replaceAll("-", "")}`);
      } catch (err) {
        // 23514: rows of this range are in the default partition already; 42P17: overlaps an existing range;
        // 42P07: another worker created it at the same moment.
        const code = (err as { code?: string }).code;
        if (code !== "23514" && code !== "42P17" && code !== "42P07") throw err;
      }
      start += interval;
    }
  }
  return created;
}

/**
 * Expires what was created before `now - retentionDays`: drops every partition whose whole range is older
 * (no row-by-row delete), and deletes the older rows of the default partitions (a safety net, normally
 * empty). Returns the partitions dropped and the default rows deleted.
 */
export async function purgeExpired(db: pg.Pool, opts: { now: number; retentionDays: number }): Promise<{ dropped: string[]; defaultRows: number }> {
  const cutoff = opts.now - opts.retentionDays * DAY_MS;
  const dropped: string[] = [];
  let defaultRows = 0;
  for (const { table, prefix, key } of PARTITIONED_TABLES) {
    for (const p of await listPartitions(db, table, prefix)) {
      if (p.toMs === null || p.toMs > cutoff) continue;
      // Detaching and dropping lock the parent table: with a short lock timeout a drop never waits behind a long
      // query while inserts queue behind it (at most 1 s); the next pass retries.
      const client = await db.connect();
      try {
        await client.query("BEGIN");
        await client.query("SET LOCAL lock_timeout = '1s'");
        // A partition of a table other tables reference (requests) is detached first: PostgreSQL checks that
        // no row references it (its raw data partition, same range, was dropped just before), then drops it.
        await client.query(`ALTER TABLE "${table}" DETACH PARTITION "${p.name}"`);
        await client.query(`DROP TABLE "${p.name}"`);
        await client.query("COMMIT");
        dropped.push(p.name);
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        // 55P03: lock timeout; 42P01: another worker dropped it first.
        const code = (err as { code?: string }).code;
        if (code !== "55P03" && code !== "42P01") throw err;
      } finally {
        client.release();
      }
    }
    const res = await db.query(`DELETE FROM "${table}_default" WHERE "${key}" >= $1 AND "${key}" < hookyard_id_bound($1, $2)`, [prefix, cutoff]);
    defaultRows += res.rowCount ?? 0;
  }
  return { dropped, defaultRows };
}
