import type pg from "pg";
import { logger } from "@/lib/log";
import { dropExpiredPartitions, ensurePartitions, expireGuestWorkspaces, expireOutboundLeftovers } from "@/lib/worker/partitions";
import { startPeriodic } from "@/lib/db/periodic";

const log = logger("retention");

/** Daily partitions kept ready ahead of today: a worker may be down this long before rows reach the DEFAULT partition. */
const PARTITION_DAYS_AHEAD = 7;
const RETENTION_LOCK = 727274002;

/**
 * One retention pass (docs/scaling.md#retention-and-sizing) at `now` (ms): creates the partitions of the next PARTITION_DAYS_AHEAD days,
 * drops the daily partitions older than `retentionDays` (0 keeps everything), deletes the outbound rows no
 * partition drop reaches (expireOutboundLeftovers), expires guest workspaces.
 * Serialised across workers with an advisory lock: a pass that finds another one running does nothing and
 * returns null. Throws on database errors.
 */
async function runRetention(
  pool: pg.Pool,
  now: number,
  retentionDays: number,
): Promise<{ created: number; dropped: string[]; outbound: { events: number; attempts: number; deliveries: number }; sessions: number; teams: number } | null> {
  const lock = await pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [RETENTION_LOCK]);
    if (!rows[0].ok) return null;
    try {
      const created = await ensurePartitions(pool, now, PARTITION_DAYS_AHEAD);
      const dropped = await dropExpiredPartitions(pool, now, retentionDays);
      const outbound = await expireOutboundLeftovers(pool, now, retentionDays);
      const guests = await expireGuestWorkspaces(pool, now);
      return { created, dropped, outbound, ...guests };
    } finally {
      await lock.query("SELECT pg_advisory_unlock($1)", [RETENTION_LOCK]);
    }
  } finally {
    lock.release();
  }
}

/**
 * Runs `runRetention` now and then every `intervalMs` (default one hour) in the worker process; errors are
 * logged and retried at the next pass. Returns `stop`, which cancels the timer and waits for a pass in flight.
 */
export function startRetention(pool: pg.Pool, retentionDays: number, intervalMs = 3_600_000): () => Promise<void> {
  const pass = async () => {
    const r = await runRetention(pool, Date.now(), retentionDays);
    if (r && (r.created || r.dropped.length || r.sessions || r.teams)) {
      log.info(
        `retention: ${r.created} partition(s) created, ${r.dropped.length} dropped, ${r.sessions} console session(s) and ${r.teams} guest workspace(s) expired`,
      );
    }
  };
  return startPeriodic(pass, intervalMs, (err) => log.warn("retention pass failed", err instanceof Error ? err.message : err));
}
