/**
 * The ingestion writer over the shared group commit (lib/db/batcher.ts): a request is committed when its
 * `write()` resolves (another connection sees it), requests written meanwhile share one statement, and
 * a bad row (its source is gone) fails alone. Runs on the test database (`npm test` sets DATABASE_URL);
 * the rows carry a rejection cause, so they have no fan-out row for the test servers' workers.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { getBackgroundPool } from "@/lib/db/pool";
import { createId } from "@/lib/ids";
import { type RequestRecord, RequestWriter } from "@/lib/ingest/request-writer";

const teamId = createId("team");
const sourceId = createId("source");
const db = () => getBackgroundPool();

beforeAll(async () => {
  await db().query("INSERT INTO teams (id, name, mode, cli_key_hash, created_at, updated_at) VALUES ($1, 'writer test', 'TEAM', $2, now(), now())", [
    teamId,
    `k_${teamId}`,
  ]);
  await db().query("INSERT INTO sources (id, team_id, name, updated_at) VALUES ($1, $2, 'writer', now())", [sourceId, teamId]);
});
afterAll(async () => {
  await db().query("DELETE FROM teams WHERE id = $1", [teamId]);
});

const record = (source: string, n: number): RequestRecord => ({
  id: createId("request"),
  teamId,
  sourceId: source,
  verified: false,
  rejectionCause: "SOURCE_DISABLED",
  ingestedAt: new Date(),
  method: "POST",
  path: `/n/${n}`,
  query: "",
  headers: { "x-n": String(n) },
  body: Buffer.from(`{"n":${n}}`),
  bodySize: 7,
  contentType: "application/json",
  clientIp: "127.0.0.1",
});

it("answers each request after its row is committed; a row whose source is gone fails alone", async () => {
  const writer = new RequestWriter(1);
  const records = [record(sourceId, 1), record(sourceId, 2), record(createId("source"), 3), record(sourceId, 4)];
  // Each write checks, from another connection, that its row is visible the moment it resolves.
  const outcomes = await Promise.all(
    records.map((r) =>
      writer.write(r).then(
        async () => (await db().query("SELECT r.id FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.id = $1", [r.id])).rowCount,
        (err: { code?: string }) => `failed ${err.code}`,
      ),
    ),
  );
  expect(outcomes).toEqual([1, 1, "failed 23503", 1]);
  const { rows } = await db().query<{ path: string; body: Buffer }>(
    "SELECT d.path, d.body FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.team_id = $1 ORDER BY d.path",
    [teamId],
  );
  expect(rows.map((r) => [r.path, r.body.toString()])).toEqual([
    ["/n/1", '{"n":1}'],
    ["/n/2", '{"n":2}'],
    ["/n/4", '{"n":4}'],
  ]);
});

it("reports its load for the ingestion-pressure meter: busy while writing, rows per multi-row write", async () => {
  const events: string[] = [];
  const writer = new RequestWriter(1, { busy: () => events.push("busy"), wrote: (n) => events.push(`wrote ${n}`), idle: () => events.push("idle") });
  const records = Array.from({ length: 30 }, (_, n) => record(sourceId, 100 + n));
  await Promise.all(records.map((r) => writer.write(r)));
  // The first request is written at once; the 29 that arrived meanwhile share the next statement.
  expect(events).toEqual(["busy", "wrote 1", "wrote 29", "idle"]);
  const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM requests WHERE id = ANY($1)", [records.map((r) => r.id)]);
  expect(rows[0].n).toBe(30);
});
