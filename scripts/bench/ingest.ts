/**
 * `npm run bench:ingest`: ingestion throughput and latency.
 * autocannon POSTs 1 KiB JSON bodies to a console test URL (`/e/{id}`) at 10, 50 and 200 connections
 * and, in the same run and database, to a bare Node `http` server doing one durable INSERT per request
 * (the reference). Prints requests/s, p50/p99 latency (ms), errors, the ratio to the reference, and
 * checks that the number of stored requests equals the number of 2xx answers.
 * Each run sends a fixed number of requests (so every answer is counted) and is timed.
 * Also prints CPU per request (ms of CPU time of the server's processes and of PostgreSQL's, from /proc, over the
 * run): on a shared, loaded machine throughput moves with the neighbours, CPU per request much less.
 * Env: BENCH_REQUESTS (per run, default 50000), BENCH_CONNECTIONS (default "10,50,200"), BENCH_LOG_LEVEL (the
 * server's LOG_LEVEL, default info: the access log is on).
 */
import { spawn } from "node:child_process";
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { loadAverage, testPostmaster, usageByPart } from "./common";

const amount = Number(process.env.BENCH_REQUESTS ?? 50_000);
const connectionsList = (process.env.BENCH_CONNECTIONS ?? "10,50,200").split(",").map(Number);
// Valid JSON of exactly 1 KiB (a team source answers 400 UNPARSABLE_JSON to a truncated one).
const jsonOf = (pad: number) => JSON.stringify({ type: "invoice.paid", data: { id: "in_1", amount: 4200, customer: "cus_1", pad: "x".repeat(pad) } });
const body = jsonOf(1024 - jsonOf(0).length);

type Run = { rps: number; p50: number; p99: number; errors: number; ok: number; non2xx: number };

/** One autocannon run of `amount` requests; throughput is timed from start to the last response. */
async function load(url: string, connections: number): Promise<Run> {
  const started = performance.now();
  let last = started;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, method: "POST", connections, amount, headers: { "content-type": "application/json" }, body },
      (err: Error | null, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on("response", () => (last = performance.now()));
  });
  const seconds = (last - started) / 1000;
  return { rps: (r["2xx"] + r.non2xx) / seconds, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, ok: r["2xx"], non2xx: r.non2xx };
}

buildIfNeeded((m) => console.log(`[bench] ${m}`));
const db = await startTestDatabase();
// At the production default (info), so the access log is part of what is measured (BENCH_LOG_LEVEL changes it).
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info" });
const refPort = await freePort();
const reference = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/bench/reference-server.ts"], {
  env: { ...process.env, DATABASE_URL: db.url, PORT: String(refPort) },
  stdio: ["ignore", "pipe", "inherit"],
});
await new Promise<void>((resolve) => reference.stdout.on("data", (d) => String(d).includes("ready") && resolve()));

const create = await fetch(`${hookyard.url}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
const testUrl = (await create.json()) as { ingest_url: string };
const sourceId = `src_${new URL(testUrl.ingest_url).pathname.split("/").pop()}`;
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const count = async (sql: string, args: unknown[] = []) => Number((await client.query<{ n: string | number }>(sql, args)).rows[0].n);

console.log(`\n[bench] ${os.cpus().length} cores, ${os.cpus()[0]?.model}; ${amount} requests per run; 1 KiB JSON bodies\n`);
const roots = new Map<number, string>([
  [testPostmaster(), "postgres"],
  [hookyard.process.pid ?? -1, "hookyard"],
  [reference.pid ?? -1, "reference"],
]);
/** CPU ms so far of the server under test (`which`: "reference", or Hookyard's web + worker + supervisor) and of PostgreSQL. */
const cpuNow = (which: "reference" | "hookyard") => {
  const u = usageByPart(roots);
  const part = (n: string) => u.get(n)?.cpuMs ?? 0;
  return { server: which === "reference" ? part("reference") : part("web") + part("worker") + part("supervisor"), postgres: part("postgres") };
};
/** Runs `fn` and returns its result with the CPU ms per request (server, PostgreSQL) it cost. */
async function measured(which: "reference" | "hookyard", fn: () => Promise<Run>): Promise<Run & { cpu: string }> {
  const before = cpuNow(which);
  const r = await fn();
  const after = cpuNow(which);
  const per = (ms: number) => ((ms / Math.max(1, r.ok + r.non2xx)) * 1000).toFixed(0);
  return { ...r, cpu: `${per(after.server - before.server)} / ${per(after.postgres - before.postgres)}` };
}
const rows: string[] = [];
let allConsistent = true;
for (const connections of connectionsList) {
  const refBefore = await count("SELECT count(*) AS n FROM bench_reference");
  const ref = await measured("reference", () => load(`http://127.0.0.1:${refPort}/`, connections));
  const refStored = (await count("SELECT count(*) AS n FROM bench_reference")) - refBefore;

  const before = await count("SELECT count(*) AS n FROM requests WHERE source_id = $1", [sourceId]);
  const hy = await measured("hookyard", () => load(testUrl.ingest_url, connections));
  const stored = (await count("SELECT count(*) AS n FROM requests WHERE source_id = $1", [sourceId])) - before;
  const consistent = stored === hy.ok && refStored === ref.ok;
  allConsistent &&= consistent;
  for (const [name, r, s] of [
    ["reference (1 INSERT/request)", ref, refStored],
    ["hookyard /e/{id}", hy, stored],
  ] as const) {
    rows.push(
      `| ${connections} | ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors + r.non2xx} | ${r.ok} | ${s} | ${r.cpu} | ${name.startsWith("hookyard") ? (hy.rps / ref.rps).toFixed(2) : "1.00"} |`,
    );
  }
}
console.log("| connections | server | requests/s | p50 ms | p99 ms | errors | 2xx | stored | CPU µs/request server / PostgreSQL | ratio |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`\n[bench] load average at the end: ${loadAverage()}`);
console.log(`[bench] stored == 2xx answers in every run: ${allConsistent ? "yes" : "NO"}`);

await client.end();
reference.kill("SIGTERM");
await hookyard.stop();
await db.pg.stop();
process.exit(allConsistent ? 0 : 1);
