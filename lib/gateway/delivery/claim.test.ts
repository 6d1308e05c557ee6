/**
 * Claiming an event for delivery (docs/pipeline.md#delivery-engine): two jobs of one event that reach the
 * same claim batch (a job unlocked from a dead worker and the sweeper's, say) deliver it once, not
 * twice with the same lease. Runs on the test database (`npm test` sets DATABASE_URL); the events have
 * no job, so the test servers' workers never touch them.
 */
import { expect, it } from "vitest";
import { getBackgroundPool } from "@/lib/db/pool";
import { claimEvents } from "@/lib/gateway/delivery/deliver-event";
import { createId } from "@/lib/ids";

async function queuedEvent(): Promise<string> {
  const id = createId("event");
  await getBackgroundPool().query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'QUEUED', 0, now(), now(), now())`,
    [id, createId("team"), createId("connection"), createId("source"), createId("destination"), createId("request")],
  );
  return id;
}

it("an event asked for twice in one batch is claimed once; a leased one is not claimed again", async () => {
  const [a, b] = [await queuedEvent(), await queuedEvent()];
  const claims = await claimEvents([a, b, a]);
  expect(claims.map((c) => c?.row.id ?? null)).toEqual([a, b, null]);
  expect(claims[0]!.lease.getTime()).toBeGreaterThan(Date.now());
  const { rows } = await getBackgroundPool().query("SELECT id, locked_until FROM events WHERE id = ANY($1) ORDER BY id", [[a, b]]);
  expect(rows.map((r) => r.locked_until.getTime())).toEqual([claims[0]!.lease.getTime(), claims[0]!.lease.getTime()]);
  // Still leased: a later job of the same event finds nothing to claim.
  expect(await claimEvents([a])).toEqual([null]);
  await getBackgroundPool().query("DELETE FROM events WHERE id = ANY($1)", [[a, b]]);
});

/** An ordered event (docs/pipeline.md "Ordered delivery") of key `key` at `destination`, at place `pos`. */
async function orderedEvent(destination: string, key: string, pos: string, status = "QUEUED"): Promise<string> {
  const id = createId("event");
  await getBackgroundPool().query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, next_attempt_at, created_at, updated_at, ordering_key, ordering_pos)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 0, NULL, now(), now(), $8, $9)`,
    [id, createId("team"), createId("connection"), createId("source"), destination, createId("request"), status, key, pos],
  );
  return id;
}

it("an ordered event is claimed only as its key's head: never while an earlier one of its key is unfinished or blocked", async () => {
  const destination = createId("destination");
  // Accepted 10 minutes ago: requests other tests leave waiting for fan-out now are not before them.
  const t = Date.now() - 600_000;
  const first = await orderedEvent(destination, "k", createId("request", t));
  const second = await orderedEvent(destination, "k", createId("request", t + 1));
  const otherKey = await orderedEvent(destination, "other", createId("request", t + 2));
  // The second waits for the first, whoever asks and in whatever order; another key goes in parallel.
  expect((await claimEvents([second, otherKey, first])).map((c) => c?.row.id ?? null)).toEqual([null, otherKey, first]);
  // Leased and in flight: the second still waits (at most one attempt in flight per key).
  expect(await claimEvents([second])).toEqual([null]);
  // The first fails for good at a `block` destination: the key stays held.
  const db = getBackgroundPool();
  await db.query("UPDATE events SET status = 'FAILED', locked_until = NULL, ordering_blocked_at = now() WHERE id = $1", [first]);
  expect(await claimEvents([second])).toEqual([null]);
  // Released (or exhausted at a `skip` destination): the second is the head now.
  await db.query("UPDATE events SET ordering_blocked_at = NULL WHERE id = $1", [first]);
  expect((await claimEvents([second]))[0]?.row.id).toBe(second);
  await db.query("DELETE FROM events WHERE id = ANY($1)", [[first, second, otherKey]]);
});

it("an ordered event waits while a request accepted before it is still waiting for its fan-out", async () => {
  const destination = createId("destination");
  const db = getBackgroundPool();
  const t = Date.now() - 1000;
  const earlier = createId("request", t);
  // Held as a fan-out in progress holds it (the test servers' workers skip a locked row; one that drains
  // the row between the insert and the lock makes us insert it again).
  const fanout = await db.connect();
  for (let locked = 0; locked === 0;) {
    await fanout.query("ROLLBACK").catch(() => {});
    await db.query("INSERT INTO request_fanouts (request_id, created_at) VALUES ($1, now()) ON CONFLICT DO NOTHING", [earlier]);
    await fanout.query("BEGIN");
    locked = (await fanout.query("SELECT 1 FROM request_fanouts WHERE request_id = $1 FOR UPDATE", [earlier])).rowCount ?? 0;
  }
  const event = await orderedEvent(destination, "", createId("request", t + 1));
  try {
    expect(await claimEvents([event])).toEqual([null]);
    await fanout.query("DELETE FROM request_fanouts WHERE request_id = $1", [earlier]);
    await fanout.query("COMMIT");
    expect((await claimEvents([event]))[0]?.row.id).toBe(event);
  } finally {
    await fanout.query("ROLLBACK").catch(() => {});
    fanout.release();
    await db.query("DELETE FROM request_fanouts WHERE request_id = $1", [earlier]);
    await db.query("DELETE FROM events WHERE id = $1", [event]);
  }
});
