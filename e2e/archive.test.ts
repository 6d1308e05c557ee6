/**
 * Archive before retention, and replay from the archive (docs/operations.md "Archive", docs/gateway-api.md
 * "Replay from the archive"): a day of ARCHIVE_REQUESTS requests (300 in `npm test`; 100,000 in the long
 * form, `npm run chaos:archive`) with their raw data, events, attempts and an outbound event is archived
 * to a directory, verified and dropped by retention (never while its archive cannot be written), then
 * replayed from the archive into one chosen connection: every request is delivered, byte-exact, once.
 * Runs its own server on its own database (its worker reads the archive), retention off in the server.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "@/lib/archive/day-archive";
import { directoryStore } from "@/lib/archive/store";
import { createId } from "@/lib/ids";
import { verifyDay } from "@/lib/worker/archive";
import { runRetention } from "@/lib/worker/retention";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

const COUNT = Number(process.env.ARCHIVE_REQUESTS ?? 300);
const DAY_MS = 86_400_000;
const NOW = Date.now();
/** The archived day: 40 days ago (retention keeps 30). */
const DAY_START = Math.floor(NOW / DAY_MS) * DAY_MS - 40 * DAY_MS;
const DAY = new Date(DAY_START).toISOString().slice(0, 10);
const apiKey = `hky_arch_${randomBytes(12).toString("hex")}`;

let database: Awaited<ReturnType<typeof privateDatabase>>;
let pool: pg.Pool;
let dir: string;
let receiver: Receiver;
let server: RunningServer | undefined;
type Conn = { id: string; team_id: string; source: { id: string } };
let chosen: Conn;
let other: Conn;
const bodies = new Map<string, Buffer>();
/** Archived outbound events of tenant-c: more than a batch (BULK_BATCH_SIZE 100 here). */
const OUTBOUND_C = 350;
const outboundKey = `okey_arch_${randomBytes(12).toString("hex")}`;
/** tenant-a's archived order.created events: id → data. */
const archivedA = new Map<string, string>();
let outReceiver: Receiver;

/** The body of archived request `i`: JSON, with a few binary ones (bytes that are not UTF-8). */
const bodyOf = (i: number) => (i % 50 === 7 ? Buffer.from([0xff, 0xfe, 0x00, i % 256, 0x80]) : Buffer.from(JSON.stringify({ n: i, pad: "z".repeat(i % 40) })));

async function call(method: string, p: string, body?: unknown) {
  const res = await fetch(`${server!.url}/api/2025-07-01${p}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const exists = async (table: string) => (await pool.query("SELECT to_regclass($1) IS NOT NULL AS e", [table])).rows[0].e as boolean;

beforeAll(async () => {
  database = await privateDatabase("archive");
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
  pool.on("error", () => {});
  dir = await mkdtemp(path.join(tmpdir(), "hookyard-archive-e2e-"));
  receiver = await startReceiver();
  outReceiver = await startReceiver();
  server = await startServer({
    DATABASE_URL: database.url,
    GATEWAY_API_KEY: apiKey,
    OUTBOUND_API_KEY: outboundKey,
    ARCHIVE_DIR: dir,
    RETENTION_DAYS: "0",
    BULK_BATCH_SIZE: COUNT > 10_000 ? "1000" : "100",
    WORKER_CONCURRENCY: "20",
  });
  const conn = async (name: string) => {
    const c = await call("POST", "/connections", {
      name,
      source: { name: "archived-src" },
      destination: { name: `${name}-dst`, config: { url: `${receiver.url}/${name}` } },
    });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    return c.json as Conn;
  };
  chosen = await conn("chosen");
  other = await conn("other");
  expect(other.source.id).toBe(chosen.source.id);

  // The day's partitions (40 days back: none exist yet), then its rows, written as ingestion and delivery write them.
  await pool.query("SELECT hookyard_ensure_partitions($1::date, $1::date), hookyard_ensure_time_partitions($1::date, $1::date)", [DAY]);
  const team = chosen.team_id;
  const source = chosen.source.id;
  for (let from = 0; from < COUNT; from += 5000) {
    const ids: string[] = [];
    const events: string[] = [];
    const at: Date[] = [];
    const body: Buffer[] = [];
    for (let i = from; i < Math.min(COUNT, from + 5000); i++) {
      const ms = DAY_START + Math.floor((i * (DAY_MS - 1000)) / COUNT);
      const id = createId("request", ms);
      ids.push(id);
      events.push(createId("event", ms));
      at.push(new Date(ms));
      body.push(bodyOf(i));
      bodies.set(id, bodyOf(i));
    }
    await pool.query(
      `INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at)
       SELECT id, $2, $3, true, t, t, t FROM unnest($1::text[], $4::timestamptz[]) AS x(id, t)`,
      [ids, team, source, at],
    );
    await pool.query(
      `INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size, content_type)
       SELECT id, 'POST', '/hook', 'a=1', '{"content-type":"application/octet-stream","x-n":"1"}', b, length(b), 'application/octet-stream'
         FROM unnest($1::text[], $2::bytea[]) AS x(id, b)`,
      [ids, body],
    );
    await pool.query(
      `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, created_at, updated_at)
       SELECT e, $3, $4, $5, 'des_x', r, 'SUCCESSFUL', t, t FROM unnest($1::text[], $2::text[], $6::timestamptz[]) AS x(e, r, t)`,
      [events, ids, team, chosen.id, source, at],
    );
    if (from === 0)
      await pool.query(
        `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, created_at)
         SELECT a, $3, e, 'des_x', 1, 'INITIAL', 'SUCCESSFUL', $4 FROM unnest($1::text[], $2::text[]) AS x(a, e)`,
        [events.slice(0, 100).map(() => createId("attempt", DAY_START + 1000)), events.slice(0, 100), team, new Date(DAY_START + 1000)],
      );
  }
  // Outbound events of the day: tenant-a's five (four order.created, one order.paid), tenant-b's one, tenant-c's OUTBOUND_C.
  const outbound = [
    ...[0, 1, 2, 3, 4].map((n) => ({ tenant: "tenant-a", topic: n === 4 ? "order.paid" : "order.created", data: JSON.stringify({ n, a: "é" }) })),
    { tenant: "tenant-b", topic: "order.created", data: JSON.stringify({ n: 99 }) },
    ...Array.from({ length: OUTBOUND_C }, (_, n) => ({ tenant: "tenant-c", topic: "bulk", data: JSON.stringify({ c: n }) })),
  ];
  const outIds = outbound.map(() => `evt_out_${randomBytes(8).toString("hex")}`);
  outIds.slice(0, 4).forEach((id, n) => archivedA.set(id, outbound[n].data));
  await pool.query(
    `INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, metadata, data)
     SELECT id, t, tp, $5::timestamptz + o::float8 * interval '1 ms', true, '{"origin":"archived"}', convert_to(d, 'UTF8')
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS x(id, t, tp, d, o)`,
    [outIds, outbound.map((o) => o.tenant), outbound.map((o) => o.topic), outbound.map((o) => o.data), new Date(DAY_START + 5000)],
  );
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await outReceiver?.close();
  await pool?.end();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

it("retention keeps a day whose archive cannot be written", async () => {
  const file = path.join(dir, "not-a-directory");
  await writeFile(file, "x");
  const r = await runRetention(pool, NOW, 30, directoryStore(file));
  expect(r?.dropped.filter((n) => n.endsWith(DAY.replaceAll("-", "")))).toEqual([]);
  expect(await exists(`requests_p${DAY.replaceAll("-", "")}`)).toBe(true);
  expect(await exists(`outbound_events_p${DAY.replaceAll("-", "")}`)).toBe(true);
  await rm(file);
}, 120_000);

it("npm run archive writes the day; retention re-archives a damaged archive, verifies it and only then drops the partitions; --verify catches a changed file", async () => {
  const store = directoryStore(dir);
  // The operator's archive first (partitions kept), then one of its files damaged: retention reads the archive
  // back before it drops anything on its word, and archives the day again.
  const archived = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/archive.ts", "--day", DAY], {
    env: { ...process.env, ARCHIVE_DIR: dir, DATABASE_URL: database.url },
    encoding: "utf8",
  });
  expect(archived.status, archived.stderr).toBe(0);
  expect(archived.stdout).toContain(`${DAY} archived and verified`);
  expect(await exists(`requests_p${DAY.replaceAll("-", "")}`)).toBe(true);
  await cp(path.join(dir, DAY, "requests.ndjson.gz"), path.join(dir, DAY, "events.ndjson.gz"));
  expect((await verifyDay(store, DAY)).problems.join()).toMatch(/events\.ndjson\.gz: sha256/);
  const started = Date.now();
  const r = await runRetention(pool, NOW, 30, store);
  const tookMs = Date.now() - started;
  const suffix = DAY.replaceAll("-", "");
  expect(r?.dropped.filter((n) => n.endsWith(suffix)).sort()).toEqual(
    ["attempts", "events", "ignored_events", "outbound_attempts", "outbound_events", "request_raw_data", "requests", "transformation_executions"].map(
      (t) => `${t}_p${suffix}`,
    ),
  );
  expect(await exists(`requests_p${suffix}`)).toBe(false);
  const manifest = (await readManifest(store, DAY))!;
  expect(manifest.counts).toMatchObject({
    requests: COUNT,
    request_raw_data: COUNT,
    events: COUNT,
    attempts: Math.min(100, COUNT),
    outbound_events: 6 + OUTBOUND_C,
  });
  expect(manifest.files.requests.rows).toBe(COUNT);
  expect(manifest.index.requests_by_source).toEqual({ [chosen.source.id]: { team_id: chosen.team_id, requests: COUNT } });
  expect((await verifyDay(store, DAY)).problems).toEqual([]);
  if (COUNT > 10_000) {
    // The long form's measurements (docs/operations.md "Archive", sizes).
    const sizes = Object.entries(manifest.files).map(([n, f]) => `${n} ${f.rows} rows ${f.bytes} B gzip (${f.uncompressed_bytes} B NDJSON)`);
    console.log(`archived, verified and dropped ${COUNT} requests in ${tookMs} ms: ${sizes.join("; ")}`);
  }

  const cli = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/archive.ts", "--day", DAY, "--verify"], {
    env: { ...process.env, ARCHIVE_DIR: dir },
    encoding: "utf8",
  });
  expect(cli.status, cli.stderr).toBe(0);
  expect(cli.stdout).toContain(`${DAY} verifies: `);
  expect(cli.stdout).toContain(`requests ${COUNT}`);

  // A copy whose events file is the requests file: the checksum catches it.
  const copy = await mkdtemp(path.join(tmpdir(), "hookyard-archive-bad-"));
  try {
    await cp(dir, copy, { recursive: true });
    await cp(path.join(copy, DAY, "requests.ndjson.gz"), path.join(copy, DAY, "events.ndjson.gz"));
    const { problems } = await verifyDay(directoryStore(copy), DAY);
    expect(problems.join("\n")).toMatch(/events\.ndjson\.gz: sha256/);
    const bad = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/archive.ts", "--day", DAY, "--verify"], {
      env: { ...process.env, ARCHIVE_DIR: copy },
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}, 300_000);

it("replays the archived day into the chosen connection: planned, every request delivered once, byte-exact, marked with the operation", async () => {
  const query = { created_at: { gte: new Date(DAY_START).toISOString(), lt: new Date(DAY_START + DAY_MS).toISOString() } };
  const plan = await fetch(`${server!.url}/api/2025-07-01/bulk/archived-requests/replay/plan?query=${encodeURIComponent(JSON.stringify(query))}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(await plan.json()).toEqual({ estimated_count: COUNT, estimated_batch: Math.ceil(COUNT / (COUNT > 10_000 ? 1000 : 100)) });

  const created = await call("POST", "/bulk/archived-requests/replay", {
    query: { ...query, target: { source_id: chosen.source.id, webhook_ids: [chosen.id] } },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  expect(created.json).toMatchObject({ estimated_count: COUNT, in_progress: true, completed_at: null, progress: 0 });
  const id = created.json.id as string;
  const done = await eventually(
    async () => {
      const op = await call("GET", `/bulk/archived-requests/replay/${id}`);
      return op.json.completed_at ? op.json : null;
    },
    COUNT > 10_000 ? 1_800_000 : 60_000,
    250,
  );
  expect(done).toMatchObject({ completed_count: COUNT, failed_count: 0, in_progress: false, progress: 1 });

  await receiver.waitFor(COUNT, COUNT > 10_000 ? 1_800_000 : 60_000);
  expect(receiver.received.every((r) => r.url.startsWith("/chosen"))).toBe(true);
  // Byte-exact, each archived body once (the path and query travel with it).
  const got = receiver.received.map((r) => r.body.toString("base64")).sort();
  expect(got).toEqual([...bodies.values()].map((b) => b.toString("base64")).sort());
  expect(receiver.received[0].url).toBe("/chosen/hook?a=1");
  const { rows } = await pool.query<{ requests: number; events: number }>(
    "SELECT (SELECT count(*)::int FROM requests WHERE bulk_retry_id = $1 AND source_id = $2) AS requests, (SELECT count(*)::int FROM events WHERE bulk_retry_id = $1 AND webhook_id = $3) AS events",
    [id, chosen.source.id, chosen.id],
  );
  expect(rows[0]).toEqual({ requests: COUNT, events: COUNT });
}, 3_600_000);

it("bad queries are 422s; a day with nothing archived matches nothing; a replay can be cancelled", async () => {
  const target = { source_id: chosen.source.id, webhook_ids: [other.id] };
  const missing = await call("POST", "/bulk/archived-requests/replay", { query: { target } });
  expect(missing.status).toBe(422);
  expect(missing.json.data.message).toMatch(/query\.created_at: required/);
  const badDate = await call("POST", "/bulk/archived-requests/replay", { query: { created_at: { gte: "yesterday", lt: "2026-01-01" }, target } });
  expect(badDate.status).toBe(422);
  expect(badDate.json.data.field).toBe("query.created_at.gte");
  const empty = await call("POST", "/bulk/archived-requests/replay", {
    query: { created_at: { gte: new Date(DAY_START - 5 * DAY_MS).toISOString(), lt: new Date(DAY_START - 4 * DAY_MS).toISOString() }, target },
  });
  expect(empty.status).toBe(422);
  expect(empty.json).toMatchObject({ code: "UNPROCESSABLE_ENTITY" });

  const before = receiver.received.length;
  const created = await call("POST", "/bulk/archived-requests/replay", {
    query: { created_at: { gte: new Date(DAY_START).toISOString(), lt: new Date(DAY_START + DAY_MS).toISOString() }, target },
  });
  expect(created.status).toBe(200);
  const cancelled = await call("POST", `/bulk/archived-requests/replay/${created.json.id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.json.cancelled_at).not.toBeNull();
  expect(cancelled.json.in_progress).toBe(false);
  const listed = await call("GET", "/bulk/archived-requests/replay");
  expect(listed.json.models.map((m: { id: string }) => m.id)).toContain(created.json.id);
  // Whatever ran before the cancel went to the other connection only.
  expect(receiver.received.slice(before).every((r) => r.url.startsWith("/other"))).toBe(true);
}, 120_000);

async function outboundCall(method: string, p: string, body?: unknown, token = outboundKey) {
  const res = await fetch(`${server!.url}/outbound/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

it("republishes archived outbound events to a chosen destination: planned, each once, new events marked as replays; bad queries and other tenants refused; cancel stops it", async () => {
  for (const t of ["tenant-a", "tenant-b", "tenant-c"]) expect((await outboundCall("PUT", `/tenants/${t}`)).status).toBeLessThan(300);
  const dest = async (t: string, p: string) => {
    const d = await outboundCall("POST", `/tenants/${t}/destinations`, { type: "webhook", topics: "*", config: { url: `${outReceiver.url}/${p}` } });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    return d.json.id as string;
  };
  const da = await dest("tenant-a", "a");
  const db = await dest("tenant-b", "b");
  const dc = await dest("tenant-c", "c");
  const time = { gte: new Date(DAY_START).toISOString(), lte: new Date(DAY_START + DAY_MS - 1).toISOString() };

  // Bad queries: 422; another tenant's destination: 404.
  expect((await outboundCall("POST", "/archive-replays", { destination_id: da })).status).toBe(422);
  expect((await outboundCall("POST", "/archive-replays/plan", { time: { gte: "yesterday", lte: time.lte }, destination_id: da })).status).toBe(422);
  const long = await outboundCall("POST", "/archive-replays", { time: { gte: "2024-01-01T00:00:00Z", lte: "2025-06-01T00:00:00Z" }, destination_id: da });
  expect(long.status).toBe(422);
  expect(JSON.stringify(long.json)).toMatch(/at most 366 days/);
  expect((await outboundCall("POST", "/archive-replays", { time: { gte: time.lte, lte: time.gte }, destination_id: da })).status).toBe(422);
  const before = { gte: new Date(DAY_START - 5 * DAY_MS).toISOString(), lte: new Date(DAY_START - 4 * DAY_MS).toISOString() };
  expect((await outboundCall("POST", "/archive-replays", { time: before, destination_id: da })).status).toBe(422);
  expect(await outboundCall("POST", "/archive-replays", { time, tenant_id: "tenant-a", destination_id: db })).toEqual({
    status: 404,
    json: { status: 404, message: "destination not found" },
  });
  const jwtB = (await outboundCall("GET", "/tenants/tenant-b/token")).json.token as string;
  expect((await outboundCall("POST", "/archive-replays", { time, destination_id: da }, jwtB)).status).toBe(404);

  // The plan: every archived outbound event of the day (an estimate over tenants and topics).
  const plan = await outboundCall("POST", "/archive-replays/plan", { time, destination_id: da });
  expect(plan).toEqual({ status: 200, json: { estimated_count: 6 + OUTBOUND_C, estimated_batch: Math.ceil((6 + OUTBOUND_C) / 100) } });

  // tenant-a's order.created events to da: each once, as new events marked with the replay (tenant-b's never).
  const created = await outboundCall("POST", "/archive-replays", { time, topic: "order.created", destination_id: da });
  expect(created.status, JSON.stringify(created.json)).toBe(202);
  expect(created.json).toMatchObject({ query: { time, topic: "order.created", destination_id: da, tenant_id: "tenant-a" }, in_progress: true });
  const id = created.json.id as string;
  const done = await eventually(
    async () => {
      const op = await outboundCall("GET", `/archive-replays/${id}`);
      return op.json.completed_at ? op.json : null;
    },
    60_000,
    200,
  );
  expect(done).toMatchObject({ completed_count: 4, failed_count: 0, in_progress: false, progress: 1, cancelled_at: null });
  await outReceiver.waitFor(4, 60_000);
  const got = outReceiver.received.filter((r) => r.url.startsWith("/a"));
  expect(got.map((r) => r.body.toString("utf8")).sort()).toEqual([...archivedA.values()].sort());
  const { rows } = await pool.query<{ id: string; of: string; destination_id: string }>(
    "SELECT id, metadata->>'hookyard_replay_of' AS of, destination_id FROM outbound_events WHERE metadata->>'hookyard_archive_replay' = $1",
    [id],
  );
  expect(rows.map((r) => r.of).sort()).toEqual([...archivedA.keys()].sort());
  expect(rows.every((r) => r.destination_id === da && !archivedA.has(r.id))).toBe(true);
  // Not a redrive.
  expect((await outboundCall("GET", `/redrives/${id}`)).status).toBe(404);
  expect((await outboundCall("GET", "/redrives")).json.models).toEqual([]);

  // Cancel: tenant-c's replay (four batches) takes one batch per slice while its destination's queue is backed up
  // (deliveries held until tomorrow); cancelled after its first, it takes no batch after the cancel.
  await pool.query(
    `INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, next_attempt_at)
     SELECT 'evt_held_' || g, now(), $1, 'tenant-c', 'pending', now() + interval '1 day' FROM generate_series(1, 150) AS g`,
    [dc],
  );
  const c = await outboundCall("POST", "/archive-replays", { time, destination_id: dc });
  expect(c.status).toBe(202);
  await eventually(async () => (await outboundCall("GET", `/archive-replays/${c.json.id}`)).json.processed_batch >= 1, 60_000, 100);
  const cancelled = await outboundCall("POST", `/archive-replays/${c.json.id}/cancel`);
  expect(cancelled.json).toMatchObject({ in_progress: false, completed_at: null });
  expect(cancelled.json.cancelled_at).not.toBeNull();
  const k = cancelled.json.processed_batch as number;
  expect(k).toBeLessThan(4);
  expect(cancelled.json.completed_count).toBe(100 * k);
  await eventually(
    async () => (await pool.query("SELECT 1 FROM graphile_worker.jobs WHERE key = $1", [`archive-replay:${c.json.id}`])).rowCount === 0,
    30_000,
    200,
  );
  expect((await outboundCall("GET", `/archive-replays/${c.json.id}`)).json).toMatchObject({ processed_batch: k, completed_count: 100 * k, completed_at: null });
  const { rows: republished } = await pool.query("SELECT 1 FROM outbound_events WHERE metadata->>'hookyard_archive_replay' = $1", [c.json.id]);
  expect(republished.length).toBe(100 * k);
}, 180_000);
