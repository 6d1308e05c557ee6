/**
 * The worker's progress watchdog (docs/pipeline.md "When PostgreSQL restarts"): a worker that no longer
 * takes due work must notice, say so and recover, instead of running on idle while work piles up.
 *
 * Every `checkMs` each engine of the worker is asked two questions: is there due work that has waited
 * longer than WORKER_STALL_MS, and has this process started or finished any of that engine's work in
 * that time while it had free places? Both yes means the engine is stalled (a busy engine, or one whose
 * places are all held by slow deliveries, is not). A stalled engine is reported (`onCondition`, which
 * feeds /healthz) and recovered (`recover`: the job runner is replaced); an engine that is still stalled
 * WORKER_STALL_MS after its recovery, or one that has no recovery of its own, makes the watchdog give up
 * (`onGiveUp`: the worker process exits and its supervisor starts a fresh one). A database that cannot
 * be reached is not a stall of the worker: the check is skipped until it answers.
 */
import type pg from "pg";
import { logger } from "@/lib/log";

const log = logger("watchdog");

/** One engine the watchdog looks after. */
export type WatchedEngine = {
  name: string;
  /** Age of the oldest due work nobody has taken, ms (null: none). Throws on database errors. */
  oldestDueMs: (db: Pick<pg.Pool, "query">, olderThanMs: number) => Promise<number | null>;
  /** When this process last started or finished work of the engine, ms since the epoch. */
  lastActivityAt: () => number;
  /** True while all of the engine's places are taken (slow work is not a stall). */
  busy: () => boolean;
  /** Recovers the engine in this process; absent: only a new process recovers it. */
  recover?: (why: string) => Promise<void>;
};

type WatchdogOptions = {
  engines: WatchedEngine[];
  db: Pick<pg.Pool, "query">;
  /** Due work older than this while nothing ran is a stall, ms. */
  stallMs: number;
  /** How often to look, ms. */
  checkMs: number;
  /** The worker is stalled (`why`) or runs again (null). */
  onCondition: (why: string | null) => void;
  /** A stall that recovery did not end: the process should exit so that its supervisor restarts it. */
  onGiveUp: (why: string) => void;
};

/** Starts the watchdog; returns `stop`, which resolves when a check in flight ended. */
export function startWatchdog(opts: WatchdogOptions): () => Promise<void> {
  const recoveredAt = new Map<string, number>();
  let stalled: string | null = null;
  let running: Promise<void> | null = null;
  let gaveUp = false;

  const check = async () => {
    const now = Date.now();
    let why: string | null = null;
    for (const engine of opts.engines) {
      const idleFor = now - engine.lastActivityAt();
      if (engine.busy() || idleFor < opts.stallMs) continue;
      let age: number | null;
      try {
        age = await engine.oldestDueMs(opts.db, opts.stallMs);
      } catch {
        return; // the database is out of reach: that is the database's state, not a stalled worker
      }
      if (age === null || age < opts.stallMs) continue;
      why = `${engine.name}: due work has waited ${(age / 1000).toFixed(0)} s while this worker ran none for ${(idleFor / 1000).toFixed(0)} s`;
      const recovered = recoveredAt.get(engine.name);
      if (engine.recover && (recovered === undefined || now - recovered > 3 * opts.stallMs)) {
        log.warn(`${why}; recovering it`);
        opts.onCondition(why);
        recoveredAt.set(engine.name, now);
        await engine.recover(why);
        // A recovered engine gets a full period to take its work before it counts as stalled again.
        continue;
      }
      if (engine.recover && now - recovered! < opts.stallMs) continue;
      gaveUp = true;
      log.error(`${why}${engine.recover ? ", also after a restart of it" : ""}; stopping this worker so that it is started afresh`);
      opts.onCondition(why);
      opts.onGiveUp(why);
      return;
    }
    if (why !== stalled) opts.onCondition(why);
    stalled = why;
  };

  const timer = setInterval(() => {
    if (running || gaveUp) return;
    running = check()
      .catch((err) => log.warn("watchdog check failed", err instanceof Error ? err.message : err))
      .finally(() => (running = null));
  }, opts.checkMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
