/**
 * `npm run bench:bulk` (docs/benchmarks.md#bulk-operations-npm-run-benchbulk): a bulk retry of many failed events while live traffic arrives.
 * BENCH_BULK_EVENTS FAILED events (default 100,000, with their requests) are written straight to the
 * database behind one connection to a local sink; a second source takes live requests.
 * 1. Live ingestion alone: BENCH_DURATION s (default 10) at BENCH_CONNECTIONS (50) → requests/s.
 * 2. The same load while a bulk retry of every failed event runs → requests/s, and the ratio to 1.
 * 3. The operation to completion: records/s (completed_count over created_at → completed_at).
 * Then checks that every matched event got exactly one new attempt (trigger BULK_RETRY) and that the
 * live requests were all delivered.
 */
import { fork } from "node:child_process";
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { createId } from "@/lib/ids";
import { startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { log } from "./common";

const count = Number(process.env.BENCH_BULK_EVENTS ?? 100_000);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const body = JSON.stringify({ type: "invoice.paid", data: { id: "in_1", amount: 4200, pad: "x".repeat(900) } });

const sink = fork("scripts/bench/sink.ts", [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const sinkPort = await new Promise<number>((resolve) => sink.once("message", (m) => resolve((m as { port: number }).port)));

buildIfNeeded(log);
const db = await startTestDatabase();
const apiKey = `hky_bench_${Date.now()}`;
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", GATEWAY_API_KEY: apiKey });
const api = async <T>(method: string, path: string, payload?: unknown) => {
  const res = await fetch(`${hookyard.url}/api/2025-07-01${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  return (await res.json()) as T;
};
type Connection = { id: string; team_id: string; source: { id: string; url: string }; destination: { id: string } };
const connect = (name: string) =>
  api<Connection>("POST", "/connections", {
    name,
    source: { name },
    destination: { name: `${name}-sink`, config: { url: `http://127.0.0.1:${sinkPort}/${name}` } },
  });
const bulkConnection = await connect("outage");
const live = await connect("live");
const client = new pg.Client({ connectionString: db.url });
await client.connect();

log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}; writing ${count} failed events`);
const started = Date.now() - 3_600_000;
for (let offset = 0; offset < count; offset += 10_000) {
  const n = Math.min(10_000, count - offset);
  const requestIds = Array.from({ length: n }, (_, i) => createId("request", started + offset + i));
  const eventIds = Array.from({ length: n }, (_, i) => createId("event", started + offset + i));
  await client.query(
    "INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at) SELECT id, $2, $3, false, now(), now(), now() FROM unnest($1::text[]) AS id",
    [requestIds, bulkConnection.team_id, bulkConnection.source.id],
  );
  await client.query(
    "INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size) SELECT id, 'POST', '/', '', '{}', convert_to($2, 'UTF8'), length($2) FROM unnest($1::text[]) AS id",
    [requestIds, body],
  );
  await client.query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, response_status, last_attempt_at, created_at, updated_at)
     SELECT e, $3, $4, $5, $6, r, 'FAILED', 1, 503, now(), now(), now() FROM unnest($1::text[], $2::text[]) AS x(e, r)`,
    [eventIds, requestIds, bulkConnection.team_id, bulkConnection.id, bulkConnection.source.id, bulkConnection.destination.id],
  );
}
await client.query("ANALYZE");

async function load(): Promise<{ rps: number; p99: number; errors: number }> {
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      { url: live.source.url, method: "POST", headers: { "content-type": "application/json" }, body, connections, duration },
      (err: Error | null, result) => (err ? reject(err) : resolve(result)),
    );
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

const alone = await load();
const op = await api<{ id: string }>("POST", "/bulk/events/retry", { query: { status: "FAILED", webhook_id: bulkConnection.id } });
const during = await load();
const progressAfterLoad = (await client.query<{ completed_count: number }>("SELECT completed_count FROM bulk_operations WHERE id = $1", [op.id])).rows[0]
  .completed_count;
type BulkRow = { completed_at: Date | null; created_at: Date; completed_count: number; failed_count: number };
let row: BulkRow & { completed_at: Date };
for (;;) {
  const got = (await client.query<BulkRow>("SELECT * FROM bulk_operations WHERE id = $1", [op.id])).rows[0];
  if (got.completed_at) {
    row = { ...got, completed_at: got.completed_at };
    break;
  }
  await new Promise((r) => setTimeout(r, 500));
}
const seconds = (row.completed_at.getTime() - row.created_at.getTime()) / 1000;
for (;;) {
  const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE status IN ('QUEUED', 'SCHEDULED')");
  if (rows[0].n === 0) break;
  await new Promise((r) => setTimeout(r, 500));
}
const attempts = (
  await client.query<{ n: number; k: number }>(
    "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS k FROM attempts WHERE bulk_retry_id = $1 AND trigger = 'BULK_RETRY'",
    [op.id],
  )
).rows[0];
const liveAccepted = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM requests WHERE source_id = $1", [live.source.id])).rows[0].n;
const liveDelivered = (
  await client.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE source_id = $1 AND status = 'SUCCESSFUL'", [live.source.id])
).rows[0].n;

console.log(`\n| bulk retry of ${count} events, live load ${connections} connections × ${duration} s | value |`);
console.log("|---|---|");
console.log(`| live ingestion alone, requests/s | ${Math.round(alone.rps)} (p99 ${alone.p99} ms, errors ${alone.errors}) |`);
console.log(`| live ingestion during the bulk retry, requests/s | ${Math.round(during.rps)} (p99 ${during.p99} ms, errors ${during.errors}) |`);
console.log(`| ratio (aim ≥ 0.8) | ${(during.rps / alone.rps).toFixed(2)} |`);
console.log(`| records handled while the live load ran | ${progressAfterLoad} |`);
console.log(
  `| bulk operation, records/s (created → completed) | ${Math.round(row.completed_count / seconds)} (${row.completed_count} in ${seconds.toFixed(1)} s, failed ${row.failed_count}) |`,
);
const exact = attempts.n === count && attempts.k === count && row.completed_count === count;
console.log(`\n[bench] BULK_RETRY attempts ${attempts.n} for ${attempts.k} distinct events of ${count}: exactly one each: ${exact ? "yes" : "NO"}`);
console.log(`[bench] live requests accepted ${liveAccepted}, delivered ${liveDelivered}`);

await client.end();
await hookyard.stop();
await db.pg.stop();
sink.kill();
process.exit(exact && liveDelivered === liveAccepted ? 0 : 1);
