/**
 * Nothing accepted is lost on the outbound side (docs/outbound.md#publish-delivery-retries): a server
 * killed with SIGKILL while a delivery is in flight leaves its lease to expire, and the restarted
 * worker's dispatcher delivers it again: one successful attempt, the receiver sees the event (at least
 * once). Deliveries are claimed from their rows, without jobs: publish's deliveries go out at once, and
 * a retry comes due by time. A dead destination holds at most DELIVERY_DESTINATION_CONCURRENCY of a
 * worker's places. Runs its own server on its own database with a short delivery timeout (so the lease,
 * two timeouts plus 10 s, runs out in 12 s) and 20 places, 5 per destination.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { killHard, privateDatabase, type RunningServer, startServer } from "./support/servers";

const key = `hyo_crash_${randomBytes(12).toString("hex")}`;
let env: Record<string, string>;
let database: Awaited<ReturnType<typeof privateDatabase>>;
let receiver: Receiver;
let server: RunningServer | undefined;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server!.url}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  database = await privateDatabase("outcrash");
  env = {
    DATABASE_URL: database.url,
    OUTBOUND_API_KEY: key,
    OUTBOUND_DELIVERY_TIMEOUT_SECONDS: "1",
    OUTBOUND_RETRY_SCHEDULE: "1",
    WORKER_CONCURRENCY: "20",
    DELIVERY_DESTINATION_CONCURRENCY: "5",
  };
  receiver = await startReceiver();
  server = await startServer(env);
  expect((await call("PUT", "/tenants/t1")).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

it("a delivery in flight when its server is killed is delivered after a restart: one successful attempt", async () => {
  const dest = await call("POST", "/tenants/t1/destinations", { type: "webhook", topics: "*", config: { url: `${receiver.url}/crash` } });
  expect(dest.status, JSON.stringify(dest.json)).toBe(201);
  // The receiver holds its answer: the delivery is in flight when the server dies.
  receiver.respond({ status: 200, body: "late", delayMs: 800 });
  const published = await call("POST", "/publish", { tenant_id: "t1", topic: "order.paid", data: { n: 1 } });
  expect(published.status).toBe(202);
  const id = published.json.id;
  await eventually(() => receiver.received.some((r) => r.headers["x-outbound-event-id"] === id), 15_000, 10);
  const killedAt = Date.now();
  await killHard(server!);
  const row = (await database.client.query("SELECT status, attempts, locked_until FROM outbound_deliveries WHERE event_id = $1", [id])).rows[0];
  expect(row).toMatchObject({ status: "pending", attempts: 0 });
  expect(row.locked_until.getTime()).toBeGreaterThan(killedAt);

  receiver.respond({ status: 200, body: "ok" });
  server = await startServer(env);
  const attempts = await eventually(
    async () => {
      const { json } = await call("GET", `/attempts?event_id=${id}`);
      return json.models.length > 0 ? json.models : null;
    },
    30_000,
    200,
  );
  expect(attempts.map((a: { status: string; attempt_number: number }) => [a.status, a.attempt_number])).toEqual([["success", 0]]);
  // Not before the dead worker's lease ran out.
  expect(Date.now()).toBeGreaterThanOrEqual(row.locked_until.getTime());
  expect(receiver.received.filter((r) => r.headers["x-outbound-event-id"] === id).length).toBe(2);
  expect((await database.client.query("SELECT status, locked_until FROM outbound_deliveries WHERE event_id = $1", [id])).rows[0]).toEqual({
    status: "success",
    locked_until: null,
  });
}, 120_000);

it("without jobs: a published event goes out at once, and a failed attempt is retried when its time comes", async () => {
  receiver.respond({ status: 503, body: "down" });
  const published = await call("POST", "/publish", { tenant_id: "t1", topic: "order.paid", data: { n: 2 } });
  const id = published.json.id;
  const first = await eventually(() => receiver.received.find((r) => r.headers["x-outbound-event-id"] === id), 5_000, 10);
  receiver.respond({ status: 200, body: "ok" });
  const attempts = await eventually(
    async () => {
      const { json } = await call("GET", `/attempts?event_id=${id}`);
      return json.models.length === 2 ? json.models : null;
    },
    15_000,
    100,
  );
  expect(attempts.map((a: { status: string; attempt_number: number }) => [a.status, a.attempt_number]).sort()).toEqual([
    ["failed", 0],
    ["success", 1],
  ]);
  const second = receiver.received.filter((r) => r.headers["x-outbound-event-id"] === id)[1];
  // OUTBOUND_RETRY_SCHEDULE "1": one second later, found by the dispatcher's poll.
  expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  expect(second.at - first.at).toBeLessThan(3_000);
  expect((await database.client.query("SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'outbound_deliver'")).rows[0].n).toBe(0);
}, 60_000);

it("a dead destination holds at most DELIVERY_DESTINATION_CONCURRENCY places: another tenant's delivery goes out at once", async () => {
  expect((await call("PUT", "/tenants/t2")).status).toBe(201);
  const dead = await call("POST", "/tenants/t1/destinations", { type: "webhook", topics: ["slow.thing"], config: { url: `${receiver.url}/dead` } });
  const fine = await call("POST", "/tenants/t2/destinations", { type: "webhook", topics: "*", config: { url: `${receiver.url}/fine` } });
  expect([dead.status, fine.status]).toEqual([201, 201]);
  // The dead destination never answers within the 1 s timeout.
  receiver.respond((req) => (req.url === "/dead" ? { status: 200, body: "late", delayMs: 3_000 } : { status: 200, body: "ok" }));
  const start = receiver.received.length;
  // All at once: 30 deliveries wait for the dead destination's places from the start.
  const published = await Promise.all(
    Array.from({ length: 30 }, (_, i) => call("POST", "/publish", { tenant_id: "t1", topic: "slow.thing", eligible_for_retry: false, data: { i } })),
  );
  expect(published.map((p) => p.status)).toEqual(Array(30).fill(202));
  await eventually(() => receiver.received.slice(start).filter((r) => r.url === "/dead").length >= 5, 10_000, 10);
  const sentAt = Date.now();
  const other = await call("POST", "/publish", { tenant_id: "t2", topic: "order.paid", data: { fine: true } });
  const arrived = await eventually(() => receiver.received.find((r) => r.headers["x-outbound-event-id"] === other.json.id), 10_000, 10);
  // Not behind the dead destination's timeouts.
  expect(arrived.at - sentAt).toBeLessThan(900);
  // All 30 are attempted in the end, never more than five open at once, and five at the busiest: each request
  // is open from its arrival until the server gives up on it (the 1 s timeout) and closes it. The receiver
  // may see the next request before the close of the one whose place it took (two sockets' events in one
  // turn of its loop): a close seen within 50 ms of an arrival counts as before it. A sixth place would
  // overlap by most of a second.
  await eventually(() => receiver.received.slice(start).filter((r) => r.url === "/dead" && r.endedAt !== undefined).length === 30, 30_000, 100);
  const held = receiver.received.slice(start).filter((r) => r.url === "/dead");
  const busiest = Math.max(...held.map((r) => held.filter((o) => o.at <= r.at && o.endedAt! > r.at + 50).length));
  expect(busiest).toBe(5);
}, 90_000);
