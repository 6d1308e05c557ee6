/**
 * `npm run bench:api`: latency and throughput of the versioned gateway API's plain CRUD, authenticated
 * with an API key (docs/benchmarks.md "API latency"). For sources and destinations: GET one, GET a list
 * (`limit=25` of BENCH_ROWS rows) and POST create (a fresh name per request), each for a fixed duration
 * at a fixed number of connections. Prints requests/s, p50/p99 latency (ms), errors and non-2xx answers.
 * Env: BENCH_SECONDS (per case, default 5), BENCH_CONNECTIONS (default 20), BENCH_ROWS (rows seeded per
 * resource, default 100), BENCH_CASES (comma-separated case names to run, default all).
 */
import os from "node:os";
import autocannon from "autocannon";
import { startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { log } from "./common";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const seedRows = Number(process.env.BENCH_ROWS ?? 100);
const only = (process.env.BENCH_CASES ?? "").split(",").filter(Boolean);
const VERSION = "2025-07-01";

buildIfNeeded(log);
const db = await startTestDatabase();
const apiKey = `hky_bench_${Date.now()}_api_latency`;
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", GATEWAY_API_KEY: apiKey, WORKER_ENABLED: "false", GATEWAY_API_RATE_LIMIT: "1000000000" });
const base = `${hookyard.url}/api/${VERSION}`;
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };

/** POSTs `body` to `path`; returns the created resource's id (throws on a non-2xx answer). */
async function create(path: string, body: unknown): Promise<string> {
  const res = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const sourceBody = (name: string) => ({ name, description: "bench source" });
const destinationBody = (name: string) => ({ name, description: "bench destination", config: { url: "https://example.com/hook" } });
const resources = [
  { path: "/sources", body: sourceBody },
  { path: "/destinations", body: destinationBody },
] as const;

// Seed rows so lists are full pages and GET one reads from a realistic table.
const ids: Record<string, string> = {};
for (const r of resources) {
  for (let i = 0; i < seedRows; i++) ids[r.path] = await create(r.path, r.body(`seed-${i}`));
}

type Case = { name: string; method: "GET" | "POST"; path: string; body?: (n: number) => unknown };
const run = Date.now().toString(36);
const cases: Case[] = resources.flatMap((r) => [
  { name: `GET ${r.path}/{id}`, method: "GET" as const, path: `${r.path}/${ids[r.path]}` },
  { name: `GET ${r.path}?limit=25`, method: "GET" as const, path: `${r.path}?limit=25` },
  { name: `POST ${r.path}`, method: "POST" as const, path: r.path, body: (n: number) => r.body(`bench-${run}-${n}`) },
]);

type Result = { rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number };

/** One autocannon run of `c` for `seconds` at `connections`; POST bodies get a fresh name per request. */
async function load(c: Case): Promise<Result> {
  let n = 0;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: `${base}${c.path}`,
        method: c.method,
        connections,
        duration: seconds,
        headers,
        requests: [c.body ? { method: c.method, setupRequest: (req) => ({ ...req, body: JSON.stringify(c.body!(n++)) }) } : { method: c.method }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, total: r["2xx"] + r.non2xx };
}

log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}; ${connections} connections, ${seconds} s per case; ${seedRows} seeded rows per resource; API ${VERSION}`);
// A short warm-up: the first requests of each route compile and fill caches.
for (const c of cases) await fetch(`${base}${c.path}`, { method: c.method, headers, body: c.body ? JSON.stringify(c.body(-1 - cases.indexOf(c))) : undefined });

console.log("\n| case | requests/s | p50 ms | p99 ms | errors | non-2xx | answers |");
console.log("|---|---|---|---|---|---|---|");
let clean = true;
for (const c of cases) {
  if (only.length && !only.some((o) => c.name.includes(o))) continue;
  const r = await load(c);
  clean &&= r.errors === 0 && r.non2xx === 0;
  console.log(`| ${c.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.total} |`);
}
console.log(`\n[bench] every answer 2xx: ${clean ? "yes" : "NO"}`);

await hookyard.stop();
await db.pg.stop();
process.exit(clean ? 0 : 1);
