/**
 * Keeps the per-minute metrics rollups (docs/gateway-api.md#rollups-kept-by-the-worker-and-freshness; lib/metrics/query.ts RollupStore; migration
 * 20261124173000_metrics_rollups). A trigger marks the (team, minute) of every base row a statement
 * inserts, updates or deletes in `metrics_dirty`, in the writer's transaction. A pass here takes the marks
 * of closed minutes (older than `graceMs`), and in ONE repeatable-read transaction recomputes those
 * minutes of every rollup of the source (delete their rows, insert the aggregate of the base rows) and
 * deletes the marks of those minutes that its snapshot sees (exactly the changes it aggregated). So:
 * - a minute without a mark is exact in the rollup (a change committed after the pass's snapshot left a
 *   mark the pass could not see, so it stays dirty; queries read dirty minutes from the base table);
 * - a worker killed mid-pass rolls back: nothing is counted twice, the marks are still there;
 * - two workers never recompute at once (a transaction-scoped advisory lock; the other one skips).
 */
import type pg from "pg";
import { baseAlias, baseMinuteSql, HOUR_SQL, MINUTE_SQL, type RollupStore } from "@/lib/metrics/query";
import { startPeriodic } from "@/lib/db/periodic";

const ROLLUP_LOCK = 727274003;

/** (team, minute) pairs recomputed per transaction at most. */
const BATCH = 2_000;

/**
 * One rollup pass over `stores` (grouped by source) at `now` (ms): recomputes the dirty minutes that ended
 * at least `graceMs` before `now`, BATCH marks per transaction, until none is left or `maxMs` has passed.
 * Returns the number of (team, minute) pairs recomputed, or null when another pass holds the lock.
 * Throws on database errors (the transaction in flight is rolled back; its marks stay).
 */
export async function rollupPass(
  pool: pg.Pool,
  stores: RollupStore[],
  now: number,
  options: { graceMs?: number; maxMs?: number } = {},
): Promise<number | null> {
  const graceMs = options.graceMs ?? 60_000;
  const deadline = Date.now() + (options.maxMs ?? 30_000);
  const cutoff = new Date(Math.floor((now - graceMs) / 60_000) * 60_000 - 60_000);
  const bySource = new Map<string, RollupStore[]>();
  for (const s of stores) bySource.set(s.source, [...(bySource.get(s.source) ?? []), s]);
  let done = 0;
  for (const [source, group] of bySource) {
    for (;;) {
      const n = await rollupBatch(pool, source, group, cutoff);
      if (n === null) return done || null;
      done += n;
      if (n === 0 || Date.now() > deadline) break;
    }
  }
  return done;
}

/**
 * Takes the lock of the rollup passes of each of `sources` (e.g. "events") in the open transaction of
 * `client`, waiting for a pass that holds one. Until that transaction ends, no process's pass recomputes
 * those sources (they skip, as for a concurrent pass), so their dirty marks stay as written. Throws on
 * database errors.
 */
export async function holdRollups(client: pg.ClientBase, sources: readonly string[]): Promise<void> {
  for (const source of sources) await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [ROLLUP_LOCK, source]);
}

/** One transaction: up to BATCH dirty (team, minute) pairs of `source` up to `cutoff`; the number recomputed, null when locked. */
async function rollupBatch(pool: pg.Pool, source: string, stores: RollupStore[], cutoff: Date): Promise<number | null> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    const { rows: lock } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS ok", [ROLLUP_LOCK, source]);
    if (!lock[0].ok) {
      await client.query("ROLLBACK");
      return null;
    }
    // The dirty (team, minute) pairs; a busy minute has many marks (one per writing statement).
    const { rows: marks } = await client.query<{ team_id: string; minute: Date }>(
      "SELECT DISTINCT team_id, minute FROM metrics_dirty WHERE source = $1 AND minute <= $2 ORDER BY minute, team_id LIMIT $3",
      [source, cutoff, BATCH],
    );
    if (marks.length === 0) {
      await client.query("COMMIT");
      return 0;
    }
    const teams = marks.map((m) => m.team_id);
    const minutes = marks.map((m) => m.minute);
    const pairs = marks.map((m) => ({ team: m.team_id, minute: m.minute }));
    for (const store of stores) {
      await client.query(
        `DELETE FROM ${store.table} t USING unnest($1::text[], $2::timestamptz[]) AS m(team_id, minute) WHERE t.team_id = m.team_id AND t.minute = m.minute`,
        [teams, minutes],
      );
      const keys = Object.keys(store.keys);
      const sums = Object.keys(store.sums);
      await client.query(
        `INSERT INTO ${store.table} (team_id, minute, ${[...keys, ...sums].join(", ")})
         SELECT ${store.base.team}, ${MINUTE_SQL(store.base.time)}, ${[...keys.map((k) => store.keys[k]), ...sums.map((k) => `${store.sums[k].fn}(${store.sums[k].sql})`)].join(", ")}
           FROM unnest($1::text[], $2::timestamptz[]) AS m(team_id, minute)
           CROSS JOIN LATERAL (${baseMinuteSql(store, "m.minute", "m.team_id")}) AS ${baseAlias(store)}
          GROUP BY ${[store.base.team, "2", ...keys.map((_, i) => String(i + 3))].join(", ")}`,
        [teams, minutes],
      );
      if (store.hourly) {
        // The hours of those minutes again, from the minute rows (each hour row is the sum of its minutes).
        const hours = new Map<string, { team: string; hour: Date }>();
        for (const p of pairs) {
          const hour = new Date(Math.floor(p.minute.getTime() / 3_600_000) * 3_600_000);
          hours.set(`${p.team} ${hour.toISOString()}`, { team: p.team, hour });
        }
        const ht = [...hours.values()].map((h) => h.team);
        const hh = [...hours.values()].map((h) => h.hour);
        await client.query(
          `DELETE FROM ${store.hourly} t USING unnest($1::text[], $2::timestamptz[]) AS h(team_id, hour) WHERE t.team_id = h.team_id AND t.minute = h.hour`,
          [ht, hh],
        );
        await client.query(
          `INSERT INTO ${store.hourly} (team_id, minute, ${[...keys, ...sums].join(", ")})
           SELECT r.team_id, ${HOUR_SQL("r.minute")}, ${[...keys.map((k) => `r.${k}`), ...sums.map((k) => `${store.sums[k].fn}(r.${k})`)].join(", ")}
             FROM unnest($1::text[], $2::timestamptz[]) AS h(team_id, hour)
             JOIN ${store.table} r ON r.team_id = h.team_id AND r.minute >= h.hour AND r.minute < h.hour + interval '1 hour'
            GROUP BY ${["r.team_id", "2", ...keys.map((_, i) => String(i + 3))].join(", ")}`,
          [ht, hh],
        );
      }
    }
    // Every mark of those pairs this snapshot sees (repeatable read: a mark committed since is not deleted).
    await client.query(
      "DELETE FROM metrics_dirty d USING unnest($2::text[], $3::timestamptz[]) AS m(team_id, minute) WHERE d.source = $1 AND d.team_id = m.team_id AND d.minute = m.minute",
      [source, teams, minutes],
    );
    await client.query("COMMIT");
    return pairs.length;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs `rollupPass` every `intervalMs` (default 10 s) in the worker process; errors are logged by `onError`
 * and retried at the next pass. Returns `stop`, which cancels the timer and waits for a pass in flight.
 */
export function startRollups(pool: pg.Pool, stores: RollupStore[], onError: (err: unknown) => void, intervalMs = 10_000): () => Promise<void> {
  return startPeriodic(() => rollupPass(pool, stores, Date.now()), intervalMs, onError);
}

/**
 * Deletes the rollup rows and dirty marks of `source`'s minutes in [from, to) (ms) — retention drops the
 * base table's day partition, which fires no trigger. Runs on `client` (inside the caller's transaction).
 */
export async function dropRollupRange(client: Pick<pg.PoolClient, "query">, stores: RollupStore[], source: string, from: number, to: number): Promise<void> {
  const range = [new Date(from), new Date(to)];
  for (const store of stores.filter((s) => s.source === source)) {
    for (const table of [store.table, store.hourly ?? []].flat()) await client.query(`DELETE FROM ${table} WHERE minute >= $1 AND minute < $2`, range);
  }
  await client.query("DELETE FROM metrics_dirty WHERE source = $1 AND minute >= $2 AND minute < $3", [source, ...range]);
}
