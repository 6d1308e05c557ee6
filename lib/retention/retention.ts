import type pg from "pg";
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";
import { DAY_MS, ensurePartitions, purgeExpired } from "@/lib/retention/partitions";

const log = logger("retention");

/** Lifetime of a console session cookie (lib/console/sessions.ts, fixed at creation, never sliding). */
export const GUEST_TTL_DAYS = 90;

/**
 * Deletes expired console sessions, then guest workspaces (GUEST teams) older than the cookie lifetime
 * with no live session left. The team's sources, connections, destinations, keys and transformations go
 * with it (foreign-key cascades; its requests too, row by row: a guest source keeps few). Its events,
 * attempts and executions have no foreign key and expire with their partitions. Returns the counts deleted.
 */
export async function expireGuests(db: pg.Pool, now: number): Promise<{ sessions: number; teams: number }> {
  const at = new Date(now);
  const sessions = await db.query("DELETE FROM console_sessions WHERE expires_at <= $1", [at]);
  const teams = await db.query(
    `DELETE FROM teams t WHERE t.mode = 'GUEST' AND t.created_at <= $1
        AND NOT EXISTS (SELECT 1 FROM console_sessions s WHERE s.team_id = t.id AND s.expires_at > $2)`,
    [new Date(now - GUEST_TTL_DAYS * DAY_MS), at],
  );
  return { sessions: sessions.rowCount ?? 0, teams: teams.rowCount ?? 0 };
}

export type RetentionResult = { created: string[]; dropped: string[]; defaultRows: number; sessions: number; teams: number };

/**
 * One retention pass (issue 15 §5): creates the partitions ahead, drops those older than RETENTION_DAYS,
 * expires guest workspaces and sessions. `now` (Unix ms) is a parameter so tests can run it at any date.
 */
export async function runRetention(opts: { now?: number; db?: pg.Pool } = {}): Promise<RetentionResult> {
  const config = getConfig();
  const db = opts.db ?? getBackgroundPool();
  const now = opts.now ?? Date.now();
  const created = await ensurePartitions(db, { now, intervalDays: config.retentionPartitionDays, aheadDays: config.retentionPartitionAheadDays });
  const { dropped, defaultRows } = await purgeExpired(db, { now, retentionDays: config.retentionDays });
  const guests = await expireGuests(db, now);
  return { created, dropped, defaultRows, ...guests };
}

/**
 * Runs {@link runRetention} now and every RETENTION_INTERVAL_MS in this process (the delivery worker's
 * hook). Several workers may run it at once: creating an existing partition is a no-op and dropping is
 * idempotent. The timer does not keep the process alive. Returns a function that stops it.
 */
export function startRetention(): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    runRetention()
      .then((r) => {
        if (r.dropped.length || r.defaultRows || r.teams || r.sessions)
          log.info(`expired ${r.dropped.length} partitions, ${r.defaultRows} default-partition rows, ${r.sessions} sessions, ${r.teams} guest workspaces`);
      })
      .catch((err) => log.warn("retention failed", err instanceof Error ? err.message : err))
      .finally(() => (running = false));
  };
  tick();
  const timer = setInterval(tick, getConfig().retentionIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
