/**
 * Retention (docs/scaling.md#retention-and-sizing): the big tables (requests, request_raw_data, events, ignored_events, attempts,
 * transformation_executions) are range-partitioned by UTC day on their time-sortable id (migration
 * 20261123220000_partition_by_time). Data expires by dropping whole daily partitions, never by DELETE, so
 * expiry costs the hot path nothing. Guest workspaces (small tables) expire with their console sessions.
 */
import type pg from "pg";
import { GATEWAY_ROLLUPS } from "@/lib/gateway/metrics/tables";
import { dropRollupRange } from "@/lib/metrics/rollup";

const DAY_MS = 86_400_000;

/**
 * The partitioned tables, children before parents (the order partitions are dropped in). The outbound
 * tables are partitioned on their `time` (migration 20261124172523_outbound_partition_by_time), the
 * others on their id.
 */
const PARTITIONED_TABLES = [
  "outbound_attempts",
  "outbound_events",
  "attempts",
  "events",
  "ignored_events",
  "transformation_executions",
  "request_raw_data",
  "requests",
] as const;

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
function utcDay(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

// DDL on a partitioned table locks it briefly: never queue behind a long query (and so block ingestion behind us).
async function withDdlSession<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("SET lock_timeout = '5s'");
    return await fn(client);
  } finally {
    await client.query("RESET lock_timeout").catch(() => {});
    client.release();
  }
}

/**
 * Creates the missing daily partitions of every partitioned table for the UTC days from the day before `now`
 * (ms) to `daysAhead` days after it; returns how many it created. Rows the DEFAULT partition caught for a day
 * that had no partition yet (no worker ran for a week) are moved into the new partition (SQL function
 * `hookyard_ensure_partitions`), so this never fails on them. Throws on database errors (e.g. lock timeout,
 * after 5 s waiting behind another session: run it again later).
 */
export async function ensurePartitions(pool: pg.Pool, now: number, daysAhead: number): Promise<number> {
  return withDdlSession(pool, async (client) => {
    const days = [utcDay(now - DAY_MS), utcDay(now + daysAhead * DAY_MS)];
    const { rows } = await client.query<{ n: number }>("SELECT hookyard_ensure_partitions($1::date, $2::date) AS n", days);
    const { rows: outbound } = await client.query<{ n: number }>("SELECT hookyard_ensure_time_partitions($1::date, $2::date) AS n", days);
    return rows[0].n + outbound[0].n;
  });
}

/**
 * Drops the daily partitions whose whole day ended at or before `now - retentionDays` days (ms), children
 * before parents. With `archived` (archiving on, docs/operations.md "Archive"), a day is dropped only when
 * it answers the row counts of its verified archive (null: not archived, keep the day), and a partition only
 * when it still holds that many rows (counted under a lock in the drop's transaction), with the metrics rollup rows of their days (lib/metrics/rollup.ts); returns the names dropped. `retentionDays` 0 keeps everything. The DEFAULT partitions
 * (rows with ids of no day: none in normal operation) are never dropped. Throws on database errors.
 */
export async function dropExpiredPartitions(
  pool: pg.Pool,
  now: number,
  retentionDays: number,
  archived?: (day: string) => Promise<Record<string, number> | null>,
): Promise<string[]> {
  if (retentionDays <= 0) return [];
  const cutoff = now - retentionDays * DAY_MS;
  const { rows } = await pool.query<{ parent: string; name: string }>(
    `SELECT p.relname AS parent, c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND p.relname = ANY($1) AND c.relkind = 'r'`,
    [PARTITIONED_TABLES],
  );
  const expired = rows
    .map((r) => ({ ...r, day: /_p(\d{4})(\d{2})(\d{2})$/.exec(r.name) }))
    .filter((r) => r.day && r.name === `${r.parent}_p${r.day[1]}${r.day[2]}${r.day[3]}`)
    .filter((r) => Date.UTC(Number(r.day![1]), Number(r.day![2]) - 1, Number(r.day![3])) + DAY_MS <= cutoff)
    .sort((a, b) => PARTITIONED_TABLES.indexOf(a.parent as never) - PARTITIONED_TABLES.indexOf(b.parent as never) || a.name.localeCompare(b.name));
  const dayOf = (r: (typeof expired)[number]) => `${r.day![1]}-${r.day![2]}-${r.day![3]}`;
  // Archives first, before the DDL session takes its connection (archiving holds one of its own).
  const expected = new Map<string, Record<string, number> | null>();
  if (archived) for (const r of expired) if (!expected.has(dayOf(r))) expected.set(dayOf(r), await archived(dayOf(r)));
  return withDdlSession(pool, async (client) => {
    const dropped: string[] = [];
    for (const r of expired) {
      // The day's metrics rollup rows go with the day's rows, in the same transaction.
      const day = Date.UTC(Number(r.day![1]), Number(r.day![2]) - 1, Number(r.day![3]));
      const counts = archived ? expected.get(dayOf(r)) : undefined;
      if (counts === null) continue;
      await client.query("BEGIN");
      try {
        if (counts) {
          await client.query(`LOCK TABLE "${r.name}" IN SHARE MODE`);
          const { rows: n } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${r.name}"`);
          if (n[0].n !== counts[r.parent]) {
            // Rows changed since the archive: keep the partition; the next pass archives the day again.
            await client.query("ROLLBACK");
            continue;
          }
        }
        await client.query(`DROP TABLE IF EXISTS "${r.name}"`);
        await dropRollupRange(client, Object.values(GATEWAY_ROLLUPS), r.parent, day, day + DAY_MS);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
      dropped.push(r.name);
    }
    return dropped;
  });
}

/**
 * Deletes the console sessions expired at `now` (ms), then the GUEST teams left without a live session
 * (created more than a day ago, so a team being created is never caught), with their CLI sessions; their
 * sources, connections, destinations, transformations and API keys go by the foreign keys' cascades (the
 * requests of their sources still within retention too). Their events and attempts age out with their
 * partitions. Returns the counts deleted. Throws on database errors.
 */
export async function expireGuestWorkspaces(pool: pg.Pool, now: number): Promise<{ sessions: number; teams: number }> {
  const at = new Date(now);
  const sessions = await pool.query("DELETE FROM console_sessions WHERE expires_at <= $1", [at]);
  const teams = await pool.query(
    `WITH gone AS (
       DELETE FROM teams t WHERE t.mode = 'GUEST' AND t.created_at < $1::timestamptz - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM console_sessions s WHERE s.team_id = t.id AND s.expires_at > $1)
       RETURNING t.id)
     , cli AS (DELETE FROM cli_sessions c USING gone WHERE c.team_id = gone.id)
     SELECT count(*)::int AS n FROM gone`,
    [at],
  );
  return { sessions: sessions.rowCount ?? 0, teams: (teams.rows[0] as { n: number }).n };
}

/**
 * What outbound retention cannot drop as a partition, at `now` (ms) with `retentionDays` (0 keeps
 * everything): events and attempts in the DEFAULT partitions whose `time` is past retention (an event
 * published with a `time` of a day that has no partition: older than the database, or far ahead), and the
 * finished deliveries (success, failed, skipped) last changed before the cutoff. Returns the counts
 * deleted. Throws on database errors.
 */
export async function expireOutboundLeftovers(
  pool: pg.Pool,
  now: number,
  retentionDays: number,
): Promise<{ events: number; attempts: number; deliveries: number }> {
  if (retentionDays <= 0) return { events: 0, attempts: 0, deliveries: 0 };
  const cutoff = new Date(now - retentionDays * DAY_MS);
  const events = await pool.query("DELETE FROM outbound_events_default WHERE time < $1", [cutoff]);
  const attempts = await pool.query("DELETE FROM outbound_attempts_default WHERE time < $1", [cutoff]);
  const deliveries = await pool.query("DELETE FROM outbound_deliveries WHERE status <> 'pending' AND updated_at < $1", [cutoff]);
  return { events: events.rowCount ?? 0, attempts: attempts.rowCount ?? 0, deliveries: deliveries.rowCount ?? 0 };
}
