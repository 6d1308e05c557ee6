/**
 * Nothing accepted is lost (docs/pipeline.md#delivery-engine, "At-least-once"): a server whose
 * worker is killed with SIGKILL in the middle of a delivery leaves the event to be delivered by the
 * next process, a request committed but never fanned out is fanned out by the sweeper, and
 * `hookyard listen` reconnects across a server restart; and the worker slows its deliveries while
 * ingestion reports its writer saturated (lib/ingest/ingest-pressure.ts). Runs its own
 * server on its own database, so no other worker can pick the jobs up first.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createId } from "@/lib/ids";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { killHard, privateDatabase, type RunningServer, startServer } from "./support/servers";

const apiKey = `hky_crash_${randomBytes(12).toString("hex")}`;
// WORKER_BURST_DELIVERY_RATE only matters while ingestion reports pressure (the last test sends the reports).
const settings = {
  GATEWAY_API_KEY: apiKey,
  DELIVERY_TIMEOUT_MS: "2000",
  DELIVERY_LEASE_MS: "3000",
  PIPELINE_SWEEP_INTERVAL_MS: "200",
  WORKER_BURST_DELIVERY_RATE: "10",
  // The rate is measured here, not the bound on an episode (lib/delivery/pacing.test.ts): on a slow
  // machine the 30 requests alone can take a good part of the default 3 s.
  WORKER_BURST_MAX_MS: "60000",
};

let env: Record<string, string>;
let database: Awaited<ReturnType<typeof privateDatabase>>;
let db: pg.Client;
let receiver: Receiver;
let server: RunningServer | undefined;
beforeAll(async () => {
  database = await privateDatabase("crash");
  db = database.client;
  env = { DATABASE_URL: database.url, ...settings };
  receiver = await startReceiver();
}, 60_000);
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

it("a worker killed mid-delivery loses nothing: the next process delivers the event", async () => {
  server = await startServer(env);
  const c = await call("POST", "/connections", {
    name: "crash",
    source: { name: "crash-src" },
    destination: { name: "crash-dst", config: { url: `${receiver.url}/crash` } },
  });
  expect(c.status).toBe(200);
  receiver.respond({ status: 200, body: "too late", delayMs: 60_000 });
  const sent = await fetch(c.json.source.url.replace(/^https?:\/\/[^/]+/, server.url), { method: "POST", body: "precious" });
  const { request_id } = await sent.json();
  await receiver.waitFor(1);
  const [claimed] = (await db.query("SELECT * FROM events WHERE request_id = $1", [request_id])).rows;
  expect(claimed.status).toBe("QUEUED");
  expect(claimed.locked_until).not.toBeNull();

  await killHard(server);
  receiver.respond({ status: 200, body: "ok" });
  server = await startServer(env);

  const event = await eventually(async () => {
    const [row] = (await db.query("SELECT * FROM events WHERE request_id = $1", [request_id])).rows;
    return row?.status === "SUCCESSFUL" ? row : null;
  }, 30_000);
  const deliveries = receiver.received.filter((r) => r.headers["x-gateway-event-id"] === event.id);
  expect(deliveries.length).toBe(2);
  expect(deliveries.every((d) => d.body.toString() === "precious")).toBe(true);
  const attempts = (await db.query("SELECT * FROM attempts WHERE event_id = $1", [event.id])).rows;
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({ status: "SUCCESSFUL", response_status: 200 });
}, 90_000);

it("a request committed but never fanned out (the process died between the two) is fanned out by the sweeper", async () => {
  const [source] = (await db.query("SELECT id, team_id FROM sources WHERE name = 'crash-src'")).rows;
  const requestId = createId("request");
  const old = new Date(Date.now() - 5000);
  await db.query("BEGIN");
  await db.query("INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at) VALUES ($1, $2, $3, false, $4, $4, $4)", [
    requestId,
    source.team_id,
    source.id,
    old,
  ]);
  await db.query("INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size) VALUES ($1, 'POST', '/', '', '{}', $2, 9)", [
    requestId,
    Buffer.from("orphaned!"),
  ]);
  await db.query("INSERT INTO request_fanouts (request_id, created_at) VALUES ($1, $2)", [requestId, old]);
  await db.query("COMMIT");
  const event = await eventually(async () => {
    const [row] = (await db.query("SELECT * FROM events WHERE request_id = $1", [requestId])).rows;
    return row?.status === "SUCCESSFUL" ? row : null;
  }, 20_000);
  expect(receiver.received.some((r) => r.headers["x-gateway-event-id"] === event.id && r.body.toString() === "orphaned!")).toBe(true);
  expect((await db.query("SELECT 1 FROM request_fanouts WHERE request_id = $1", [requestId])).rowCount).toBe(0);
}, 30_000);

it("a worker stopped cleanly hands the events it had not started back as jobs; the next process delivers each once", async () => {
  await server?.stop();
  // One delivery at a time, each taking 4 s: while the server stops (it first closes its HTTP side),
  // one event is in flight and the others wait in the worker's queue.
  server = await startServer({ ...env, WORKER_CONCURRENCY: "1", DELIVERY_TIMEOUT_MS: "10000" });
  const sourceUrl = (await call("GET", "/sources?name=crash-src")).json.models[0].url.replace(/^https?:\/\/[^/]+/, server.url);
  const before = receiver.received.length;
  receiver.respond({ status: 200, body: "ok", delayMs: 4000 });
  const requestIds: string[] = [];
  for (let i = 0; i < 4; i++) requestIds.push((await (await fetch(sourceUrl, { method: "POST", body: `handed-back-${i}` })).json()).request_id);
  // One delivery in flight, the others fanned out behind it in this worker's queue.
  await eventually(() => receiver.received.length > before);
  await eventually(async () => Number((await db.query("SELECT count(*) AS n FROM events WHERE request_id = ANY($1)", [requestIds])).rows[0].n) >= 2);
  await server.stop();

  // Nothing is left leased to the stopped worker: the one in flight was recorded, the rest are jobs again.
  const after = (await db.query("SELECT id, status, locked_until FROM events WHERE request_id = ANY($1)", [requestIds])).rows;
  expect(after.filter((e) => e.locked_until !== null)).toEqual([]);
  const waiting = after.filter((e) => e.status === "QUEUED").map((e) => e.id);
  expect(waiting.length, JSON.stringify(after)).toBeGreaterThan(0);
  const jobs = await db.query(
    `SELECT j.payload->>'event_id' AS id FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE t.identifier = 'deliver' AND j.payload->>'event_id' = ANY($1)`,
    [waiting],
  );
  expect(jobs.rows.map((j) => j.id).sort()).toEqual([...waiting].sort());

  receiver.respond({ status: 200, body: "ok" });
  server = await startServer(env);
  const events = await eventually(async () => {
    const rows = (await db.query("SELECT id, status FROM events WHERE request_id = ANY($1)", [requestIds])).rows;
    return rows.length === 4 && rows.every((e) => e.status === "SUCCESSFUL") ? rows : null;
  }, 30_000);
  for (const e of events) expect(receiver.received.filter((r) => r.headers["x-gateway-event-id"] === e.id)).toHaveLength(1);
}, 90_000);

it("hookyard listen reconnects after the server restarts and keeps forwarding", async () => {
  const { spawn } = await import("node:child_process");
  const port = String(server!.port);
  const created = await fetch(`${server!.url}/`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"restart"}' });
  const t = (await created.json()) as { ingest_url: string; cli_key: string; name: string };
  const cli = spawn(process.execPath, ["cli/hookyard.mjs", "listen", new URL(receiver.url).port, t.name, "--cli-key", t.cli_key, "--server", server!.url], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  cli.stdout.on("data", (d) => (out += d));
  cli.stderr.on("data", (d) => (out += d));
  try {
    const wait = async (cond: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timed out; CLI output:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await wait(() => out.includes("Listening on"), 20_000);
    await server!.stop();
    await wait(() => out.includes("connection lost"), 10_000);
    server = await startServer({ ...env, PORT: port });
    await wait(() => out.includes("reconnected"), 40_000);
    await new Promise((r) => setTimeout(r, 1200));
    const { request_id } = await (await fetch(t.ingest_url, { method: "POST", body: "after restart" })).json();
    await wait(() => receiver.received.some((r) => r.body.toString() === "after restart"), 20_000);
    const [event] = (await db.query("SELECT status FROM events WHERE request_id = $1", [request_id])).rows;
    expect(event.status).toMatch(/SUCCESSFUL|QUEUED/);
    await wait(() => out.includes("POST / → 200"), 10_000);
  } finally {
    cli.kill("SIGTERM");
  }
}, 120_000);

it("ingestion first: while a web process reports its writer saturated, the worker starts deliveries at WORKER_BURST_DELIVERY_RATE", async () => {
  server ??= await startServer(env);
  const c = await call("POST", "/connections", {
    name: "paced",
    source: { name: "paced-src" },
    destination: { name: "paced-dst", config: { url: `${receiver.url}/paced` } },
  });
  expect(c.status).toBe(200);
  receiver.respond({ status: 200, body: "ok" });
  const ingestUrl = c.json.source.url.replace(/^https?:\/\/[^/]+/, server.url);
  /** Sends `n` requests at once; the ms between the first and the last delivery of them. */
  const deliverySpread = async (tag: string, n: number) => {
    await Promise.all(
      Array.from({ length: n }, (_, i) => fetch(`${ingestUrl}/${tag}/${i}`, { method: "POST", body: "x" }).then((r) => expect(r.status).toBe(200))),
    );
    const arrived = await eventually(() => {
      const got = receiver.received.filter((r) => r.url.startsWith(`/paced/${tag}/`));
      return got.length >= n ? got : null;
    }, 30_000);
    expect(arrived).toHaveLength(n);
    return arrived[n - 1].at - arrived[0].at;
  };

  // What a saturated ingestion writer sends (lib/ingest/ingest-pressure.ts), repeated while it lasts.
  const report = () => db.query("SELECT pg_notify('hookyard_ingest_pressure', '0.95')");
  await report();
  const reporting = setInterval(() => void report(), 100);
  let paced: number;
  try {
    await new Promise((r) => setTimeout(r, 200));
    paced = await deliverySpread("under-pressure", 30);
  } finally {
    clearInterval(reporting);
  }
  // 10 starts per second: 30 deliveries take about 3 s.
  expect(paced).toBeGreaterThanOrEqual(2500);

  await new Promise((r) => setTimeout(r, 2500)); // the pressure lapses (2 windows after the last report, with room for a late notification)
  const free = await deliverySpread("no-pressure", 30);
  expect(free).toBeLessThan(2000);
}, 60_000);

it("a dead destination never delays deliveries to others: it holds at most DELIVERY_DESTINATION_CONCURRENCY of the worker's places", async () => {
  await server?.stop();
  server = await startServer({ ...env, WORKER_CONCURRENCY: "8", DELIVERY_DESTINATION_CONCURRENCY: "3", DELIVERY_TIMEOUT_MS: "8000" });
  const dead = await call("POST", "/connections", {
    name: "dead",
    source: { name: "dead-src" },
    destination: { name: "dead-dst", config: { url: `${receiver.url}/dead` } },
  });
  const alive = await call("POST", "/connections", {
    name: "alive",
    source: { name: "alive-src" },
    destination: { name: "alive-dst", config: { url: `${receiver.url}/alive` } },
  });
  expect([dead.status, alive.status]).toEqual([200, 200]);
  // The dead destination accepts connections and never answers (until the delivery timeout).
  receiver.respond((req) => (req.url.startsWith("/dead") ? { status: 200, delayMs: 30_000 } : { status: 200, body: "ok" }));
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, server!.url);
  await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`${local(dead.json.source.url)}/${i}`, { method: "POST", body: "to the void" })));
  await eventually(() => receiver.received.filter((r) => r.url.startsWith("/dead")).length >= 3);
  const started = Date.now();
  await Promise.all(Array.from({ length: 5 }, (_, i) => fetch(`${local(alive.json.source.url)}/${i}`, { method: "POST", body: "fine" })));
  const arrived = await eventually(() => {
    const got = receiver.received.filter((r) => r.url.startsWith("/alive"));
    return got.length >= 5 ? got : null;
  }, 20_000);
  // Well before the dead destination's deliveries time out (8 s).
  expect(Math.max(...arrived.map((r) => r.at)) - started).toBeLessThan(3000);
  // Never more than 3 requests in flight to the dead destination.
  expect(receiver.received.filter((r) => r.url.startsWith("/dead")).length).toBe(3);
  receiver.respond({ status: 200, body: "ok" });
}, 120_000); // a server stop and start: up to a minute on a busy 2-core machine

it("a destination at its ceiling that keeps answering gets its events from the dispatch queue: none is handed back as a job", async () => {
  // Same server (WORKER_CONCURRENCY 8, DELIVERY_DESTINATION_CONCURRENCY 3). Every job added from now on is noted.
  await db.query(`CREATE TABLE IF NOT EXISTS test_added_jobs (event_id text);
    CREATE OR REPLACE FUNCTION test_note_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO test_added_jobs VALUES (NEW.payload->>'event_id'); RETURN NEW; END $$;
    DROP TRIGGER IF EXISTS test_note_job ON graphile_worker._private_jobs;
    CREATE TRIGGER test_note_job AFTER INSERT ON graphile_worker._private_jobs FOR EACH ROW EXECUTE FUNCTION test_note_job();`);
  const busy = await call("POST", "/connections", {
    name: "busy",
    source: { name: "busy-src" },
    destination: { name: "busy-dst", config: { url: `${receiver.url}/busy` } },
  });
  expect(busy.status).toBe(200);
  // Each answer takes 400 ms: 3 in flight, the other 3 wait longer than a delivery place waits for a slot (250 ms).
  receiver.respond((req) => (req.url.startsWith("/busy") ? { status: 200, body: "ok", delayMs: 400 } : { status: 200, body: "ok" }));
  const sourceUrl = busy.json.source.url.replace(/^https?:\/\/[^/]+/, server!.url);
  const ids = await Promise.all(
    Array.from(
      { length: 6 },
      async (_, i) => ((await (await fetch(`${sourceUrl}/${i}`, { method: "POST", body: "queued" })).json()) as { request_id: string }).request_id,
    ),
  );
  const events = await eventually(async () => {
    const { rows } = await db.query("SELECT id, status, attempts FROM events WHERE request_id = ANY($1)", [ids]);
    return rows.length === 6 && rows.every((r) => r.status === "SUCCESSFUL") ? rows : null;
  }, 20_000);
  expect(events.map((e) => e.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
  expect(receiver.received.filter((r) => r.url.startsWith("/busy")).length).toBe(6);
  const { rows: jobs } = await db.query("SELECT event_id FROM test_added_jobs WHERE event_id = ANY($1)", [events.map((e) => e.id)]);
  expect(jobs).toEqual([]);
  receiver.respond({ status: 200, body: "ok" });
}, 60_000);
