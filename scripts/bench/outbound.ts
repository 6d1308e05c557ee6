/**
 * `npm run bench:outbound` (docs/benchmarks.md#outbound-npm-run-benchoutbound): the outbound service end to end on this machine (sink and load
 * generator included), webhook destinations on a local sink (scripts/bench/sink.ts, its own process).
 * 1. Publish throughput: BENCH_REQUESTS publishes at BENCH_CONNECTIONS connections, as fast as possible,
 *    against the bare-Node one-INSERT reference server measured in the same run just before (aim: ratio
 *    ≥ 1.0, zero errors): BENCH_ROUNDS rounds to a tenant whose events match no destination (the publish
 *    path alone, comparable to bench:ingest; the median ratio is reported), then once to a tenant with
 *    one webhook destination (its deliveries run meanwhile).
 * 2. Sustained fan-out: BENCH_RATE events/s for BENCH_DURATION s (autocannon overallRate), each to one
 *    webhook destination; prints publishes/s, deliveries/s during the load, publish-to-delivery latency
 *    p50/p95/p99 (sink arrival minus the event's `time`, set when publish received it); aim 1,000/s and
 *    p99 < 200 ms. Then waits for the backlog and checks every event was delivered exactly once.
 * 3. One event to 100 destinations of one tenant: time from publish to the first, median and last arrival.
 * Env: BENCH_REQUESTS (default 20000), BENCH_RATE (1000), BENCH_DURATION (60 s), BENCH_CONNECTIONS (50),
 * BENCH_FANOUT (100), BENCH_WARMUP (5000 requests to each server before phase 1, not counted), BENCH_ROUNDS (3),
 * BENCH_VALIDATION (`warn` or `enforce`: the topic's payloads are checked against a JSON Schema they pass; unset: off).
 * BENCH_MODE=steps runs open-loop steps against the reference relay instead of the phases (scripts/bench/steps.ts,
 * docs/benchmarks.md "Open-loop steps").
 * `--type <type>` benchmarks one broker or cloud destination type's delivery alone against its local server
 * instead (scripts/bench/destination-type.ts, docs/benchmarks.md "Destination types").
 */
import { spawn } from "node:child_process";
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { apiCall, jsonOfSize, log, percentile, startSink, testPostmaster, usageByPart } from "./common";
import { stepMode } from "./steps";

const typeFlag = process.argv.indexOf("--type");
if (typeFlag > 0) {
  const { benchDestinationType } = await import("./destination-type");
  await benchDestinationType(process.argv[typeFlag + 1] ?? "");
  process.exit(0);
}
const requests = Number(process.env.BENCH_REQUESTS ?? 20_000);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const duration = Number(process.env.BENCH_DURATION ?? 60);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const fanout = Number(process.env.BENCH_FANOUT ?? 100);
const warmup = Number(process.env.BENCH_WARMUP ?? 5000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const data = { id: "in_1", amount: 4200, customer: "cus_1", pad: "x".repeat(900) };
const publishBody = (tenant: string) => JSON.stringify({ tenant_id: tenant, topic: "invoice.paid", metadata: { source: "bench" }, data });
const sink = await startSink();
const sinkProcess = sink.process;
const sinkUrl = sink.url;
const ask = sink.ask;
/** event id → arrival times (ms), as the sink saw them. */
async function arrivalsNow(): Promise<Map<string, number[]>> {
  const { arrivals } = await ask<{ arrivals: [string, string, number[]][] }>("stats");
  return new Map(arrivals.map(([id, , at]) => [id, at]));
}
const arrivalCount = async () => [...(await arrivalsNow()).values()].reduce((n, at) => n + at.length, 0);

buildIfNeeded(log);
const db = await startTestDatabase();
const apiKey = `hko_bench_${Date.now()}_key`;
const hookyard = await startServer({
  DATABASE_URL: db.url,
  LOG_LEVEL: "warn",
  OUTBOUND_API_KEY: apiKey,
  MAX_DESTINATIONS_PER_TENANT: String(Math.max(20, fanout)),
});
const base = `${hookyard.url}/outbound/api/v1`;
const auth = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
const api = (method: string, path: string, body?: unknown) => apiCall<{ id: string }>(method, `${base}/${path}`, apiKey, body);
async function tenantWith(tenant: string, destinations: number): Promise<void> {
  await api("PUT", `tenants/${tenant}`, {});
  for (let i = 0; i < destinations; i++)
    await api("POST", `tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: `${sinkUrl}/${tenant}/${i}` } });
}
// BENCH_VALIDATION=warn|enforce: the topic gets a JSON Schema its payloads pass, checked in that mode (docs/outbound.md "Event catalog").
const validation = process.env.BENCH_VALIDATION;
if (validation === "warn" || validation === "enforce") {
  const schema = {
    type: "object",
    required: ["id", "amount", "customer"],
    properties: { id: { type: "string" }, amount: { type: "integer", minimum: 0 }, customer: { type: "string" }, pad: { type: "string" } },
  };
  await api("PUT", "catalog/invoice.paid", { schema, validation });
  // The publish path reads the catalog again within 2 s.
  await new Promise((r) => setTimeout(r, 2_500));
  log(`publish validation: ${validation}`);
}
if (process.env.BENCH_MODE === "steps") {
  await tenantWith("open", 0);
  await api("POST", "tenants/open/destinations", { type: "webhook", topics: "*", config: { url: `${sinkUrl}/open/hookyard` } });
  const bodyOf = (id: string) =>
    jsonOfSize((pad) => ({ tenant_id: "open", topic: "invoice.paid", metadata: { source: "bench" }, data: { bench_id: id, ...data, pad } }));
  await stepMode(
    { title: "outbound: publish → 1 webhook destination → sink", sink, databaseUrl: db.url, hookyard: { url: `${base}/publish`, headers: auth }, body: bodyOf },
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
await tenantWith("bench0", 0);
await tenantWith("bench1", 1);
await tenantWith("bench2", 1);
await tenantWith("fanout", fanout);

const client = new pg.Client({ connectionString: db.url });
await client.connect();
const eventsOf = async (tenant: string) =>
  Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM outbound_events WHERE tenant_id = $1", [tenant])).rows[0].n);

/**
 * CPU time (ms) used so far by this run's processes, by part: the hookyard web, worker and supervisor
 * processes, PostgreSQL (the embedded server's processes), the reference, the sink, and this process
 * (autocannon). From /proc (Linux; empty elsewhere). Other processes on the machine are not counted.
 */
function cpuByPart(): Map<string, number> {
  const roots = new Map<number, string>([
    [testPostmaster(), "postgres"],
    [hookyard.process.pid ?? -1, "hookyard"],
    [reference.pid ?? -1, "reference"],
    [sinkProcess.pid ?? -1, "sink"],
    [process.pid, "autocannon"],
  ]);
  return new Map([...usageByPart(roots)].map(([part, u]) => [part, u.cpuMs]));
}
/** µs of CPU per request of each part between two cpuByPart() readings. */
const cpuPerRequest = (before: Map<string, number>, after: Map<string, number>, requests: number) =>
  [...after]
    .filter(([, ms]) => ms > 0)
    .map(([part, ms]) => `${part} ${Math.round(((ms - (before.get(part) ?? 0)) * 1000) / requests)}`)
    .join(", ");

type Run = { rps: number; p50: number; p99: number; errors: number; ok: number; cpu: string };
async function load(url: string, body: string, opts: Partial<autocannon.Options>): Promise<Run> {
  const cpuBefore = cpuByPart();
  const started = performance.now();
  let last = started;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, method: "POST", headers: auth, body, ...opts }, (err: Error | null, result) => (err ? reject(err) : resolve(result)));
    instance.on("response", () => (last = performance.now()));
  });
  const answered = r["2xx"] + r.non2xx;
  return {
    rps: answered / ((last - started) / 1000),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    ok: r["2xx"],
    cpu: cpuPerRequest(cpuBefore, cpuByPart(), Math.max(1, answered)),
  };
}
async function drain(expected: number, timeoutMs = 180_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if ((await arrivalCount()) >= expected) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}; ~1 KiB publish bodies; webhook destinations on a local sink`);

// 1. Publish throughput against the reference, in BENCH_ROUNDS rounds of the reference then the publish
// path alone, each round's ratio from its own pair (the shared machine's load moves within a minute), the
// median reported. Both servers are warmed up first (JIT, prepared statements, connections), as
// bench:ingest's runs of 50,000 requests are: a cold first run measured 2,500/s where the same server
// then did 6,600/s.
await load(`http://127.0.0.1:${refPort}/`, publishBody("bench1"), { connections, amount: warmup });
await load(`${base}/publish`, publishBody("bench0"), { connections, amount: warmup });
const pairs: { ref: Run; alone: Run }[] = [];
for (let round = 0; round < rounds; round++) {
  const ref = await load(`http://127.0.0.1:${refPort}/`, publishBody("bench1"), { connections, amount: requests });
  pairs.push({ ref, alone: await load(`${base}/publish`, publishBody("bench0"), { connections, amount: requests }) });
}
const refLast = await load(`http://127.0.0.1:${refPort}/`, publishBody("bench1"), { connections, amount: requests });
const pub = await load(`${base}/publish`, publishBody("bench1"), { connections, amount: requests });
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const aloneRatio = median(pairs.map((p) => p.alone.rps / p.ref.rps));
const aloneErrors = pairs.reduce((n, p) => n + p.alone.errors, 0);
console.log(`\n| phase 1: ${requests} publishes, ${connections} connections | requests/s | p50 ms | p99 ms | errors | ratio |`);
console.log("|---|---|---|---|---|---|");
pairs.forEach((p, n) => {
  console.log(`| round ${n + 1}: reference (bare Node, 1 INSERT/request) | ${Math.round(p.ref.rps)} | ${p.ref.p50} | ${p.ref.p99} | ${p.ref.errors} | |`);
  console.log(
    `| round ${n + 1}: hookyard publish, no matching destination | ${Math.round(p.alone.rps)} | ${p.alone.p50} | ${p.alone.p99} | ${p.alone.errors} | ${(p.alone.rps / p.ref.rps).toFixed(2)} |`,
  );
});
console.log(`| reference | ${Math.round(refLast.rps)} | ${refLast.p50} | ${refLast.p99} | ${refLast.errors} | |`);
console.log(
  `| hookyard publish, 1 webhook destination (deliveries meanwhile) | ${Math.round(pub.rps)} | ${pub.p50} | ${pub.p99} | ${pub.errors} | ${(pub.rps / refLast.rps).toFixed(2)} |`,
);
console.log(
  `ratio to the reference: no destination ${aloneRatio.toFixed(2)} (median of ${rounds} rounds), 1 destination ${(pub.rps / refLast.rps).toFixed(2)}`,
);
log(`CPU µs per request by process, reference: ${pairs.map((p) => p.ref.cpu).join(" | ")}`);
log(`CPU µs per request by process, publish with no destination: ${pairs.map((p) => p.alone.cpu).join(" | ")}`);
log(`CPU µs per request by process, publish with 1 destination: ${pub.cpu}\n`);
const phase1Events = await eventsOf("bench1");
const drainStart = Date.now();
const drained1 = await drain(phase1Events);
log(`phase 1 backlog of ${phase1Events} deliveries drained in ${Date.now() - drainStart} ms: ${drained1 ? "yes" : "NO"}`);

// 2. Sustained rate, one webhook destination per event.
const before = new Set((await arrivalsNow()).keys());
const startedAt = Date.now();
const sustained = await load(`${base}/publish`, publishBody("bench2"), { connections: Math.min(connections, 20), overallRate: rate, duration });
const loadEnded = Date.now();
await new Promise((r) => setTimeout(r, 1000));
const phase2Events = await eventsOf("bench2");
const drained2 = await drain(phase1Events + phase2Events);
const arrivals = await arrivalsNow();
const fresh = [...arrivals.keys()].filter((id) => !before.has(id));
const deliveredDuringLoad = fresh.filter((id) => arrivals.get(id)![0] <= loadEnded).length;
const { rows } = await client.query<{ id: string; time: Date }>("SELECT id, time FROM outbound_events WHERE tenant_id = 'bench2'");
const publishedAt = new Map(rows.map((r) => [r.id, r.time.getTime()]));
const latencies = fresh
  .filter((id) => publishedAt.has(id))
  .map((id) => arrivals.get(id)![0] - publishedAt.get(id)!)
  .sort((a, b) => a - b);
const duplicates = fresh.reduce((n, id) => n + arrivals.get(id)!.length - 1, 0);
const missing = rows.filter((r) => !arrivals.has(r.id)).length;
const { rows: attemptStats } = await client.query<{ n: string; failed: string }>(
  "SELECT count(*) AS n, count(*) FILTER (WHERE status <> 'success') AS failed FROM outbound_attempts WHERE tenant_id = 'bench2'",
);
console.log(`\n| phase 2: ${rate} events/s for ${duration} s, 1 webhook destination each | value |`);
console.log("|---|---|");
console.log(`| publishes/s | ${Math.round(sustained.rps)} (p50 ${sustained.p50} ms, p99 ${sustained.p99} ms, errors ${sustained.errors}) |`);
console.log(`| deliveries/s during the load | ${Math.round(deliveredDuringLoad / ((loadEnded - startedAt) / 1000))} |`);
console.log(`| publish-to-delivery p50 / p95 / p99 ms | ${percentile(latencies, 50)} / ${percentile(latencies, 95)} / ${percentile(latencies, 99)} |`);
const byWindow = new Map<number, number[]>();
for (const id of fresh) {
  const t = publishedAt.get(id);
  if (t === undefined) continue;
  const w = Math.floor((t - startedAt) / 10_000);
  byWindow.set(w, [...(byWindow.get(w) ?? []), arrivals.get(id)![0] - t]);
}
log(
  `phase 2 publish-to-delivery p99 by 10 s window, ms: ${[...byWindow]
    .filter(([w]) => w * 10 < duration)
    .sort((a, b) => a[0] - b[0])
    .map(([, v]) =>
      percentile(
        v.sort((a, b) => a - b),
        99,
      ),
    )
    .join(", ")}`,
);
// autocannon stops at the deadline with publishes in flight: the server commits those after it, so stored ≥ answered.
const exactlyOnce = drained2 && missing === 0 && duplicates === 0 && rows.length >= sustained.ok && fresh.length === rows.length;
console.log(
  `[bench] phase 2: published ${sustained.ok} (stored ${rows.length}), delivered ${fresh.length}, missing ${missing}, duplicates ${duplicates}, attempts ${attemptStats[0].n} (failed ${attemptStats[0].failed}), drained: ${drained2 ? "yes" : "NO"}`,
);
console.log(`[bench] every event delivered exactly once: ${exactlyOnce ? "yes" : "NO"}`);

// 3. One event to `fanout` destinations.
const sent = Date.now();
const one = (await (await fetch(`${base}/publish`, { method: "POST", headers: auth, body: publishBody("fanout") })).json()) as {
  id: string;
  destination_ids: string[];
};
const answered = Date.now() - sent;
const end = Date.now() + 60_000;
while (Date.now() < end && ((await arrivalsNow()).get(one.id)?.length ?? 0) < fanout) await new Promise((r) => setTimeout(r, 20));
const fan = ((await arrivalsNow()).get(one.id) ?? []).map((t) => t - sent).sort((a, b) => a - b);
console.log(`\n| phase 3: one event to ${fanout} destinations | value |`);
console.log("|---|---|");
console.log(`| matched destinations / deliveries arrived | ${one.destination_ids.length} / ${fan.length} |`);
console.log(`| publish answered after, ms | ${answered} |`);
console.log(`| first / median / last delivery after publish, ms | ${fan[0]} / ${percentile(fan, 50)} / ${fan.at(-1)} |`);

await client.end();
reference.kill("SIGTERM");
await hookyard.stop();
await db.pg.stop();
sinkProcess.kill();
process.exit(exactlyOnce && fan.length === fanout && pub.errors === 0 && aloneErrors === 0 ? 0 : 1);
