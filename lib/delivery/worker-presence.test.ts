/**
 * Jobs fetched by a worker process that died are unlocked at once, not after graphile-worker's 4 hours
 * or the 5-minute stalled rescue (docs/pipeline.md#delivery-engine, "At-least-once"): a job pool without a presence connection is dead.
 * Runs on the test database (`npm test` sets DATABASE_URL); the jobs are due in an hour, so the test
 * servers' workers never fetch them.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { getBackgroundPool } from "@/lib/db/pool";
import { enqueueDeliveries } from "@/lib/delivery/jobs";
import { PRESENCE_PREFIX, unlockJobsOfDeadWorkers } from "@/lib/worker/index";
import { createId } from "@/lib/ids";

const live = `pool-live-${process.pid}`;
const dead = `pool-dead-${process.pid}`;
const presence = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: `${PRESENCE_PREFIX}${live}` });
afterAll(async () => {
  await presence.end().catch(() => {});
});

it("unlocks the jobs of a job pool with no presence connection, and only those", async () => {
  await presence.connect();
  const db = getBackgroundPool();
  const ids = [createId("event"), createId("event")];
  const later = new Date(Date.now() + 3_600_000);
  await enqueueDeliveries(db, ids, [later, later]);
  const jobOf = async (id: string) => (await db.query("SELECT id, locked_by FROM graphile_worker._private_jobs WHERE payload->>'event_id' = $1", [id])).rows[0];
  const [deadJob, liveJob] = [await jobOf(ids[0]), await jobOf(ids[1])];
  await db.query("UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - interval '10 seconds' WHERE id = $1", [deadJob.id, dead]);
  await db.query("UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - interval '10 seconds' WHERE id = $1", [liveJob.id, live]);

  // Without this process's own presence among the live pools, it touches nothing.
  expect(await unlockJobsOfDeadWorkers([`pool-unknown-${process.pid}`])).toBe(0);
  // (The test servers' workers sweep the same database and may unlock the dead pool's job first.)
  await unlockJobsOfDeadWorkers([live]);
  expect((await jobOf(ids[0])).locked_by).toBeNull();
  expect((await jobOf(ids[1])).locked_by).toBe(live);
  await db.query("DELETE FROM graphile_worker._private_jobs WHERE id = ANY($1)", [[deadJob.id, liveJob.id]]);
});
