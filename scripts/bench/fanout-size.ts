/**
 * Two modes of `npm run bench:pipeline` (docs/benchmarks.md "Fan-out and size"), open loop
 * (scripts/bench/open-loop.ts), delivering to the sink (scripts/bench/sink.ts):
 * - `fanout`: one source with BENCH_FANOUT (100) connections, each to its own HTTP destination; BENCH_FANOUT_REQUESTS
 *   (30) requests at BENCH_FANOUT_RATE (1) per second. Each delivery's latency is its sink arrival − its request's
 *   `ingested_at`; aim: p99 over all deliveries < 300 ms, every delivery made.
 * - `size`: one source with one connection; 1 MiB JSON bodies at BENCH_SIZE_RATE (50) per second for
 *   BENCH_SIZE_SECONDS (60). Memory is sampled every second (RSS of each process; PostgreSQL also as the sum of
 *   its processes' proportional set sizes); aim: every process under 1 GiB at every sample, every accepted request
 *   delivered, no errors.
 * Both print their figures, the machine and its load average, and resolve true when their aims are met.
 */
import pg from "pg";
import { gatewayConnection, jsonOfSize, loadAverage, log, machineLine, percentile, type Sink, testPostmaster, usageByPart } from "./common";
import { openLoop } from "./open-loop";

/** What a mode needs of the bench's running parts. */
export type ModeContext = { hookyard: { url: string; process: { pid?: number } }; apiKey: string; sink: Sink; databaseUrl: string };

const AIM_FANOUT_P99_MS = 300;
const AIM_MAX_RSS = 2 ** 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isOk = (status: number) => status >= 200 && status < 300;
const fmt = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : "∞");

/** Waits until the sink holds `expected` arrivals under `key` (counted by `count`), at most `seconds`; true if it did. */
async function waitFor(count: () => Promise<number>, expected: number, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if ((await count()) >= expected) return true;
    await sleep(250);
  }
  return false;
}

/** The fan-out mode (module doc). */
export async function fanout(c: ModeContext): Promise<boolean> {
  const width = Number(process.env.BENCH_FANOUT ?? 100);
  const requests = Number(process.env.BENCH_FANOUT_REQUESTS ?? 30);
  const rate = Number(process.env.BENCH_FANOUT_RATE ?? 1);
  let source = { url: "", id: "" };
  for (let i = 0; i < width; i++)
    source = await gatewayConnection(c.hookyard.url, c.apiKey, { source: "fan", destination: `fan-${i}`, url: `${c.sink.url}/open/fan?d=${i}` });
  const body = (id: string) => jsonOfSize((pad) => ({ type: "invoice.paid", bench_id: id, data: { id: "in_1", amount: 4200, pad } }));
  log(`fan-out: ${machineLine()}`);
  log(`one source, ${width} connections; ${requests} requests at ${rate}/s after 3 not counted`);
  await openLoop({ url: source.url, rate: 1, seconds: 3, body: (seq) => body(`w:${seq}`) });
  const run = await openLoop({ url: source.url, rate, seconds: requests / rate, body: (seq) => body(`f:${seq}`) });
  const accepted = run.ok;
  const all = async () => [...(await c.sink.openArrivals("fan/f")).values()].reduce((n, at) => n + at.length, 0);
  const drained = await waitFor(all, accepted * width, 60);
  const arrivals = await c.sink.openArrivals("fan/f");
  // Each request's ingested_at, by its bench_id.
  const client = new pg.Client({ connectionString: c.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ ingested_at: Date; body: string }>(
    "SELECT r.ingested_at, convert_from(d.body, 'UTF8') AS body FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.source_id = $1",
    [source.id],
  );
  await client.end();
  const ingestedAt = new Map<number, number>();
  for (const r of rows) {
    const m = /"bench_id":"f:(\d+)"/.exec(r.body);
    if (m) ingestedAt.set(Number(m[1]), r.ingested_at.getTime());
  }
  const latencies: number[] = [];
  const lasts: number[] = [];
  /** Per request in send order: its first and last delivery, ms after its ingested_at. */
  const spans: string[] = [];
  let missing = 0;
  for (let seq = 0; seq < run.status.length; seq++) {
    if (!isOk(run.status[seq])) continue;
    const at = (arrivals.get(seq) ?? []).map((t) => t - ingestedAt.get(seq)!).sort((a, b) => a - b);
    missing += Math.max(0, width - at.length);
    latencies.push(...at, ...Array<number>(Math.max(0, width - at.length)).fill(Infinity));
    lasts.push(at.length >= width ? at[width - 1] : Infinity);
    spans.push(`${fmt(at[0] ?? Infinity)}–${fmt(at.length >= width ? at[width - 1] : Infinity)}`);
  }
  log(`first–last delivery of each request, ms after its ingested_at, in send order: ${spans.join(", ")}`);
  latencies.sort((a, b) => a - b);
  lasts.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  const met = drained && missing === 0 && run.errors === 0 && p99 < AIM_FANOUT_P99_MS;
  console.log(`\n| fan-out: ${requests} requests × ${width} connections | value |\n|---|---|`);
  console.log(`| requests accepted / errors | ${accepted} / ${run.errors} |`);
  console.log(`| deliveries made / expected | ${accepted * width - missing} / ${accepted * width} |`);
  console.log(
    `| ingested_at → sink arrival, every delivery, p50 / p95 / p99 / max ms | ${[50, 95, 99, 100].map((p) => fmt(percentile(latencies, p))).join(" / ")} |`,
  );
  console.log(`| last of a request's ${width} deliveries, p50 / max over requests ms | ${fmt(percentile(lasts, 50))} / ${fmt(lasts[lasts.length - 1])} |`);
  console.log(`| load average at the end | ${loadAverage()} |`);
  console.log(`\n[bench] fan-out aim (p99 < ${AIM_FANOUT_P99_MS} ms, every delivery made): ${met ? "met" : "NOT met"}`);
  return met;
}

/** The size mode (module doc). */
export async function size(c: ModeContext): Promise<boolean> {
  const rate = Number(process.env.BENCH_SIZE_RATE ?? 50);
  const seconds = Number(process.env.BENCH_SIZE_SECONDS ?? 60);
  const bytes = Number(process.env.BENCH_SIZE_BYTES ?? 2 ** 20);
  const source = await gatewayConnection(c.hookyard.url, c.apiKey, { source: "size", destination: "size-sink", url: `${c.sink.url}/open/size` });
  // One body built once; each send puts its own fixed-width bench_id in (the size stays exact).
  const template = jsonOfSize((pad) => ({ type: "invoice.paid", bench_id: "s:0000000", data: { id: "in_1", pad } }), bytes);
  const body = (seq: number) => template.replace("s:0000000", `s:${String(seq).padStart(7, "0")}`);
  const roots = new Map<number, string>([
    [testPostmaster(), "postgres"],
    [c.hookyard.process.pid ?? -1, "hookyard"],
    [c.sink.process.pid ?? -1, "sink"],
  ]);
  const peak = new Map<string, { sum: number; largest: number }>();
  // CPU ms of each part over the run, for CPU per request (on a loaded machine steadier than latency).
  const cpuStart = new Map([...usageByPart(roots)].map(([part, u]) => [part, u.cpuMs]));
  const cpuEnd = new Map<string, number>();
  const sample = () => {
    for (const [part, u] of usageByPart(roots)) {
      cpuEnd.set(part, u.cpuMs);
      const p = peak.get(part) ?? peak.set(part, { sum: 0, largest: 0 }).get(part)!;
      p.sum = Math.max(p.sum, u.rss);
      p.largest = Math.max(p.largest, u.largestRss);
    }
  };
  log(`size: ${machineLine()}`);
  log(`one source, one connection; ${bytes}-byte JSON bodies at ${rate}/s for ${seconds} s`);
  sample();
  const sampler = setInterval(sample, 1000);
  const run = await openLoop({ url: source.url, rate, seconds, body, timeoutMs: 60_000, giveUpAfterMs: 60_000 });
  const drained = await waitFor(() => c.sink.openCount("size/s"), run.ok, 120);
  clearInterval(sampler);
  sample();
  const arrivals = await c.sink.openArrivals("size/s");
  const latencies: number[] = [];
  for (let seq = 0; seq < run.status.length; seq++)
    if (isOk(run.status[seq])) latencies.push(arrivals.has(seq) ? arrivals.get(seq)![0] - run.scheduled[seq] : Infinity);
  latencies.sort((a, b) => a - b);
  const delivered = latencies.filter(Number.isFinite).length;
  const largest = Math.max(...[...peak.values()].map((p) => p.largest));
  const met = drained && run.errors === 0 && delivered === run.ok && largest < AIM_MAX_RSS;
  const mib = (n: number) => Math.round(n / 2 ** 20);
  console.log(`\n| size: ${mib(bytes)} MiB bodies, ${rate}/s for ${seconds} s | value |\n|---|---|`);
  console.log(`| sent / 2xx / errors | ${run.sent.filter((t) => !Number.isNaN(t)).length} / ${run.ok} / ${run.errors} |`);
  console.log(`| answer − scheduled p50 / p99 ms | ${fmt(run.latency.p50)} / ${fmt(run.latency.p99)} |`);
  console.log(`| delivered / drained | ${delivered} / ${drained ? "yes" : "NO"} |`);
  console.log(`| scheduled send → sink arrival p50 / p99 ms | ${fmt(percentile(latencies, 50))} / ${fmt(percentile(latencies, 99))} |`);
  for (const [part, end] of cpuEnd)
    console.log(`| CPU per accepted request, ${part} ms | ${((end - (cpuStart.get(part) ?? 0)) / Math.max(1, run.ok)).toFixed(2)} |`);
  for (const [part, p] of peak)
    console.log(`| peak memory, ${part}: largest process RSS / ${part === "postgres" ? "sum of PSS" : "sum of RSS"} MiB | ${mib(p.largest)} / ${mib(p.sum)} |`);
  console.log(`| load average at the end | ${loadAverage()} |`);
  console.log(`\n[bench] size aim (every process under 1 GiB, nothing lost, no errors): ${met ? "met" : "NOT met"}`);
  return met;
}
