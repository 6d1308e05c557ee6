/**
 * `npm run soak` (docs/benchmarks.md "Soak"): a long, bounded run of steady mixed load on one Hookyard
 * server (web, worker, supervisor) over the embedded PostgreSQL, to show that nothing grows, slows or is lost.
 * Open loop (scripts/bench/open-loop.ts): SOAK_GATEWAY_RATE (400) requests/s to a gateway source with one
 * connection (retry rule: linear, 1 s, 5 times) and SOAK_OUTBOUND_RATE (100) publishes/s to a tenant with one
 * webhook destination (OUTBOUND_RETRY_SCHEDULE of 1 s), both delivering to the sink (scripts/bench/sink.ts),
 * which fails the first delivery of every SOAK_FAIL_EVERY-th (20th: 5 %) send once, so those are retried.
 * The load runs in one-minute chunks (sends keep their clock across chunks), after SOAK_WARMUP_SECONDS (15)
 * not counted. Each minute's row is printed once its deliveries had a minute to arrive: sent, accepted
 * (2xx), delivered, p50 / p99 of first successful sink arrival − scheduled send time, and each part's memory
 * (the peak of samples every 5 s: RSS of the web, worker and supervisor processes, proportional set size
 * of all PostgreSQL processes, RSS of the sink; and the V8 heap in use of the web and worker processes, read from
 * their METRICS_PORT listeners, to tell a JavaScript leak from memory beside the heap), and how much of the minute the web and worker processes' main
 * threads spent waiting for a CPU while runnable (/proc/<pid>/schedstat; a shared machine's load shows there), and what the
 * database was doing (autovacuum's tables, checkpoints, the wait events of active client backends). At the end the backlog drains (SOAK_DRAIN_SECONDS, 120).
 * Verdict (exit 1 when missed): every Hookyard part's memory in the last minute < 1.1 × its memory in minute 6 (after
 * the first 5 minutes; minute 2 for runs of 6 minutes or less); each lane's worst minute p99 < 2 × its
 * median minute p99; no send answered non-2xx or not at all; every accepted send delivered.
 * Env: SOAK_MINUTES (30), SOAK_GATEWAY_RATE, SOAK_OUTBOUND_RATE, SOAK_FAIL_EVERY, SOAK_WARMUP_SECONDS, SOAK_DRAIN_SECONDS.
 */
import pg from "pg";
import { freePort, startServer, startTestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { apiCall, gatewayConnection, jsonOfSize, loadAverage, log, machineLine, percentile, startSink, testPostmaster, usageByPart } from "./common";
import { openLoop, type OpenLoopRun } from "./open-loop";

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const rates = { gateway: Number(process.env.SOAK_GATEWAY_RATE ?? 400), outbound: Number(process.env.SOAK_OUTBOUND_RATE ?? 100) };
const failEvery = Number(process.env.SOAK_FAIL_EVERY ?? 20);
const warmupSeconds = Number(process.env.SOAK_WARMUP_SECONDS ?? 15);
const drainSeconds = Number(process.env.SOAK_DRAIN_SECONDS ?? 120);
/** The aims (docs/benchmarks.md "Soak"). */
const AIM_MEMORY_GROWTH = 0.1;
const AIM_P99_RATIO = 2;
const PARTS = ["web", "worker", "supervisor", "postgres", "sink"] as const;
type Lane = keyof typeof rates;
const LANES: Lane[] = ["gateway", "outbound"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isOk = (status: number) => status >= 200 && status < 300;
const mib = (bytes: number) => (Number.isFinite(bytes) ? Math.round(bytes / 2 ** 20) : "—");

buildIfNeeded(log);
log(machineLine());
const sink = await startSink();
const db = await startTestDatabase();
const gatewayKey = `hky_soak_${Date.now()}`;
const outboundKey = `hko_soak_${Date.now()}_key`;
// The web process's metrics listener; the worker's is the next port (docs/operations.md).
const metricsPort = await freePort();
const hookyard = await startServer({
  DATABASE_URL: db.url,
  METRICS_PORT: String(metricsPort),
  LOG_LEVEL: "warn",
  GATEWAY_API_KEY: gatewayKey,
  OUTBOUND_API_KEY: outboundKey,
  OUTBOUND_RETRY_SCHEDULE: "1,1,1,1,1",
});
const source = await gatewayConnection(hookyard.url, gatewayKey, {
  source: "soak",
  destination: "soak-sink",
  url: `${sink.url}/open/gateway?fail=${failEvery}`,
  rules: [{ type: "retry", strategy: "linear", count: 5, interval: 1000 }],
});
const outbound = `${hookyard.url}/outbound/api/v1`;
await apiCall("PUT", `${outbound}/tenants/soak`, outboundKey, {});
await apiCall("POST", `${outbound}/tenants/soak/destinations`, outboundKey, {
  type: "webhook",
  topics: "*",
  config: { url: `${sink.url}/open/outbound?fail=${failEvery}` },
});
const targets: Record<Lane, { url: string; headers?: Record<string, string>; body: (id: string) => string }> = {
  gateway: {
    url: source.url,
    body: (id) => jsonOfSize((pad) => ({ type: "invoice.paid", bench_id: id, data: { id: "in_1", amount: 4200, pad } })),
  },
  outbound: {
    url: `${outbound}/publish`,
    headers: { authorization: `Bearer ${outboundKey}` },
    body: (id) => jsonOfSize((pad) => ({ tenant_id: "soak", topic: "invoice.paid", data: { bench_id: id, id: "in_1", amount: 4200, pad } })),
  },
};
/** Runs `lane` for `seconds` at its rate; sends carry `bench_id` `<tag>:<seq>`. */
const chunk = (lane: Lane, tag: string, seconds: number) =>
  openLoop({
    url: targets[lane].url,
    headers: targets[lane].headers,
    rate: rates[lane],
    seconds,
    sockets: 64,
    body: (seq) => targets[lane].body(`${tag}:${seq}`),
  });

// Memory of each part, sampled every 5 s from the start of minute 1.
const roots = new Map<number, string>([
  [testPostmaster(), "postgres"],
  [hookyard.process.pid ?? -1, "hookyard"],
  [sink.process.pid ?? -1, "sink"],
]);
const samples: { at: number; rss: Map<string, number>; sched: Map<string, { runMs: number; waitMs: number }> }[] = [];
/**
 * V8 heap in use, V8 heap committed (and of it the new and old spaces) and memory outside the heap held by
 * JavaScript objects (Buffers), bytes, of the web and worker processes, from their /metrics, sampled with the
 * memory: keys `<part>`, `<part>:committed`, `<part>:new`, `<part>:old`, `<part>:external`.
 */
const heaps: { at: number; heap: Map<string, number> }[] = [];
const HEAP_PARTS = { web: metricsPort, worker: metricsPort + 1 } as const;
const sample = () => {
  const usage = usageByPart(roots);
  const at = Date.now();
  void sampleDatabase(at);
  samples.push({ at, rss: new Map([...usage].map(([part, u]) => [part, u.rss])), sched: new Map([...usage]) });
  void Promise.all(
    Object.entries(HEAP_PARTS).map(async ([part, port]) => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(4000) })
        .then((r) => r.text())
        .catch(() => "");
      const read = (name: string) => Number(new RegExp(`^hookyard_nodejs_${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
      const space = (name: string) => read(`heap_space_size_total_bytes\\{space="${name}"\\}`);
      return [
        [part, read("heap_size_used_bytes")],
        [`${part}:committed`, read("heap_size_total_bytes")],
        [`${part}:new`, space("new")],
        [`${part}:old`, space("old")],
        [`${part}:external`, read("external_memory_bytes")],
      ] as const;
    }),
  ).then((parts) => heaps.push({ at, heap: new Map(parts.flat().filter(([, v]) => Number.isFinite(v))) }));
};
/**
 * What the database was doing, sampled with the memory from one connection of its own: the tables that
 * autovacuum workers were processing, the wait events of client backends that were active, and the
 * checkpointer's counters (to tell a stall of the database from one of Hookyard).
 */
const dbSamples: { at: number; autovacuum: string[]; waits: string[]; checkpoints: { count: number; writeMs: number; syncMs: number } | null }[] = [];
const dbWatch = new pg.Client({ connectionString: db.url, application_name: "soak-watch" });
await dbWatch.connect();
const checkpointerSql =
  (await dbWatch.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v")).rows[0].v >= 170000
    ? "SELECT num_timed + num_requested AS count, write_time AS write_ms, sync_time AS sync_ms FROM pg_stat_checkpointer"
    : "SELECT checkpoints_timed + checkpoints_req AS count, checkpoint_write_time AS write_ms, checkpoint_sync_time AS sync_ms FROM pg_stat_bgwriter";
const sampleDatabase = async (at: number) => {
  try {
    const { rows } = await dbWatch.query<{ backend_type: string; state: string | null; wait: string | null; query: string }>(
      "SELECT backend_type, state, wait_event_type || ':' || wait_event AS wait, left(query, 120) AS query FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
    );
    const cp = (await dbWatch.query<{ count: string; write_ms: number; sync_ms: number }>(checkpointerSql)).rows[0];
    dbSamples.push({
      at,
      autovacuum: rows.filter((r) => r.backend_type === "autovacuum worker").map((r) => r.query.replace(/^autovacuum: /, "").replace(/public\./, "")),
      // An active backend without a wait event is on a CPU (or waiting for one).
      waits: rows.filter((r) => r.backend_type === "client backend" && r.state === "active").map((r) => r.wait ?? "CPU"),
      checkpoints: { count: Number(cp.count), writeMs: Number(cp.write_ms), syncMs: Number(cp.sync_ms) },
    });
  } catch {
    dbSamples.push({ at, autovacuum: [], waits: [], checkpoints: null });
  }
};
/** Minute `m`'s database activity in words: autovacuum's tables, checkpoints finished and their times, client waits. */
function databaseOf(m: number): string {
  const inMinute = dbSamples.filter((s) => s.at >= t0 + m * 60_000 && s.at < t0 + (m + 1) * 60_000);
  const before = dbSamples.filter((s) => s.at < t0 + m * 60_000 && s.checkpoints).at(-1)?.checkpoints;
  const after = inMinute.filter((s) => s.checkpoints).at(-1)?.checkpoints;
  const tally = (items: string[]) => {
    const n = new Map<string, number>();
    for (const i of items) n.set(i, (n.get(i) ?? 0) + 1);
    return [...n].sort((a, b) => b[1] - a[1]);
  };
  const parts: string[] = [];
  const vacuums = tally(inMinute.flatMap((s) => s.autovacuum));
  if (vacuums.length) parts.push(`autovacuum ${vacuums.map(([t, n]) => `${t} ×${n}`).join(", ")}`);
  if (before && after && after.count > before.count)
    parts.push(
      `checkpoints ${after.count - before.count} (write ${((after.writeMs - before.writeMs) / 1000).toFixed(1)} s, sync ${((after.syncMs - before.syncMs) / 1000).toFixed(1)} s)`,
    );
  const waits = tally(inMinute.flatMap((s) => s.waits)).slice(0, 3);
  if (waits.length) parts.push(`waits ${waits.map(([w, n]) => `${w} ${n}`).join(", ")}`);
  return parts.join("; ") || "—";
}
/** Peak V8 heap in use (bytes; or `of` committed, its new or old space, or external) of `part` in minute `m` (0-based), or NaN when its /metrics did not answer. */
function heapOf(part: keyof typeof HEAP_PARTS, m: number, of: "" | ":committed" | ":new" | ":old" | ":external" = ""): number {
  const key = `${part}${of}`;
  const inMinute = heaps.filter((s) => s.at >= t0 + m * 60_000 && s.at < t0 + (m + 1) * 60_000 && s.heap.has(key)).map((s) => s.heap.get(key)!);
  return inMinute.length ? Math.max(...inMinute) : NaN;
}
/**
 * Share of minute `m` that `part`'s main threads spent runnable but waiting for a CPU, of the time they were
 * runnable (on a CPU or waiting), as "NN %": high means the machine's other load, not Hookyard, set the pace.
 */
function cpuWaitOf(part: string, m: number): string {
  const inMinute = samples.filter((s) => s.at >= t0 + m * 60_000 && s.at < t0 + (m + 1) * 60_000 && s.sched.has(part));
  if (inMinute.length < 2) return "—";
  const a = inMinute[0].sched.get(part)!;
  const b = inMinute[inMinute.length - 1].sched.get(part)!;
  const wait = b.waitMs - a.waitMs;
  const run = b.runMs - a.runMs;
  return run + wait > 0 ? `${Math.round((100 * wait) / (run + wait))} %` : "—";
}
/** Peak memory (bytes) of `part` over the samples of minute `m` (0-based): the top of the garbage collector's sawtooth. */
function memoryOf(part: string, m: number): number {
  const inMinute = samples.filter((s) => s.at >= t0 + m * 60_000 && s.at < t0 + (m + 1) * 60_000).map((s) => s.rss.get(part) ?? 0);
  return Math.max(0, ...inMinute);
}

/** What one lane's minute gave: sends, accepted, and the sink's successful arrivals per seq (merged over takes). */
type LaneMinute = { run: OpenLoopRun; arrivals: Map<number, number[]>; failed: number };
/** Takes the sink's arrivals of `lane` minute `m` so far and merges them into `into`. */
async function collect(lane: Lane, m: number, into: LaneMinute): Promise<void> {
  const { seqs, failed } = await sink.take(`${lane}/m${m}`);
  into.failed += failed;
  for (const [seq, at] of seqs) into.arrivals.set(seq, [...(into.arrivals.get(seq) ?? []), ...at]);
}
/** The figures of a lane's minute: delivered (accepted sends with an arrival), undelivered, latency p50 / p99 (ms), duplicates. */
function figures(x: LaneMinute) {
  const latencies: number[] = [];
  let accepted = 0,
    undelivered = 0,
    duplicates = 0;
  for (let seq = 0; seq < x.run.status.length; seq++) {
    if (!isOk(x.run.status[seq])) continue;
    accepted++;
    const at = x.arrivals.get(seq);
    if (!at) undelivered++;
    else {
      latencies.push(Math.min(...at) - x.run.scheduled[seq]);
      duplicates += at.length - 1;
    }
  }
  latencies.sort((a, b) => a - b);
  const sent = x.run.sent.filter((t) => !Number.isNaN(t)).length;
  return {
    sent,
    accepted,
    errors: x.run.errors,
    delivered: accepted - undelivered,
    undelivered,
    duplicates,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

log(
  `soak: ${minutes} min, gateway ${rates.gateway}/s and outbound ${rates.outbound}/s open loop, every ${failEvery}th delivery failed once; ${warmupSeconds} s warm-up first`,
);
if (warmupSeconds > 0) await Promise.all(LANES.map((lane) => chunk(lane, "w", warmupSeconds)));
const t0 = Date.now();
sample();
const sampler = setInterval(sample, 5000);
const results: Record<Lane, LaneMinute>[] = [];
const pending: Promise<void>[] = [];
const header = `| minute | load avg | ${LANES.map((l) => `${l} sent | ${l} 2xx | ${l} delivered | ${l} p50 / p99 ms | ${l} failed once`).join(" | ")} | ${PARTS.map((p) => `${p} MiB`).join(" | ")} | web / worker V8 heap MiB | web V8 committed (new / old space) / external MiB | web / worker waiting for a CPU | database (autovacuum, checkpoints, client waits: samples) |`;
console.log(`\n${header}\n|${"---|".repeat(header.split("|").length - 2)}`);
const row = (m: number) => {
  const cells = LANES.map((lane) => {
    const f = figures(results[m][lane]);
    return `${f.sent} | ${f.accepted} | ${f.delivered} | ${Math.round(f.p50)} / ${Math.round(f.p99)} | ${results[m][lane].failed}`;
  });
  return `| ${m + 1} | ${loads[m]} | ${cells.join(" | ")} | ${PARTS.map((p) => mib(memoryOf(p, m))).join(" | ")} | ${mib(heapOf("web", m))} / ${mib(heapOf("worker", m))} | ${mib(heapOf("web", m, ":committed"))} (${mib(heapOf("web", m, ":new"))} / ${mib(heapOf("web", m, ":old"))}) / ${mib(heapOf("web", m, ":external"))} | ${cpuWaitOf("web", m)} / ${cpuWaitOf("worker", m)} | ${databaseOf(m)} |`;
};
const loads: string[] = [];
for (let m = 0; m < minutes; m++) {
  loads[m] = loadAverage();
  // Each lane's minute runs on its own; the next minute starts on the clock, whatever this one's answers.
  const runs = LANES.map((lane) => chunk(lane, `m${m}`, 60));
  pending.push(
    Promise.all(runs).then(([gateway, outbound]) => {
      results[m] = { gateway: { run: gateway, arrivals: new Map(), failed: 0 }, outbound: { run: outbound, arrivals: new Map(), failed: 0 } };
    }),
  );
  await sleep(Math.max(0, t0 + (m + 1) * 60_000 - Date.now()));
  // The minute before last has had a full minute to deliver: print its row.
  if (m >= 1) {
    await pending[m - 1];
    for (const lane of LANES) await collect(lane, m - 1, results[m - 1][lane]);
    console.log(row(m - 1));
  }
}
await Promise.all(pending);
// Drain: wait until every lane's accepted sends of the last minute arrived (or the bound passes), then take everything left.
const deadline = Date.now() + drainSeconds * 1000;
const allArrived = async () => {
  for (const lane of LANES) await collect(lane, minutes - 1, results[minutes - 1][lane]);
  return LANES.every((lane) => figures(results[minutes - 1][lane]).undelivered === 0);
};
while (!(await allArrived()) && Date.now() < deadline) await sleep(1000);
clearInterval(sampler);
for (let m = 0; m < minutes - 1; m++) for (const lane of LANES) await collect(lane, m, results[m][lane]);
console.log(row(minutes - 1));

// Verdict.
const baseline = minutes > 6 ? 5 : Math.min(1, minutes - 1);
const misses: string[] = [];
// The sink is the bench's, not Hookyard's: shown, not judged.
const growth = PARTS.filter((p) => p !== "sink").map((p) => {
  const g = memoryOf(p, minutes - 1) / memoryOf(p, baseline) - 1;
  if (!(g < AIM_MEMORY_GROWTH)) misses.push(`${p} memory grew ${(g * 100).toFixed(1)} %`);
  return `${p} ${(g * 100).toFixed(1)} %`;
});
const totals = LANES.map((lane) => {
  const all = results.map((r) => figures(r[lane]));
  const sum = (k: "sent" | "accepted" | "errors" | "delivered" | "undelivered" | "duplicates") => all.reduce((n, f) => n + f[k], 0);
  const p99s = all.map((f) => f.p99).sort((a, b) => a - b);
  const worst = p99s[p99s.length - 1];
  const median = percentile(p99s, 50);
  if (!(worst < AIM_P99_RATIO * median))
    misses.push(`${lane}: worst minute p99 ${Math.round(worst)} ms ≥ ${AIM_P99_RATIO} × median minute p99 ${Math.round(median)} ms`);
  if (sum("errors") > 0) misses.push(`${lane}: ${sum("errors")} sends answered non-2xx or not at all`);
  if (sum("undelivered") > 0) misses.push(`${lane}: ${sum("undelivered")} accepted sends not delivered within the drain bound`);
  return `${lane}: sent ${sum("sent")}, accepted ${sum("accepted")}, errors ${sum("errors")}, delivered ${sum("delivered")}, lost ${sum("undelivered")}, duplicates ${sum("duplicates")}; minute p99 median ${Math.round(median)} ms, worst ${Math.round(worst)} ms`;
});
for (const t of totals) log(t);
log(`memory growth, last minute against minute ${baseline + 1}: ${growth.join(", ")}`);
// Shown, not judged: whether a process's growth is its JavaScript heap (a leak would be) or memory beside it.
const heapGrowth = (Object.keys(HEAP_PARTS) as (keyof typeof HEAP_PARTS)[]).map(
  (p) => `${p} ${((heapOf(p, minutes - 1) / heapOf(p, baseline) - 1) * 100).toFixed(1)} %`,
);
log(`V8 heap in use, last minute against minute ${baseline + 1}: ${heapGrowth.join(", ")}`);
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const stored = (await client.query<{ n: string }>("SELECT count(*) AS n FROM requests")).rows[0].n;
const { rows: unfinished } = await client.query<{ status: string; n: string }>(
  "SELECT status, count(*) AS n FROM events WHERE status <> 'SUCCESSFUL' GROUP BY status ORDER BY status",
);
log(
  `database: ${stored} requests stored; gateway events not SUCCESSFUL: ${unfinished.map((r) => `${r.status} ${r.n}`).join(", ") || "none"}; load average at the end ${loadAverage()}`,
);
await client.end();
await dbWatch.end();
console.log(`\n[soak] verdict: ${misses.length ? `aims NOT met: ${misses.join("; ")}` : "every aim met, nothing lost"}`);

await hookyard.stop();
await db.pg.stop();
sink.process.kill();
process.exit(misses.length ? 1 : 0);
