/**
 * `npm run bench:api`: latency and throughput of the versioned gateway API's plain CRUD, authenticated
 * with an API key (docs/benchmarks.md "API latency"). For sources and destinations: GET one, GET a list
 * (`limit=25` of BENCH_ROWS rows) and POST create (a fresh name per request), each for a fixed duration
 * at a fixed number of connections. Prints requests/s, p50/p99 latency (ms), errors and non-2xx answers.
 * With BENCH_COMPARE_DIR (another checkout, built: e.g. a worktree of the commit before a change), the
 * same cases run against that checkout's server too, on a database of its own on the same PostgreSQL,
 * in alternating slices (BENCH_SLICES per case and server), so a busy machine slows both alike; a second
 * table gives the ratios.
 * Env: BENCH_SECONDS (per case and server, default 5), BENCH_CONNECTIONS (default 20), BENCH_ROWS (rows
 * seeded per resource, default 100), BENCH_CASES (comma-separated parts of case names to run, default
 * all), BENCH_COMPARE_DIR, BENCH_SLICES (default 5 when comparing, else 1).
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { log, percentile } from "./common";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const seedRows = Number(process.env.BENCH_ROWS ?? 100);
const only = (process.env.BENCH_CASES ?? "").split(",").filter(Boolean);
const compareDir = process.env.BENCH_COMPARE_DIR ? path.resolve(process.env.BENCH_COMPARE_DIR) : null;
const slices = Number(process.env.BENCH_SLICES ?? (compareDir ? 5 : 1));
const VERSION = "2025-07-01";

buildIfNeeded(log);
if (compareDir && !existsSync(path.join(compareDir, ".next/BUILD_ID")))
  throw new Error(`${compareDir} has no build: run \`npm run bench:api\` (or next build) there first`);
const db = await startTestDatabase();
const apiKey = `hky_bench_${Date.now()}_api_latency`;
const serverEnv = { LOG_LEVEL: "warn", GATEWAY_API_KEY: apiKey, WORKER_ENABLED: "false", GATEWAY_API_RATE_LIMIT: "1000000000" };
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };

const sourceBody = (name: string) => ({ name, description: "bench source" });
const destinationBody = (name: string) => ({ name, description: "bench destination", config: { url: "https://example.com/hook" } });
const resources = [
  { path: "/sources", body: sourceBody },
  { path: "/destinations", body: destinationBody },
] as const;

type Target = { label: string; base: string; ids: Record<string, string>; stop: () => Promise<void> };

/** Starts the server of checkout `cwd` (this one when undefined) on database `url` and seeds it. */
async function target(label: string, url: string, cwd?: string): Promise<Target> {
  const server = await startServer({ ...serverEnv, DATABASE_URL: url }, cwd);
  const base = `${server.url}/api/${VERSION}`;
  /** POSTs `body` to `p`; returns the created resource's id (throws on a non-2xx answer). */
  const create = async (p: string, body: unknown) => {
    const res = await fetch(`${base}${p}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${label}: POST ${p}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  // Seed rows so lists are full pages and GET one reads from a realistic table.
  const ids: Record<string, string> = {};
  for (const r of resources) for (let i = 0; i < seedRows; i++) ids[r.path] = await create(r.path, r.body(`seed-${i}`));
  return { label, base, ids, stop: server.stop };
}

const targets = [await target("this checkout", db.url)];
if (compareDir) targets.push(await target(path.basename(compareDir), (await startTestDatabase({ adminUrl: db.adminUrl })).url, compareDir));

type Case = { name: string; method: "GET" | "POST"; path: (t: Target) => string; body?: (n: number) => unknown };
const run = Date.now().toString(36);
let n = 0;
const cases: Case[] = resources.flatMap((r) => [
  { name: `GET ${r.path}/{id}`, method: "GET" as const, path: (t: Target) => `${r.path}/${t.ids[r.path]}` },
  { name: `GET ${r.path}?limit=25`, method: "GET" as const, path: () => `${r.path}?limit=25` },
  { name: `POST ${r.path}`, method: "POST" as const, path: () => r.path, body: (i: number) => r.body(`bench-${run}-${i}`) },
]);

type Result = { rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number };
type Sample = { times: number[]; ms: number; errors: number; non2xx: number };

/** One autocannon run of `c` against `t` for `duration` s; every answer's latency (ms). POST bodies get a fresh name per request. */
async function load(c: Case, t: Target, duration: number): Promise<Sample> {
  const times: number[] = [];
  const started = performance.now();
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${t.base}${c.path(t)}`,
        method: c.method,
        connections,
        duration,
        headers,
        requests: [c.body ? { method: c.method, setupRequest: (req) => ({ ...req, body: JSON.stringify(c.body!(n++)) }) } : { method: c.method }],
      },
      (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  return { times, ms: performance.now() - started, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

/** Latency percentiles and requests/s of the samples of one case and server. */
function summary(samples: Sample[]): Result {
  const times = samples.flatMap((s) => s.times).sort((a, b) => a - b);
  const ms = samples.reduce((a, s) => a + s.ms, 0);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    rps: (times.length / ms) * 1000,
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    errors: samples.reduce((a, s) => a + s.errors, 0),
    non2xx: samples.reduce((a, s) => a + s.non2xx, 0),
    total: times.length,
  };
}

log(
  `${os.cpus().length} cores, ${os.cpus()[0]?.model}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; ${connections} connections, ${seconds} s per case and server (${slices} slices); ${seedRows} seeded rows per resource; API ${VERSION}`,
);
// A short warm-up: the first requests of each route compile and fill caches.
for (const t of targets)
  for (const c of cases)
    for (let i = 0; i < 20; i++) await fetch(`${t.base}${c.path(t)}`, { method: c.method, headers, body: c.body ? JSON.stringify(c.body(n++)) : undefined });

const results: { c: Case; byTarget: Result[] }[] = [];
for (const c of cases) {
  if (only.length && !only.some((o) => c.name.includes(o))) continue;
  const samples: Sample[][] = targets.map(() => []);
  for (let s = 0; s < slices; s++) {
    // Alternate which server goes first.
    const order = s % 2 ? [...targets.keys()].reverse() : [...targets.keys()];
    for (const i of order) samples[i].push(await load(c, targets[i], seconds / slices));
  }
  results.push({ c, byTarget: samples.map(summary) });
}
let clean = true;
console.log(`\n| case | server | requests/s | p50 ms | p99 ms | errors | non-2xx | answers |`);
console.log("|---|---|---|---|---|---|---|---|");
for (const { c, byTarget } of results) {
  byTarget.forEach((r, i) => {
    clean &&= r.errors === 0 && r.non2xx === 0;
    console.log(`| ${c.name} | ${targets[i].label} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.total} |`);
  });
}
if (targets.length === 2) {
  console.log(`\n| case | requests/s ratio | p50 ratio | p99 ratio |  (this checkout / ${targets[1].label}; below 1.00 is faster for latency)`);
  console.log("|---|---|---|---|");
  for (const {
    c,
    byTarget: [a, b],
  } of results)
    console.log(`| ${c.name} | ${(a.rps / b.rps).toFixed(2)} | ${(a.p50 / b.p50).toFixed(2)} | ${(a.p99 / b.p99).toFixed(2)} |`);
}
console.log(`\n[bench] every answer 2xx: ${clean ? "yes" : "NO"}`);

for (const t of targets) await t.stop();
await db.pg.stop();
process.exit(clean ? 0 : 1);
