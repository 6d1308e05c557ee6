import type pg from "pg";
import { logger } from "@/lib/log";
import { dropExpiredPartitions, ensurePartitions, expireGuestWorkspaces, expireOutboundLeftovers } from "@/lib/worker/partitions";
import { startPeriodic } from "@/lib/db/periodic";
import type { ArchiveStore } from "@/lib/archive/store";
import { ensureDayArchived } from "@/lib/worker/archive";

const log = logger("retention");

/** Daily partitions kept ready ahead of today: a worker may be down this long before rows reach the DEFAULT partition. */
const PARTITION_DAYS_AHEAD = 7;
const RETENTION_LOCK = 727274002;

/**
 * One retention pass (docs/scaling.md#retention-and-sizing) at `now` (ms): creates the partitions of the next PARTITION_DAYS_AHEAD days,
 * drops the daily partitions older than `retentionDays` (0 keeps everything), deletes the outbound rows no
 * partition drop reaches (expireOutboundLeftovers), expires guest workspaces.
 * With an archive `store` (docs/operations.md "Archive"), a day is dropped only once its archive is written
 * and verified (a day whose archive fails is kept and logged, and tried again at the next pass).
 * Serialised across workers with an advisory lock: a pass that finds another one running does nothing and
 * returns null. Throws on database errors.
 */
export async function runRetention(
  pool: pg.Pool,
  now: number,
  retentionDays: number,
  store: ArchiveStore | null = null,
): Promise<{ created: number; dropped: string[]; outbound: { events: number; attempts: number; deliveries: number }; sessions: number; teams: number } | null> {
  const lock = await pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [RETENTION_LOCK]);
    if (!rows[0].ok) return null;
    try {
      const created = await ensurePartitions(pool, now, PARTITION_DAYS_AHEAD);
      const archived = store
        ? (day: string) =>
            ensureDayArchived(pool, store, day).catch((err: unknown) => {
              log.warn(`archive of ${day} failed; its partitions are kept`, err instanceof Error ? err.message : err);
              return null;
            })
        : undefined;
      const dropped = await dropExpiredPartitions(pool, now, retentionDays, archived);
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
 * Runs `runRetention` now and then every `intervalMs` (default one hour) in the worker process, archiving
 * to `store` first when given; errors are logged and retried at the next pass. Returns `stop`, which cancels the timer and waits for a pass in flight.
 */
export function startRetention(pool: pg.Pool, retentionDays: number, intervalMs = 3_600_000, store: ArchiveStore | null = null): () => Promise<void> {
  const pass = async () => {
    const r = await runRetention(pool, Date.now(), retentionDays, store);
    if (r && (r.created || r.dropped.length || r.sessions || r.teams)) {
      log.info(
        `retention: ${r.created} partition(s) created, ${r.dropped.length} dropped, ${r.sessions} console session(s) and ${r.teams} guest workspace(s) expired`,
      );
    }
  };
  return startPeriodic(pass, intervalMs, (err) => log.warn("retention pass failed", err instanceof Error ? err.message : err));
}
