/**
 * Bulk redrive (docs/outbound.md "Bulk redrive") on its own server and database: deliveries that failed
 * during a sink outage are redriven after it, each exactly once more (one new, manual attempt), even
 * though the server is killed with SIGKILL in the middle of the run (progress is committed with its
 * effects, and the restarted worker resumes from it). A tenant JWT cannot plan or run a redrive over
 * another tenant's destinations nor see its redrives, redrives its own, and is held to
 * OUTBOUND_REDRIVE_TENANT_LIMIT per hour. (Its server also has OUTBOUND_TOPICS set, for the event catalog's
 * check that a tenant sees only the topics it can subscribe to.)
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { killHard, privateDatabase, type RunningServer, startServer } from "./support/servers";

const key = `hyo_redrive_${randomBytes(12).toString("hex")}`;
const COUNT = 200;
let env: Record<string, string>;
let database: Awaited<ReturnType<typeof privateDatabase>>;
let receiver: Receiver;
let server: RunningServer | undefined;
let d1 = "";
let d2 = "";
let jwt2 = "";
const t1Events: string[] = [];
/** When the operator's redrive was started (receiver requests before it are the outage's). */
let redriveStartedAt = 0;

async function call(method: string, path: string, body?: unknown, token = key) {
  const res = await fetch(`${server!.url}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await database.client.query(sql, params)).rows as T[];
const redrive = async (id: string) => (await database.client.query("SELECT * FROM outbound_redrives WHERE id = $1", [id])).rows[0];

beforeAll(async () => {
  database = await privateDatabase("redrive");
  env = {
    DATABASE_URL: database.url,
    OUTBOUND_API_KEY: key,
    OUTBOUND_DELIVERY_TIMEOUT_SECONDS: "1",
    OUTBOUND_MAX_RETRY_LIMIT: "0",
    BULK_BATCH_SIZE: "20",
    WORKER_CONCURRENCY: "5",
    OUTBOUND_REDRIVE_TENANT_LIMIT: "2",
    OUTBOUND_TOPICS: "order.paid,internal.audit",
  };
  receiver = await startReceiver();
  server = await startServer(env);
  await call("PUT", "/tenants/t1");
  await call("PUT", "/tenants/t2");
  d1 = (await call("POST", "/tenants/t1/destinations", { type: "webhook", topics: "*", config: { url: `${receiver.url}/t1` } })).json.id;
  d2 = (await call("POST", "/tenants/t2/destinations", { type: "webhook", topics: "*", config: { url: `${receiver.url}/t2` } })).json.id;
  jwt2 = (await call("GET", "/tenants/t2/token")).json.token;
  // The sink is down: every delivery fails, with no retries left (OUTBOUND_MAX_RETRY_LIMIT 0).
  receiver.respond({ status: 503, body: "down" });
  for (let i = 0; i < COUNT; i += 20) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => call("POST", "/publish", { tenant_id: "t1", topic: "order.paid", data: { n: i + n } })),
    );
    t1Events.push(...answers.map((a) => a.json.id as string));
  }
  for (let n = 0; n < 5; n++) await call("POST", "/publish", { tenant_id: "t2", topic: "order.paid", data: { n } });
  await eventually(
    async () => (await q<{ n: number }>("SELECT count(*)::int AS n FROM outbound_deliveries WHERE status = 'failed'"))[0].n === COUNT + 5,
    60_000,
    200,
  );
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

it("a tenant cannot redrive, plan over or see another tenant's destinations; it redrives its own, within its hourly limit", async () => {
  expect((await call("POST", "/redrives/plan", { tenant_id: "t1" }, jwt2)).status).toBe(403);
  expect(await call("POST", "/redrives/plan", { destination_id: d1 }, jwt2)).toEqual({ status: 404, json: { status: 404, message: "destination not found" } });
  expect((await call("POST", "/redrives", { destination_id: [d2, d1] }, jwt2)).status).toBe(404);
  // Without a filter, a tenant's plan counts its own failures only.
  expect((await call("POST", "/redrives/plan", {}, jwt2)).json).toEqual({ estimated_count: 5, estimated_batch: 1 });
  const admins = await call("POST", "/redrives/plan", { tenant_id: "t1", topic: "order.paid", attempts: { gte: 1, lte: 1 } });
  expect(admins.json).toEqual({ estimated_count: COUNT, estimated_batch: COUNT / 20 });
  expect((await call("POST", "/redrives/plan", { tenant_id: "t1", topic: "other" })).json.estimated_count).toBe(0);
  expect((await call("POST", "/redrives/plan", { tenant_id: "t1", status: "nope" })).status).toBe(422);
  // The operator's redrive never covers everything by accident: an empty filter is refused (the plan may count it).
  expect((await call("POST", "/redrives", {})).json).toEqual({
    status: 422,
    message: "validation error",
    data: ["the filter is empty: name at least one field (tenant_id, for every failure of a tenant)"],
  });

  receiver.respond({ status: 200, body: "ok" });
  const own = await call("POST", "/redrives", {}, jwt2);
  expect(own.status, JSON.stringify(own.json)).toBe(202);
  expect(own.json).toMatchObject({ tenant_id: "t2", filter: { tenant_id: "t2" }, estimated_count: 5 });
  await eventually(async () => (await redrive(own.json.id)).completed_at !== null, 30_000, 100);
  await eventually(
    async () =>
      (await q<{ n: number }>("SELECT count(*)::int AS n FROM outbound_deliveries WHERE destination_id = $1 AND status = 'success'", [d2]))[0].n === 5,
    30_000,
    100,
  );
  // Not one of t1's deliveries was touched.
  expect(
    (await q<{ n: number }>("SELECT count(*)::int AS n FROM outbound_deliveries WHERE tenant_id = 't1' AND (status <> 'failed' OR redrive_id IS NOT NULL)"))[0]
      .n,
  ).toBe(0);
  // Its limit is 2 per hour: the second matches nothing (422), the third is refused (429).
  expect((await call("POST", "/redrives", {}, jwt2)).status).toBe(422);
  const refused = await fetch(`${server!.url}/outbound/api/v1/redrives`, {
    method: "POST",
    headers: { authorization: `Bearer ${jwt2}`, "content-type": "application/json" },
    body: "{}",
  });
  expect({ status: refused.status, json: await refused.json() }).toMatchObject({ status: 429, json: { status: 429, message: "rate limit exceeded" } });
  // The header says when, as the managed API's own limit does: within the hour's window.
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  // Another tenant's (or the operator's) redrives are not its to see or cancel.
  receiver.respond({ status: 200, body: "ok", delayMs: 30 });
  redriveStartedAt = Date.now();
  const main = await call("POST", "/redrives", { tenant_id: "t1", destination_id: d1 });
  expect(main.status, JSON.stringify(main.json)).toBe(202);
  expect((await call("GET", `/redrives/${main.json.id}`, undefined, jwt2)).status).toBe(404);
  expect((await call("POST", `/redrives/${main.json.id}/cancel`, undefined, jwt2)).status).toBe(404);
  expect((await call("GET", "/redrives", undefined, jwt2)).json.models.map((r: { id: string }) => r.id)).toEqual([own.json.id]);
}, 120_000);

it("a redrive after the outage delivers each failed event exactly once more, across a server killed mid-run", async () => {
  const [{ id }] = await q<{ id: string }>("SELECT id FROM outbound_redrives WHERE tenant_id IS NULL");
  await eventually(async () => (await redrive(id)).processed_batch >= 3, 60_000, 20);
  await killHard(server!);
  const atKill = await redrive(id);
  expect(atKill.completed_at).toBeNull();
  // Progress and effects committed together: the deliveries marked are exactly the ones counted.
  const marked = (await q<{ n: number }>("SELECT count(*)::int AS n FROM outbound_deliveries WHERE redrive_id = $1", [id]))[0].n;
  expect(marked).toBe(atKill.completed_count);
  expect(marked).toBeLessThan(COUNT);

  receiver.respond({ status: 200, body: "ok" });
  server = await startServer(env);
  const done = await eventually(async () => ((await redrive(id)).completed_at ? redrive(id) : null), 60_000, 200);
  expect(done).toMatchObject({ completed_count: COUNT, failed_count: 0, processed_batch: COUNT / 20, in_progress: false, progress: 1 });
  await eventually(
    async () =>
      (await q<{ n: number }>("SELECT count(*)::int AS n FROM outbound_deliveries WHERE destination_id = $1 AND status = 'success'", [d1]))[0].n === COUNT,
    60_000,
    200,
  );
  // Each event: its failed attempt of the outage and exactly one new, manual, successful one.
  const perEvent = await q<{ event_id: string; failed: number; manual_ok: number; total: number }>(
    `SELECT event_id, count(*) FILTER (WHERE status = 'failed' AND NOT manual)::int AS failed,
            count(*) FILTER (WHERE status = 'success' AND manual)::int AS manual_ok, count(*)::int AS total
       FROM outbound_attempts WHERE destination_id = $1 GROUP BY event_id`,
    [d1],
  );
  expect(perEvent.length).toBe(COUNT);
  expect(perEvent.every((r) => r.failed === 1 && r.manual_ok === 1 && r.total === 2)).toBe(true);
  // The receiver saw every event again (a delivery cut by the kill may arrive twice, as at-least-once allows).
  const seen = new Set(receiver.received.filter((r) => r.url.startsWith("/t1") && r.at >= redriveStartedAt).map((r) => r.headers["x-outbound-event-id"]));
  expect(t1Events.every((e) => seen.has(e))).toBe(true);
}, 180_000);

it("the event catalog shows a tenant only the topics it can subscribe to (OUTBOUND_TOPICS as configured now)", async () => {
  expect((await call("PUT", "/catalog/internal.audit", { description: "Audit trail" })).status).toBe(201);
  expect((await call("PUT", "/catalog/order.paid", { description: "An order was paid" })).status).toBe(201);
  expect((await call("PUT", "/catalog/not.a.topic", { description: "x" })).json).toEqual({
    status: 422,
    message: "validation error",
    data: ["topic: not.a.topic is not a topic of this deployment (OUTBOUND_TOPICS)"],
  });
  const topics = async (token: string) => (await call("GET", "/catalog", undefined, token)).json.models.map((t: { topic: string }) => t.topic);
  expect(await topics(jwt2)).toEqual(["internal.audit", "order.paid"]);
  // The operator narrows the topics (managed configuration): the tenant no longer sees the other one; the operator does.
  const patched = await fetch(`${server!.url}/outbound/2025-07-01/config`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ TOPICS: "order.paid" }),
  });
  expect(patched.status).toBe(200);
  await eventually(async () => (await topics(jwt2)).join() === "order.paid", 10_000, 200);
  expect((await call("GET", "/catalog/internal.audit", undefined, jwt2)).status).toBe(404);
  expect(await topics(key)).toEqual(["internal.audit", "order.paid"]);
});
