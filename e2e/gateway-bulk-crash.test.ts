/**
 * Bulk operations survive a crash and stop on cancel (docs/gateway-api.md#bulk-operations): a server killed with SIGKILL in
 * the middle of a 2,500-event bulk retry (5,000 in the long form, `npm run chaos:bulk`) resumes from its saved progress after a restart, and every
 * matched event gets exactly one new attempt; a running operation cancelled stops before its next
 * batch. Runs its own server on its own database, with small batches and a slow receiver, so the
 * operation is still running when it is killed or cancelled.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createId } from "@/lib/ids";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { killHard, privateDatabase, type RunningServer, startServer } from "./support/servers";

const apiKey = `hky_bulk_${randomBytes(12).toString("hex")}`;
const settings = { GATEWAY_API_KEY: apiKey, BULK_BATCH_SIZE: "50", WORKER_CONCURRENCY: "10", DELIVERY_LEASE_MS: "3000", PIPELINE_SWEEP_INTERVAL_MS: "200" };
/**
 * Events of the operations (a multiple of the batch size, 50): 2,500 in `npm test` (50 batches: the kill
 * after 10 and the cancel after 2 still land mid-operation), BULK_CRASH_EVENTS for the long form
 * (docs/benchmarks.md "The test suite").
 */
const COUNT = Number(process.env.BULK_CRASH_EVENTS ?? 2500);
if (COUNT % 50 !== 0 || COUNT < 1000) throw new Error(`BULK_CRASH_EVENTS must be a multiple of 50, at least 1000 (got ${COUNT})`);

let env: Record<string, string>;
let database: Awaited<ReturnType<typeof privateDatabase>>;
let db: pg.Client;
let receiver: Receiver;
let server: RunningServer | undefined;
let connection: { id: string; team_id: string; source: { id: string }; destination: { id: string } };
const eventIds: string[] = [];

beforeAll(async () => {
  database = await privateDatabase("bulkcrash");
  db = database.client;
  env = { DATABASE_URL: database.url, ...settings };
  receiver = await startReceiver();
  receiver.respond({ status: 200, body: "ok", delayMs: 15 });
  server = await startServer(env);
  const c = await call("POST", "/connections", {
    name: "bulk",
    source: { name: "bulk-src" },
    destination: { name: "bulk-dst", config: { url: `${receiver.url}/bulk` } },
  });
  expect(c.status).toBe(200);
  connection = c.json;
  // COUNT events that failed during an outage, written straight to the database (with their requests).
  const now = Date.now() - 60_000;
  const requestIds: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    requestIds.push(createId("request", now + i));
    eventIds.push(createId("event", now + i));
  }
  const t = connection.team_id;
  await db.query(
    `INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at)
     SELECT id, $2, $3, false, now(), now(), now() FROM unnest($1::text[]) AS id`,
    [requestIds, t, connection.source.id],
  );
  await db.query(
    `INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size)
     SELECT id, 'POST', '/', '', '{}', convert_to(id, 'UTF8'), length(id) FROM unnest($1::text[]) AS id`,
    [requestIds],
  );
  await db.query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, response_status, last_attempt_at, created_at, updated_at)
     SELECT e, $3, $4, $5, $6, r, 'FAILED', 1, 503, now(), now(), now() FROM unnest($1::text[], $2::text[]) AS x(e, r)`,
    [eventIds, requestIds, t, connection.id, connection.source.id, connection.destination.id],
  );
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server!.url}/api/2025-07-01${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const operation = async (id: string) => (await db.query("SELECT * FROM bulk_operations WHERE id = $1", [id])).rows[0];

it("a server killed mid-operation resumes after a restart: every matched event gets exactly one new attempt", async () => {
  const created = await call("POST", "/bulk/events/retry", { query: { status: "FAILED", webhook_id: connection.id } });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  expect(created.json).toMatchObject({ estimated_count: COUNT, estimated_batch: COUNT / 50 });
  const id = created.json.id;
  await eventually(async () => (await operation(id)).processed_batch >= 10, 60_000, 20);
  await killHard(server!);
  const atKill = await operation(id);
  expect(atKill.completed_at).toBeNull();
  expect(atKill.processed_batch).toBeLessThan(COUNT / 50);
  // Progress and effects committed together: the events marked are exactly the ones counted.
  const marked = (await db.query("SELECT count(*)::int AS n FROM events WHERE bulk_retry_id = $1", [id])).rows[0].n;
  expect(marked).toBe(atKill.completed_count);

  server = await startServer(env);
  const done = await eventually(
    async () => {
      const op = await operation(id);
      return op.completed_at ? op : null;
    },
    120_000,
    200,
  );
  expect(done).toMatchObject({ completed_count: COUNT, failed_count: 0, processed_batch: COUNT / 50, in_progress: false, progress: 1 });
  expect(done.processed_batch).toBeGreaterThan(atKill.processed_batch);
  await eventually(
    async () => (await db.query("SELECT count(*)::int AS n FROM events WHERE id = ANY($1) AND status = 'SUCCESSFUL'", [eventIds])).rows[0].n === COUNT,
    120_000,
    200,
  );
  const { rows } = await db.query<{ n: number; k: number }>(
    "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS k FROM attempts WHERE event_id = ANY($1) AND trigger = 'BULK_RETRY' AND bulk_retry_id = $2",
    [eventIds, id],
  );
  expect(rows[0]).toEqual({ n: COUNT, k: COUNT });
  expect((await db.query("SELECT count(*)::int AS n FROM attempts WHERE event_id = ANY($1)", [eventIds])).rows[0].n).toBe(COUNT);
  // The receiver saw every event (an in-flight delivery cut by the kill may arrive twice, as at-least-once allows).
  const delivered = new Set(receiver.received.map((r) => r.headers["x-gateway-event-id"]));
  expect(eventIds.every((e) => delivered.has(e))).toBe(true);
}, 300_000);

it("the same query while it runs is a 422; cancelling a running operation stops it before its next batch", async () => {
  receiver.respond({ status: 200, body: "ok", delayMs: 40 });
  const created = await call("POST", "/bulk/events/retry", { query: { webhook_id: connection.id } });
  const id = created.json.id;
  await eventually(async () => (await operation(id)).processed_batch >= 2, 60_000, 20);
  // The same query again while it runs: refused, nothing created.
  const twice = await call("POST", "/bulk/events/retry", { query: { webhook_id: connection.id } });
  expect(twice.status).toBe(422);
  expect(twice.json).toMatchObject({ status: 422, code: "UNPROCESSABLE_ENTITY" });
  expect(twice.json.data.message).toBe("Batch operation using same query is currently in progress, wait for it to complete or cancel it");
  expect((await db.query("SELECT count(*)::int AS n FROM bulk_operations")).rows[0].n).toBe(2);
  const cancelled = await call("POST", `/bulk/events/retry/${id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.json.cancelled_at).not.toBeNull();
  expect(cancelled.json.completed_at).toBeNull();
  expect(cancelled.json.in_progress).toBe(false);
  await new Promise((r) => setTimeout(r, 2000));
  const after = await operation(id);
  expect(after.processed_batch).toBe(cancelled.json.processed_batch);
  expect(after.completed_count).toBeLessThan(COUNT);
  expect(after.completed_at).toBeNull();
  const marked = (await db.query("SELECT count(*)::int AS n FROM events WHERE bulk_retry_id = $1", [id])).rows[0].n;
  expect(marked).toBe(after.completed_count);
}, 120_000);

it("a replay resolves its target connections batch by batch: a connection created while it runs gets the later requests", async () => {
  receiver.respond({ status: 200, body: "ok" });
  const src = connection.source.id;
  const created = await call("POST", "/bulk/requests/replay", { query: { source_id: [src], target: { source_id: src } } });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = created.json.id;
  await eventually(async () => (await operation(id)).processed_batch >= 2, 60_000, 20);
  const late = await call("POST", "/connections", { name: "late", source_id: src, destination: { name: "late-dst", config: { url: `${receiver.url}/late` } } });
  expect(late.status, JSON.stringify(late.json)).toBe(200);
  const before = (await operation(id)).processed_batch;
  const done = await eventually(
    async () => {
      const op = await operation(id);
      return op.completed_at ? op : null;
    },
    120_000,
    200,
  );
  expect(done).toMatchObject({ completed_count: COUNT, failed_count: 0 });
  const count = async (webhookId: string) =>
    (await db.query("SELECT count(*)::int AS n FROM events WHERE bulk_retry_id = $1 AND webhook_id = $2", [id, webhookId])).rows[0].n as number;
  // The first connection got every request; the late one those of the batches after it existed (at
  // least the ones not yet started when it was created), none of the first two batches.
  expect(await count(connection.id)).toBe(COUNT);
  const lateCount = await count(late.json.id);
  expect(lateCount).toBeGreaterThanOrEqual(COUNT - (before + 1) * 50);
  expect(lateCount).toBeLessThanOrEqual(COUNT - 2 * 50);
  const { rows } = await db.query<{ r: string }>("SELECT min(request_id) AS r FROM events WHERE bulk_retry_id = $1 AND webhook_id = $2", [id, late.json.id]);
  const firstTwoBatches = (await db.query<{ r: string }>("SELECT id AS r FROM requests WHERE source_id = $1 ORDER BY id LIMIT 100", [src])).rows.map(
    (x) => x.r,
  );
  expect(firstTwoBatches.includes(rows[0].r)).toBe(false);
}, 180_000);
