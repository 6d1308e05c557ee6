/**
 * The worker's graphile-worker runner, kept alive (docs/pipeline.md "When PostgreSQL restarts").
 *
 * graphile-worker 0.18 ends a job pool for good when one batched completion or failure cannot be
 * written (its retry loop leaves after the first error: graphile/worker#636), which is what a
 * PostgreSQL restart does to any job finishing at that moment. The process stays alive, but nothing
 * fetches jobs any more. This module watches the runner's promise; when its pool ends without being
 * asked to, it forgets that pool (its presence connection closes, so no one takes it for alive), unlocks
 * the jobs the pool had fetched at once (retrying until the database answers) and starts a new runner
 * (retrying every second until one starts). `restart()` does the same on demand (the progress watchdog,
 * lib/delivery/watchdog.ts, calls it when due jobs wait while nothing runs).
 */
import { EventEmitter } from "node:events";
import { run, type Runner, type RunnerOptions } from "graphile-worker";
import type pg from "pg";
import { logger } from "@/lib/log";

const log = logger("job-runner");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait between two tries to start a runner or to unlock a dead pool's jobs, ms. */
const RETRY_MS = 1000;

type JobRunnerHooks = {
  /** A pool of this runner started (its id names the jobs it locks). */
  onPoolStart: (poolId: string) => void;
  /** A pool ended (stopped, or died): its id is no longer alive. */
  onPoolEnd: (poolId: string) => void;
  /** The runner is not taking jobs (`why`) or takes them again (null); for readiness. */
  onCondition: (why: string | null) => void;
};

type JobRunner = {
  /** Stops the current runner (jobs in flight finish) and restarts no more. */
  stop: () => Promise<void>;
  /** Replaces the current runner (`why` is logged); resolves once a new one runs. */
  restart: (why: string) => Promise<void>;
  /** Jobs started and not yet finished in this process. */
  inFlight: () => number;
  /** When a job last started or finished in this process (ms since the epoch; the start time before any). */
  lastActivityAt: () => number;
  /** Runners started after the first (pool deaths and restarts). */
  restarts: () => number;
};

/**
 * Starts graphile-worker with `options` (its own `events` option is replaced by this module's; `pgPool`
 * is required: the dead pools' jobs are unlocked through it) and keeps a runner running until `stop()`. Resolves once the first runner runs; throws when the first
 * start fails (the database is down, the job schema is missing).
 */
export async function startJobRunner(options: Omit<RunnerOptions, "events"> & { pgPool: pg.Pool }, hooks: JobRunnerHooks): Promise<JobRunner> {
  let stopped = false;
  let current: { runner: Runner | null; pools: string[]; ended: boolean } | null = null;
  let restarting: Promise<void> | null = null;
  let inFlight = 0;
  let lastActivityAt = Date.now();
  let restarts = 0;

  type Entry = { runner: Runner | null; pools: string[]; ended: boolean };
  const launch = async () => {
    const events = new EventEmitter();
    const entry: Entry = { runner: null, pools: [], ended: false };
    events.on("pool:create", ({ workerPool }: { workerPool: { id: string } }) => {
      entry.pools.push(workerPool.id);
      hooks.onPoolStart(workerPool.id);
    });
    // A pool that shuts itself down (a completion it could not write) is dead from that moment: its
    // graceful shutdown may go on retrying against an absent database, but it takes no more jobs.
    events.on("pool:gracefulShutdown", ({ message }: { message: string }) => onEnded(entry, message));
    events.on("job:start", () => {
      inFlight++;
      lastActivityAt = Date.now();
    });
    events.on("job:complete", () => {
      inFlight = Math.max(0, inFlight - 1);
      lastActivityAt = Date.now();
    });
    const runner = await run({ ...options, events: events });
    entry.runner = runner;
    current = entry;
    void runner.promise.then(
      () => onEnded(entry, "its job pool stopped"),
      (err: unknown) => onEnded(entry, `its job pool failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`),
    );
  };

  /** A pool's jobs stay locked (for 4 hours) unless unlocked: do it now, once the database answers. */
  const unlockPools = async (pools: string[]) => {
    for (let tries = 1; pools.length && !stopped; tries++) {
      try {
        await options.pgPool.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [pools]);
        log.info(`unlocked the jobs of stopped job pool(s) ${pools.join(", ")}`);
        return;
      } catch (err) {
        if (tries === 1) log.warn("could not unlock a stopped job pool's jobs yet; retrying every second", err instanceof Error ? err.message : err);
        await sleep(RETRY_MS);
      }
    }
  };

  const replace = async (why: string) => {
    hooks.onCondition(`the job runner is restarting (${why})`);
    const old = current;
    current = null;
    if (old && !old.ended) {
      old.ended = true;
      await old.runner?.stop().catch(() => {});
    }
    // The old pools' jobs have ended (stopped) or will never report (a dead pool).
    inFlight = 0;
    for (const id of old?.pools ?? []) hooks.onPoolEnd(id);
    // The new runner does not wait for the unlock (a restarted database is reached by both at once), nor
    // does the end of this replacement: a new runner that dies while the unlock still retries must be
    // replaced in turn (onEnded), not folded into this one.
    void unlockPools(old?.pools ?? []);
    for (let tries = 1; !stopped; tries++) {
      try {
        await launch();
        restarts++;
        log.warn(`job runner restarted (${why})`);
        hooks.onCondition(null);
        break;
      } catch (err) {
        if (tries === 1) log.warn("the job runner could not start again yet; retrying every second", err instanceof Error ? err.message.split("\n")[0] : err);
        await sleep(RETRY_MS);
      }
    }
  };

  const restart = (why: string): Promise<void> => {
    if (stopped) return Promise.resolve();
    restarting ??= replace(why).finally(() => (restarting = null));
    return restarting;
  };

  function onEnded(entry: Entry, why: string) {
    if (entry.ended || stopped) return;
    entry.ended = true;
    log.warn(`the job runner ended by itself (${why}); starting a new one`);
    // A replacement under way has already set its old runner aside (marked ended), so a runner ending now
    // is the one it just started: replace it once that replacement is done. Otherwise at once.
    void (restarting ?? Promise.resolve()).then(() => (current === entry ? restart(why) : undefined));
  }

  await launch();
  return {
    stop: async () => {
      stopped = true;
      await restarting;
      const last = current;
      current = null;
      if (last && !last.ended) {
        last.ended = true;
        await last.runner?.stop();
      }
      for (const id of last?.pools ?? []) hooks.onPoolEnd(id);
    },
    restart,
    inFlight: () => inFlight,
    lastActivityAt: () => lastActivityAt,
    restarts: () => restarts,
  };
}
