/**
 * The job runner outlives a job pool that graphile-worker ends by itself (lib/delivery/job-runner.ts;
 * docs/pipeline.md "When PostgreSQL restarts"). A completion that cannot be written ends the pool for
 * good in graphile-worker 0.18; here the job table is renamed while a job runs, so that its completion
 * fails exactly as it does while PostgreSQL restarts. The runner must then start a new pool, unlock the
 * dead pool's job and run it again. Runs on a database of its own (the renamed table would stop the
 * test servers' workers).
 */
import pg from "pg";
import { quickAddJob } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import { privateDatabase } from "@/e2e/support/servers";
import { startJobRunner } from "@/lib/delivery/job-runner";

let database: Awaited<ReturnType<typeof privateDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  database = await privateDatabase("jobrunner");
  pool = new pg.Pool({ connectionString: database.url, max: 10 });
  pool.on("error", () => {});
}, 60_000);
afterAll(async () => {
  await pool?.end().catch(() => {});
  await database?.drop();
});

const eventually = async (check: () => boolean | Promise<boolean>, ms = 20_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await check()) return;
  throw new Error("timed out");
};

/** Renames the job table away (a completion then fails, as it does while PostgreSQL restarts), or back. */
const jobsAway = () => pool.query("ALTER TABLE graphile_worker._private_jobs RENAME TO _private_jobs_away");
const jobsBack = () => pool.query("ALTER TABLE IF EXISTS graphile_worker._private_jobs_away RENAME TO _private_jobs");

/**
 * A job runner on the test database with one task, `probe`, whose job payload is `{name}`: each run appends
 * the name to `runs`, then runs `onRun(name)`. Pool starts and ends are appended to `started` and `ended`.
 */
async function probeRunner(onRun: (name: string) => Promise<void>) {
  const runs: string[] = [];
  const started: string[] = [];
  const ended: string[] = [];
  const conditions: (string | null)[] = [];
  const runner = await startJobRunner(
    {
      pgPool: pool,
      concurrency: 2,
      noHandleSignals: true,
      pollInterval: 100,
      preset: { worker: { localQueue: { size: 2 }, completeJobBatchDelay: 2, failJobBatchDelay: 2 } },
      logger: new (await import("graphile-worker")).Logger(() => () => {}),
      taskList: {
        probe: async (payload) => {
          const name = (payload as { name: string }).name;
          runs.push(name);
          await onRun(name);
        },
      },
    },
    { onPoolStart: (id) => started.push(id), onPoolEnd: (id) => ended.push(id), onCondition: (why) => conditions.push(why) },
  );
  return { runner, runs, started, ended, conditions };
}

it("replaces a pool that could not write a completion, unlocks its job and runs it again", async () => {
  let breakCompletion = true;
  const { runner, runs, started, ended, conditions } = await probeRunner(async (name) => {
    if (name === "first" && breakCompletion) {
      breakCompletion = false;
      await jobsAway();
    }
  });
  try {
    await quickAddJob({ pgPool: pool }, "probe", { name: "first" });
    await eventually(() => ended.length === 1);
    expect(ended[0]).toBe(started[0]);
    await jobsBack();
    // A new pool runs the dead pool's job again, and it is completed this time.
    await eventually(async () => started.length === 2 && (await pool.query("SELECT 1 FROM graphile_worker._private_jobs")).rowCount === 0);
    expect(runs).toEqual(["first", "first"]);
    expect(runner.restarts()).toBe(1);
    expect(conditions[0]).toMatch(/^the job runner is restarting/);
    expect(conditions.at(-1)).toBeNull();
    // And it takes new work.
    await quickAddJob({ pgPool: pool }, "probe", { name: "second" });
    await eventually(() => runs.includes("second"));
  } finally {
    await jobsBack().catch(() => {});
    await runner.stop();
  }
  expect(ended).toEqual(started);
}, 60_000);

it("a new runner that dies while the dead pool's jobs cannot be unlocked yet is replaced too", async () => {
  const unlockBack = () => pool.query("ALTER FUNCTION graphile_worker.force_unlock_workers_away(text[]) RENAME TO force_unlock_workers");
  // Each of these runs' completions fails; the first also leaves the dead pool's jobs unlockable, so the
  // replacement's unlock keeps retrying.
  const { runner, runs, started, ended } = await probeRunner(async (name) => {
    if (name === "first" && runs.filter((r) => r === "first").length === 1) {
      await pool.query("ALTER FUNCTION graphile_worker.force_unlock_workers(text[]) RENAME TO force_unlock_workers_away");
      await jobsAway();
    }
    if (name === "second" && runs.filter((r) => r === "second").length === 1) await jobsAway();
  });
  try {
    await quickAddJob({ pgPool: pool }, "probe", { name: "first" });
    await eventually(() => ended.length === 1);
    await jobsBack();
    // The second runner starts while the first pool's job stays locked (its unlock fails), and dies the same way.
    await eventually(() => started.length === 2);
    await quickAddJob({ pgPool: pool }, "probe", { name: "second" });
    await eventually(() => ended.length === 2);
    expect(ended).toEqual(started.slice(0, 2));
    await jobsBack();
    // A third runner replaces it, though the first replacement's unlock is still retrying.
    await eventually(() => started.length === 3);
    await quickAddJob({ pgPool: pool }, "probe", { name: "third" });
    await eventually(() => runs.includes("third"));
    // Once the unlock works again, the dead pools' jobs run again and complete.
    await unlockBack();
    await eventually(async () => (await pool.query("SELECT 1 FROM graphile_worker._private_jobs")).rowCount === 0);
    expect(runs.filter((r) => r === "first")).toHaveLength(2);
    expect(runs.filter((r) => r === "second")).toHaveLength(2);
    expect(runner.restarts()).toBe(2);
  } finally {
    await jobsBack().catch(() => {});
    await unlockBack().catch(() => {});
    await runner.stop();
  }
}, 60_000);
