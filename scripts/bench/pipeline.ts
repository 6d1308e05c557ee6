/**
 * `npm run bench:pipeline`: the gateway pipeline end to end on this machine (sink and load generator
 * included). A source with one connection to an HTTP destination on a local sink.
 * 1. Ingestion with a connection present: BENCH_REQUESTS requests at 50 connections, as fast as
 *    possible, against the bare-Node one-INSERT reference server measured in the same run (ratio).
 * 2. Sustained load: BENCH_RATE requests/s for BENCH_DURATION s (autocannon overallRate); prints ingest
 *    requests/s, delivered events/s, and ingest-to-delivery latency p50/p95/p99 (sink arrival minus the
 *    request's `ingested_at`).
 * Then waits for the backlog to drain and checks that every accepted request was delivered exactly
 * once (duplicates, which at-least-once delivery allows, are counted and printed).
 * The sink runs in its own process (scripts/bench/sink.ts), so it does not share the load generator's
 * event loop.
 * Env: BENCH_REQUESTS (default 20000), BENCH_RATE (1000), BENCH_DURATION (60 s), BENCH_CONNECTIONS (50).
 * BENCH_MODE=steps runs open-loop steps against the reference relay instead of the phases (scripts/bench/steps.ts,
 * docs/benchmarks.md "Open-loop steps"); `npm run bench:pipeline -- fanout` and `-- size` (or BENCH_MODE=fanout|size)
 * run the fan-out and body-size benches instead (scripts/bench/fanout-size.ts, docs/benchmarks.md "Fan-out and size");
 * With BENCH_DEDUPE=1 the steps' connection has a deduplicate rule on each request's unique `body.bench_id`
 * (every event still delivered; measures the wait for earlier fan-outs, docs/pipeline.md "deduplicate").
 * `-- ordered` ordered delivery per key against unordered (scripts/bench/ordered.ts, docs/benchmarks.md "Ordered delivery"),
 * `-- ordered-outbound` the same for outbound destinations (publishes through the outbound API).
 */
import { spawn } from "node:child_process";
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { endRun, gatewayConnection, jsonOfSize, log, percentile, startSink } from "./common";
import { fanout, size } from "./fanout-size";
import { ordered } from "./ordered";
import { stepMode } from "./steps";

const requests = Number(process.env.BENCH_REQUESTS ?? 20_000);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const duration = Number(process.env.BENCH_DURATION ?? 60);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
// Valid JSON of exactly 1 KiB (a team source answers 400 UNPARSABLE_JSON to a truncated one).
const jsonOf = (pad: number) => JSON.stringify({ type: "invoice.paid", data: { id: "in_1", amount: 4200, customer: "cus_1", pad: "x".repeat(pad) } });
const body = jsonOf(1024 - jsonOf(0).length);
const sink = await startSink();
const sinkProcess = sink.process;
const sinkUrl = sink.url;
const ask = sink.ask;
/** event id → {request id, arrival times (ms)}, as the sink saw them. */
async function arrivalsNow(): Promise<Map<string, { requestId: string; at: number[] }>> {
  const { arrivals } = await ask<{ arrivals: [string, string, number[]][] }>("stats");
  return new Map(arrivals.map(([id, requestId, at]) => [id, { requestId, at }]));
}
const deliveredCount = async () => (await ask<{ count: number }>("count")).count;

buildIfNeeded(log);
const db = await startTestDatabase();
const apiKey = `hky_bench_${Date.now()}`;
// The same key for the outbound API (`-- ordered-outbound` publishes through it).
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", GATEWAY_API_KEY: apiKey, OUTBOUND_API_KEY: apiKey });
/** Creates a connection from a new source `name` to an HTTP destination at `url`; returns its source. */
const connect = (name: string, url: string) => gatewayConnection(hookyard.url, apiKey, { source: name, destination: `${name}-sink`, url });
// `npm run bench:pipeline -- fanout` or `-- size` (or BENCH_MODE=fanout|size): scripts/bench/fanout-size.ts.
const mode = process.argv[2] ?? process.env.BENCH_MODE;
if (mode === "fanout" || mode === "size" || mode === "ordered" || mode === "ordered-outbound") {
  const context = { hookyard, apiKey, sink, databaseUrl: db.url };
  const run = mode === "fanout" ? fanout(context) : mode === "size" ? size(context) : ordered(context, mode === "ordered" ? "gateway" : "outbound");
  await endRun(await run, hookyard, db, sink);
}
if (mode === "steps") {
  const dedupe = process.env.BENCH_DEDUPE === "1";
  const source = await gatewayConnection(hookyard.url, apiKey, {
    source: "open",
    destination: "open-sink",
    url: `${sinkUrl}/open/hookyard`,
    ...(dedupe ? { rules: [{ type: "deduplicate", window: 300, include_fields: ["body.bench_id"] }] } : {}),
  });
  const bodyOf = (id: string) => jsonOfSize((pad) => ({ type: "invoice.paid", bench_id: id, data: { id: "in_1", amount: 4200, customer: "cus_1", pad } }));
  // BENCH_STAGES=1: ingest → fan-out (the event's row) → sent → answered, per 2 s of each step.
  const stagesSql = `
    SELECT (floor(extract(epoch FROM r.ingested_at - $1::timestamptz) / 2) * 2)::int AS s, count(*)::int AS n,
           percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM e.created_at - r.ingested_at) * 1000) AS "fan-out",
           percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.delivered_at - e.created_at) * 1000) AS queued,
           percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.responded_at - a.delivered_at) * 1000) AS answer
      FROM requests r JOIN events e ON e.request_id = r.id JOIN attempts a ON a.event_id = e.id AND a.attempt_number = 1
     WHERE r.ingested_at >= $1 AND r.ingested_at < $2 GROUP BY 1 ORDER BY 1`;
  await stepMode(
    {
      title: `gateway: source → 1 connection${dedupe ? " with a deduplicate rule" : ""} → HTTP sink`,
      sink,
      databaseUrl: db.url,
      hookyard: { url: source.url },
      body: bodyOf,
      stagesSql,
    },
    hookyard,
    db,
  );
}
const refPort = await freePort();
const reference = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/bench/reference-server.ts"], {
  env: { ...process.env, DATABASE_URL: db.url, PORT: String(refPort) },
  stdio: ["ignore", "pipe", "inherit"],
});
await new Promise<void>((resolve) => reference.stdout.on("data", (d) => String(d).includes("ready") && resolve()));

const connection = { source: await connect("bench", `${sinkUrl}/hook`) };
const sourceUrl = connection.source.url;
const client = new pg.Client({ connectionString: db.url });
await client.connect();
// Saturation reports of the web process's ingestion writer (lib/ingest/ingest-pressure.ts), counted per phase.
let pressureReports = 0;
client.on("notification", (m) => m.channel === "hookyard_ingest_pressure" && pressureReports++);
await client.query("LISTEN hookyard_ingest_pressure");

type Run = { rps: number; p50: number; p99: number; errors: number; ok: number };
async function load(url: string, opts: Partial<autocannon.Options>): Promise<Run> {
  const started = performance.now();
  let last = started;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, method: "POST", headers: { "content-type": "application/json" }, body, ...opts }, (err: Error | null, result) =>
      err ? reject(err) : resolve(result),
    );
    instance.on("response", () => (last = performance.now()));
  });
  return {
    rps: (r["2xx"] + r.non2xx) / ((last - started) / 1000),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    ok: r["2xx"],
  };
}

async function drain(expected: () => Promise<number>, timeoutMs = 120_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if ((await deliveredCount()) >= (await expected())) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
const accepted = async () =>
  Number(
    (await client.query<{ n: string }>("SELECT count(*) AS n FROM requests WHERE source_id = $1 AND rejection_cause IS NULL", [connection.source.id])).rows[0]
      .n,
  );

log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}; 1 KiB JSON bodies; one connection to a local HTTP sink`);

/** Bytes of WAL PostgreSQL has written so far. */
const walBytes = async () => Number((await client.query<{ n: string }>("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn AS n")).rows[0].n);

// 1. Ingestion with a connection present, against the reference.
let wal = await walBytes();
const ref = await load(`http://127.0.0.1:${refPort}/`, { connections, amount: requests });
const refWal = (await walBytes()) - wal;
wal = await walBytes();
const deliveredBefore = await deliveredCount();
pressureReports = 0;
const phase1Start = Date.now();
const ingest = await load(sourceUrl, { connections, amount: requests });
const phase1End = Date.now();
const phase1Reports = pressureReports;
const deliveredInPhase1 = (await deliveredCount()) - deliveredBefore;
console.log(`\n| phase 1: ${requests} requests, ${connections} connections | requests/s | p50 ms | p99 ms | errors |`);
console.log("|---|---|---|---|---|");
console.log(`| reference (bare Node, 1 INSERT/request) | ${Math.round(ref.rps)} | ${ref.p50} | ${ref.p99} | ${ref.errors} |`);
console.log(`| hookyard /e/{id} with a connection | ${Math.round(ingest.rps)} | ${ingest.p50} | ${ingest.p99} | ${ingest.errors} |`);
console.log(`ratio to reference: ${(ingest.rps / ref.rps).toFixed(2)}\n`);
await drain(accepted);
const drainedAfter = Date.now() - phase1End;
const ingestWal = (await walBytes()) - wal;
const phase1Seconds = (phase1End - phase1Start) / 1000;
log(
  `during phase 1: ${Math.round(deliveredInPhase1 / phase1Seconds)} events/s delivered; ingestion reported saturated in ${phase1Reports} windows of 250 ms (of ${Math.round(phase1Seconds * 4)}); backlog drained ${drainedAfter} ms after the last request`,
);
log(`WAL per request: reference ${Math.round(refWal / requests)} bytes; hookyard ${Math.round(ingestWal / requests)} bytes, delivery included`);

// 2. Sustained rate.
const before = new Set((await arrivalsNow()).keys());
pressureReports = 0;
const startedAt = Date.now();
const sustained = await load(sourceUrl, { connections: Math.min(connections, 20), overallRate: rate, duration });
const loadEnded = Date.now();
const phase2Reports = pressureReports;
// autocannon stops at the deadline with requests still in flight: the server commits those after it.
await new Promise((r) => setTimeout(r, 1000));
const drained = await drain(accepted);
const arrivals = await arrivalsNow();
const deliveredDuringLoad = [...arrivals.entries()].filter(([id, e]) => !before.has(id) && e.at[0] <= loadEnded).length;
const newEvents = [...arrivals.keys()].filter((id) => !before.has(id));
const { rows } = await client.query<{ id: string; ingested_at: Date }>("SELECT id, ingested_at FROM requests WHERE id = ANY($1)", [
  newEvents.map((e) => arrivals.get(e)!.requestId),
]);
const ingestedAt = new Map(rows.map((r) => [r.id, r.ingested_at.getTime()]));
const latencies = newEvents
  .map((e) => arrivals.get(e)!.at[0] - ingestedAt.get(arrivals.get(e)!.requestId)!)
  .filter((n) => Number.isFinite(n))
  .sort((a, b) => a - b);
console.log(`\n| phase 2: ${rate}/s for ${duration} s | value |`);
console.log("|---|---|");
console.log(`| ingest requests/s | ${Math.round(sustained.rps)} (p99 ${sustained.p99} ms, errors ${sustained.errors}) |`);
console.log(`| delivered events/s during the load | ${Math.round(deliveredDuringLoad / ((loadEnded - startedAt) / 1000))} |`);
console.log(`| ingest-to-delivery p50 / p95 / p99 ms | ${percentile(latencies, 50)} / ${percentile(latencies, 95)} / ${percentile(latencies, 99)} |`);
console.log(`| windows of 250 ms with ingestion reported saturated | ${phase2Reports} of ${Math.round(((loadEnded - startedAt) / 1000) * 4)} |`);

// Where the latency goes: each stage's time since the request's ingested_at, for phase 2's events.
const { rows: stages } = await client.query<{ written: number; fanned: number; sent: number }>(
  `SELECT extract(epoch FROM r.created_at - r.ingested_at) * 1000 AS written,
          extract(epoch FROM e.created_at - r.ingested_at) * 1000 AS fanned,
          extract(epoch FROM a.delivered_at - r.ingested_at) * 1000 AS sent
     FROM requests r JOIN events e ON e.request_id = r.id JOIN attempts a ON a.event_id = e.id
    WHERE e.id = ANY($1)`,
  [newEvents],
);
const stage = (k: "written" | "fanned" | "sent") => {
  const v = stages.map((r) => Math.round(Number(r[k]))).sort((a, b) => a - b);
  return `${percentile(v, 50)} / ${percentile(v, 95)} / ${percentile(v, 99)}`;
};
log(
  `phase 2 stages since ingested_at, p50 / p95 / p99 ms: write began ${stage("written")}; fan-out began ${stage("fanned")}; attempt sent ${stage("sent")}; arrived ${percentile(latencies, 50)} / ${percentile(latencies, 95)} / ${percentile(latencies, 99)}`,
);
// Steady or stalls? p99 by 10 s window of ingestion.
const byWindow = new Map<number, number[]>();
for (const e of newEvents) {
  const { requestId, at } = arrivals.get(e)!;
  const t = ingestedAt.get(requestId);
  if (t === undefined) continue;
  const w = Math.floor((t - startedAt) / 10_000);
  if (!byWindow.has(w)) byWindow.set(w, []);
  byWindow.get(w)!.push(at[0] - t);
}
const windows = [...byWindow].filter(([w]) => w * 10 < duration).sort((a, b) => a[0] - b[0]);
log(
  `phase 2 ingest-to-delivery p99 by 10 s window, ms: ${windows
    .map(([, v]) =>
      percentile(
        v.sort((a, b) => a - b),
        99,
      ),
    )
    .join(", ")}`,
);

// Exactly once?
const total = await accepted();
const duplicates = [...arrivals.values()].reduce((n, e) => n + e.at.length - 1, 0);
const { rows: undelivered } = await client.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE status <> 'SUCCESSFUL'");
const { rows: pending } = await client.query<{ n: string }>("SELECT count(*) AS n FROM request_fanouts");
console.log(
  `\n[bench] accepted requests ${total}, delivered events ${arrivals.size}, duplicates ${duplicates}, events not SUCCESSFUL ${undelivered[0].n}, requests not fanned out ${pending[0].n}, drained: ${drained ? "yes" : "NO"}`,
);
const ok = drained && arrivals.size === total;
console.log(`[bench] every accepted request delivered exactly once${duplicates ? " (plus counted duplicates)" : ""}: ${ok ? "yes" : "NO"}`);

await client.end();
reference.kill("SIGTERM");
await hookyard.stop();
await db.pg.stop();
sinkProcess.kill();
process.exit(ok ? 0 : 1);
