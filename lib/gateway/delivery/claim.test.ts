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
