/**
 * `npm run bench:metrics` (docs/benchmarks.md#gateway-metrics-npm-run-benchmetrics): the gateway metrics endpoints over a large team. Writes
 * BENCH_EVENTS events (default 1,000,000) and two attempts per event, with their requests, spread over
 * the last 24 hours (into their day partitions), then asks every `/metrics/*` endpoint for those 24 hours
 * at 1 h granularity BENCH_RUNS times (default 10) through the running server, and prints p50 / p95 of
 * the answer time per endpoint (aim: p50 < 300 ms).
 */
import os from "node:os";
import pg from "pg";
import { GATEWAY_METRICS, GATEWAY_ROLLUPS } from "@/lib/gateway/metrics/tables";
import { createId } from "@/lib/ids";
import { parseGranularity, runMetrics } from "@/lib/metrics/query";
import { rollupPass } from "@/lib/metrics/rollup";
import { startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { log, percentile } from "./common";

const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 10);

buildIfNeeded(log);
const db = await startTestDatabase();
const apiKey = `hky_bench_${Date.now()}`;
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", GATEWAY_API_KEY: apiKey, WORKER_ENABLED: "false" });
const api = async (path: string) => {
  const res = await fetch(`${hookyard.url}/api/2025-07-01${path}`, { headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" } });
  return { status: res.status, json: (await res.json()) as { metadata?: { row_count?: number } } };
};
const created = await fetch(`${hookyard.url}/api/2025-07-01/connections`, {
  method: "POST",
  headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ name: "metrics", source: { name: "metrics" }, destination: { name: "metrics", config: { url: "http://127.0.0.1:9/" } } }),
});
const conn = (await created.json()) as { id: string; team_id: string; source: { id: string }; destination: { id: string } };
const client = new pg.Client({ connectionString: db.url });
await client.connect();

const end = Date.now();
const start = end - 24 * 3_600_000;
await client.query("SELECT hookyard_ensure_partitions($1::date, $2::date)", [new Date(start - 86_400_000), new Date(end + 86_400_000)]);
log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}; writing ${events} events, ${events} requests and ${2 * events} attempts over 24 h`);
const loadStarted = Date.now();
const CHUNK = 20_000;
const statuses = ["SUCCESSFUL", "SUCCESSFUL", "SUCCESSFUL", "FAILED", "QUEUED"];
/** Writes one request, one event and two attempts at each of `times` (ms). */
async function write(times: number[]) {
  const requestIds = times.map((t) => createId("request", t));
  const eventIds = times.map((t) => createId("event", t));
  const attemptIds = times.flatMap((t) => [createId("attempt", t + 100), createId("attempt", t + 200)]);
  const dates = times.map((t) => new Date(t));
  await client.query(
    "INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at) SELECT id, $2, $3, false, t, t, t FROM unnest($1::text[], $4::timestamptz[]) AS x(id, t)",
    [requestIds, conn.team_id, conn.source.id, dates],
  );
  await client.query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, successful_at, created_at, updated_at)
     SELECT e, $3, $4, $5, $6, r, ($8::text[])[1 + (ord % 5)], 2, CASE WHEN ord % 5 < 3 THEN t + interval '200 ms' END, t, t + interval '200 ms'
       FROM unnest($1::text[], $2::text[], $7::timestamptz[]) WITH ORDINALITY AS x(e, r, t, ord)`,
    [eventIds, requestIds, conn.team_id, conn.id, conn.source.id, conn.destination.id, dates, statuses],
  );
  await client.query(
    `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, response_latency, delivery_latency, created_at, updated_at)
     SELECT a, $3, ($2::text[])[(ord + 1) / 2], $4, 1 + (ord + 1) % 2, 'INITIAL', CASE WHEN ord % 7 = 0 THEN 'FAILED' ELSE 'SUCCESSFUL' END,
            CASE WHEN ord % 7 = 0 THEN 500 ELSE 200 END, 20 + (ord % 300), 25 + (ord % 300), t, t
       FROM unnest($1::text[], $5::timestamptz[]) WITH ORDINALITY AS x(a, t, ord)`,
    [attemptIds, eventIds, conn.team_id, conn.destination.id, dates.flatMap((d) => [d, d])],
  );
}
for (let offset = 0; offset < events; offset += CHUNK) {
  const n = Math.min(CHUNK, events - offset);
  await write(Array.from({ length: n }, (_, i) => start + Math.floor(((offset + i) / events) * (end - start))));
}
await client.query("VACUUM ANALYZE requests, events, attempts, transformation_executions");
log(`loaded in ${((Date.now() - loadStarted) / 1000).toFixed(0)} s`);
// The worker's rollup passes (WORKER_ENABLED is false here: run them in this process), then a live minute
// written after them, as in production: the last minutes are read from the base tables.
const rollupStarted = Date.now();
const rollupPool = new pg.Pool({ connectionString: db.url, max: 2 });
let rolled = 0;
for (;;) {
  const n = await rollupPass(rollupPool, Object.values(GATEWAY_ROLLUPS), Date.now(), { graceMs: 0, maxMs: 3_600_000 });
  rolled += n ?? 0;
  const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM metrics_dirty WHERE minute < $1", [
    new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000),
  ]);
  if (rows[0].n === 0) break;
}
await rollupPool.end();
await client.query(
  "VACUUM ANALYZE metrics_dirty, metrics_requests_1m, metrics_events_1m, metrics_attempts_1m, metrics_attempt_latency_1m, metrics_transformations_1m",
);
const { rows: sizes } = await client.query<{ t: string; n: number }>(
  "SELECT 'events' AS t, count(*)::int AS n FROM metrics_events_1m UNION ALL SELECT 'attempts', count(*)::int FROM metrics_attempts_1m UNION ALL SELECT 'attempt_latency', count(*)::int FROM metrics_attempt_latency_1m UNION ALL SELECT 'requests', count(*)::int FROM metrics_requests_1m",
);
log(
  `rolled up ${rolled} (team, minute) pairs in ${((Date.now() - rollupStarted) / 1000).toFixed(0)} s; rollup rows: ${sizes.map((r) => `${r.t} ${r.n}`).join(", ")}`,
);

// A live minute: one minute's worth of rows over the last 60 s, not rolled up.
const perMinute = Math.round(events / 1440);
const liveEnd = Date.now();
await write(Array.from({ length: perMinute }, (_, i) => liveEnd - 60_000 + Math.floor((i / perMinute) * 60_000)));
// The range ends now: its last minutes (not rolled up yet) come from the base tables.
const range = `date_range[start]=${new Date(Date.now() - 24 * 3_600_000).toISOString()}&date_range[end]=${new Date().toISOString()}&granularity=1h`;
const queries: [string, string][] = [
  ["requests", "measures[]=count&measures[]=rejected_count"],
  ["events", "measures[]=count&measures[]=failed_count&measures[]=error_rate"],
  ["attempts", "measures[]=count&measures[]=error_rate&measures[]=response_latency_p50&measures[]=response_latency_p95&measures[]=response_latency_p99"],
  ["transformations", "measures[]=count&dimensions[]=log_level"],
  ["queue-depth", "measures[]=max_depth&measures[]=max_age&dimensions[]=destination_id"],
  ["events-pending-timeseries", "measures[]=count"],
  ["events-by-issue", "measures[]=count&dimensions[]=issue_id"],
];
console.log(`\n| endpoint, 24 h at 1 h (${events} events, ${2 * events} attempts) | p50 ms | p95 ms | rows |`);
console.log("|---|---|---|---|");
let met = true;
for (const [name, measures] of queries) {
  const times: number[] = [];
  let rows = 0;
  let status = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await api(`/metrics/${name}?${range}&${measures}`);
    times.push(performance.now() - t0);
    status = r.status;
    rows = r.json.metadata?.row_count ?? 0;
  }
  times.sort((a, b) => a - b);
  if (status !== 200) {
    console.log(`| ${name} | status ${status} | | |`);
    continue;
  }
  if (percentile(times, 50) >= 300) met = false;
  console.log(`| ${name} | ${Math.round(percentile(times, 50))} | ${Math.round(percentile(times, 95))} | ${rows} |`);
}
console.log(`\n[bench] every endpoint under 300 ms at p50: ${met ? "yes" : "NO"}`);
// BENCH_EXPLAIN=queue-depth,attempts: the plans of those endpoints' queries (EXPLAIN ANALYZE).
for (const name of (process.env.BENCH_EXPLAIN ?? "").split(",").filter(Boolean)) {
  const table = GATEWAY_METRICS[name];
  const q = new URLSearchParams(`${range}&${queries.find(([n]) => n === name)![1]}`);
  const explain = {
    query: async (sql: string, params: unknown[]) => (
      console.log((await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params)).rows.map((r) => r["QUERY PLAN"]).join("\n")),
      { rows: [] }
    ),
  };
  await runMetrics(explain as never, table, [conn.team_id], {
    start: new Date(q.get("date_range[start]")!),
    end: new Date(q.get("date_range[end]")!),
    granularity: parseGranularity(q.get("granularity")!),
    measures: q.getAll("measures[]"),
    dimensions: q.getAll("dimensions[]"),
    filters: {},
  });
}
await client.end();
await hookyard.stop();
await db.pg.stop();
process.exit(0);
