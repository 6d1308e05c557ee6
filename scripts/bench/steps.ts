/**
 * The open-loop stepped mode of `npm run bench:pipeline` and `bench:outbound` (BENCH_MODE=steps;
 * docs/benchmarks.md "Open-loop steps"). For each offered rate, the reference relay (scripts/bench/relay.ts)
 * then Hookyard get the same open-loop load (scripts/bench/open-loop.ts) in the same sitting, delivering to
 * the same sink (relay to `/open/relay`, Hookyard to `/open/hookyard`). Each lane's step is measured while it
 * runs (deliveries arrived during the step, per 1 s window and over it; the backlog at its end), then its
 * backlog drains (bounded wait) before the next lane starts, so lanes and steps are independent. Latency is
 * sink arrival − the send's scheduled time, for both lanes; a 2xx-answered send never delivered counts as
 * infinite. Hookyard's delivered/s and p99 are then given as ratios to the relay's.
 * Env: BENCH_STEPS (offered rates, default "500,1000,1500,2000"), BENCH_STEP_SECONDS (20), BENCH_SOCKETS
 * (keep-alive sockets, 64), BENCH_DRAIN_SECONDS (bound on each drain, 60), BENCH_STEP_WARMUP (s at the
 * first rate for each lane before the steps, not counted, 3).
 * BENCH_SATURATION=1 finds the saturation point instead of running fixed steps: from BENCH_STEPS' first rate
 * (default 500), the offered rate rises by BENCH_SATURATION_STEP (500/s) until Hookyard's step has a p99
 * over 1 s, an error, or a backlog that does not drain (or BENCH_SATURATION_MAX, 10,000/s, is passed); the
 * saturation point is the last rate before that (docs/benchmarks.md "Saturation points").
 * BENCH_STAGES=1 prints, after each Hookyard step, where its latency sat: per 2 s of the step, p50 / p99 ms of
 * each stage the database records (the caller's `stagesSql`: for the gateway ingest → fan-out → send → answer).
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { freePort } from "../../e2e/support/servers";
import { endRun, log, percentile, type Sink } from "./common";
import { openLoop, type OpenLoopRun } from "./open-loop";

const steps = (process.env.BENCH_STEPS ?? "500,1000,1500,2000").split(",").map(Number);
const stepSeconds = Number(process.env.BENCH_STEP_SECONDS ?? 20);
const sockets = Number(process.env.BENCH_SOCKETS ?? 64);
const drainSeconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 60);
const warmupSeconds = Number(process.env.BENCH_STEP_WARMUP ?? 3);
const saturation = process.env.BENCH_SATURATION === "1";
const saturationStep = Number(process.env.BENCH_SATURATION_STEP ?? 500);
const saturationMax = Number(process.env.BENCH_SATURATION_MAX ?? 10_000);
const showStages = process.env.BENCH_STAGES === "1";
/** A step past the saturation point: p99 over this, ms (or an error, or a backlog left). */
const SATURATED_P99_MS = 1000;
/** Hookyard's aims against the relay (docs/benchmarks.md "Open-loop steps"). */
const AIM_RATE_RATIO = 0.97;
const AIM_P99_RATIO = 1.5;

export type StepModeOptions = {
  /** What Hookyard runs in this mode, for the table's title. */
  title: string;
  sink: Sink;
  databaseUrl: string;
  /** Where Hookyard receives the load; its deliveries must go to `${sink.url}/open/hookyard`. */
  hookyard: { url: string; headers?: Record<string, string> };
  /** The request body (1 KiB JSON) holding `"bench_id":"<benchId>"`, sent to both lanes. */
  body: (benchId: string) => string;
  /**
   * BENCH_STAGES=1: a query of the step's first attempts with $1 and $2 the step's start and end
   * (timestamptz), answering rows `{ s: 2 s window, n, <stage>: [p50, p99] ms… }` in window order.
   */
  stagesSql?: string;
};

type Lane = "relay" | "hookyard";
/** One lane's step: rates per s over the step, latencies in ms. */
type LaneResult = {
  sent: number;
  ok: number;
  errors: number;
  answerP99: number;
  delivered: number;
  perSecond: number[];
  p50: number;
  p95: number;
  p99: number;
  undelivered: number;
  duplicates: number;
  backlog: number;
  /** ms from the end of the step to the last delivery, or null when the backlog did not drain. */
  drainedAfter: number | null;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isOk = (status: number) => status >= 200 && status < 300;

/** Figures of one lane's step from its sends and the sink's arrivals (seq → arrival ms…). */
function summarize(run: OpenLoopRun, arrivals: Map<number, number[]>, drained: boolean): LaneResult {
  const seconds = (run.endsAt - run.startedAt) / 1000;
  const perSecond = Array.from({ length: Math.ceil(seconds) }, () => 0);
  const latencies: number[] = [];
  let sent = 0,
    ok = 0,
    delivered = 0,
    undelivered = 0,
    duplicates = 0,
    last = run.endsAt;
  for (let seq = 0; seq < run.status.length; seq++) {
    if (run.sent[seq] <= run.endsAt) sent++;
    if (isOk(run.status[seq]) && run.answered[seq] <= run.endsAt) ok++;
    const at = arrivals.get(seq);
    const first = at?.[0];
    duplicates += at ? at.length - 1 : 0;
    if (first !== undefined && first < run.endsAt) {
      delivered++;
      perSecond[Math.floor((first - run.startedAt) / 1000)]++;
    }
    if (first !== undefined) last = Math.max(last, first);
    if (isOk(run.status[seq])) latencies.push(first === undefined ? Infinity : first - run.scheduled[seq]);
    if (isOk(run.status[seq]) && first === undefined) undelivered++;
  }
  latencies.sort((a, b) => a - b);
  return {
    sent: sent / seconds,
    ok: ok / seconds,
    errors: run.errors,
    answerP99: run.latency.p99,
    delivered: delivered / seconds,
    perSecond,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    undelivered,
    duplicates,
    backlog: Math.max(0, ok - delivered),
    drainedAfter: drained && undelivered === 0 ? last - run.endsAt : null,
  };
}

/** BENCH_STAGES=1: one line per 2 s window of the step, p50 / p99 ms of each stage (`stagesSql`). */
async function printStages(databaseUrl: string, sql: string, run: OpenLoopRun): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    type StageRow = { s: number; n: number } & Record<string, number[]>;
    const { rows } = await client.query<StageRow>(sql, [new Date(run.startedAt), new Date(run.endsAt)]);
    for (const { s, n, ...stages } of rows)
      log(
        `  stages ${s}–${s + 2} s (${n}): ${Object.entries(stages)
          .map(([k, v]) => `${k} ${v.map((x) => Math.round(x)).join(" / ")}`)
          .join(", ")}`,
      );
  } finally {
    await client.end();
  }
}

const ms = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : "∞");

/**
 * Runs the steps (module doc), prints one table, stops nothing of the caller's. Resolves true when, at every
 * step the relay sustained (no errors, delivered ≥ 0.97 × offered), Hookyard delivered ≥ 0.97× the relay's
 * rate with p99 ≤ 1.5× the relay's, and every backlog drained.
 */
export async function runSteps(o: StepModeOptions): Promise<boolean> {
  const port = await freePort();
  const relay = spawn(process.execPath, ["--import", "tsx", "scripts/bench/relay.ts"], {
    env: { ...process.env, DATABASE_URL: o.databaseUrl, PORT: String(port), SINK_URL: `${o.sink.url}/open/relay` },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    relay.stdout!.on("data", (d) => String(d).includes("relay ready") && resolve());
    relay.once("exit", (code) => reject(new Error(`relay exited (${code}) before it was ready`)));
  });
  relay.send("pause");
  const targets: Record<Lane, { url: string; headers?: Record<string, string> }> = { relay: { url: `http://127.0.0.1:${port}/` }, hookyard: o.hookyard };

  /** One lane at `rate` for `seconds`; the relay delivers only during its own lanes. */
  async function lane(name: Lane, tag: string, rate: number, seconds: number): Promise<LaneResult> {
    if (name === "relay") relay.send("resume");
    const key = `${name}/${tag}`;
    const run = await openLoop({ ...targets[name], rate, seconds, sockets, body: (seq) => o.body(`${tag}:${seq}`) });
    const deadline = Date.now() + drainSeconds * 1000;
    let drained = false;
    while (!(drained = (await o.sink.openCount(key)) >= run.ok) && Date.now() < deadline) await sleep(250);
    if (name === "relay") relay.send("pause");
    if (name === "hookyard" && showStages && o.stagesSql) await printStages(o.databaseUrl, o.stagesSql, run);
    return summarize(run, await o.sink.openArrivals(key), drained);
  }

  log(
    `open-loop steps: ${saturation ? `from ${steps[0]}/s up by ${saturationStep}/s until Hookyard's p99 passes ${SATURATED_P99_MS} ms, an error or a backlog left` : `${steps.join(", ")}/s`}, ${stepSeconds} s each, ${sockets} keep-alive sockets, relay then hookyard at each step; ${warmupSeconds} s warm-up each first`,
  );
  if (warmupSeconds > 0) for (const name of ["relay", "hookyard"] as const) await lane(name, `w${name[0]}`, steps[0], warmupSeconds);
  const rows: string[] = [];
  let allMet = true;
  /** The last rate Hookyard carried (saturation mode), and the first it did not. */
  let carried: number | null = null;
  let saturatedAt: number | null = null;
  const rates = saturation
    ? Array.from({ length: Math.floor((saturationMax - steps[0]) / saturationStep) + 1 }, (_, i) => steps[0] + i * saturationStep)
    : steps;
  for (const [i, rate] of rates.entries()) {
    const r: Partial<Record<Lane, LaneResult>> = {};
    for (const name of ["relay", "hookyard"] as const) {
      const x = (r[name] = await lane(name, `s${i}${name[0]}`, rate, stepSeconds));
      log(
        `${rate}/s ${name}: delivered per 1 s window ${x.perSecond.join(" ")}; ${x.drainedAfter === null ? `did NOT drain within ${drainSeconds} s (${x.undelivered} undelivered)` : `drained ${(x.drainedAfter / 1000).toFixed(1)} s after the step`}; duplicates ${x.duplicates}`,
      );
    }
    const { relay: a, hookyard: b } = r as Record<Lane, LaneResult>;
    const sustained = a.errors === 0 && a.delivered >= AIM_RATE_RATIO * rate;
    const rateRatio = b.delivered / a.delivered;
    const p99Ratio = b.p99 / a.p99;
    const met = rateRatio >= AIM_RATE_RATIO && p99Ratio <= AIM_P99_RATIO;
    const drainedBoth = a.drainedAfter !== null && b.drainedAfter !== null;
    allMet &&= drainedBoth && (!sustained || met);
    for (const [name, x] of [
      ["relay", a],
      ["hookyard", b],
    ] as const) {
      const drained = x.drainedAfter === null ? `NO (${x.undelivered} left)` : `${(x.drainedAfter / 1000).toFixed(1)} s`;
      const ratios = name === "relay" ? "| | |" : `| ${rateRatio.toFixed(2)} | ${Number.isFinite(p99Ratio) ? p99Ratio.toFixed(2) : "∞"} |`;
      const aims = name === "relay" ? (sustained ? "sustained" : "NOT sustained") : sustained ? (met ? "met" : "NOT met") : "—";
      rows.push(
        `| ${rate} | ${name} | ${x.sent.toFixed(1)} | ${x.ok.toFixed(1)} | ${x.errors} | ${ms(x.answerP99)} | ${x.delivered.toFixed(1)} | ${Math.min(...x.perSecond)} | ${ms(x.p50)} / ${ms(x.p95)} / ${ms(x.p99)} | ${x.backlog} | ${drained} ${ratios} ${aims} |`,
      );
    }
    if (saturation) {
      if (b.p99 > SATURATED_P99_MS || b.errors > 0 || b.drainedAfter === null) {
        saturatedAt = rate;
        break;
      }
      carried = rate;
    }
  }
  relay.kill("SIGTERM");
  await new Promise((r) => relay.once("exit", r));
  console.log(
    `\n| ${o.title}: offered /s, ${stepSeconds} s steps | lane | sent/s | 2xx/s | errors | answer p99 ms | delivered/s | lowest 1 s | ingest→delivery p50 / p95 / p99 ms | backlog at end | drained after | delivered/s ratio | p99 ratio | aims |`,
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  if (saturation)
    log(
      `saturation point: ${carried === null ? `below ${steps[0]}/s` : `${carried}/s`} (${saturatedAt === null ? `no step up to ${saturationMax}/s passed a p99 of ${SATURATED_P99_MS} ms` : `at ${saturatedAt}/s the p99 passed ${SATURATED_P99_MS} ms, an error came or the backlog stayed`})`,
    );
  console.log(
    `\n[bench] aims (delivered/s ≥ ${AIM_RATE_RATIO}× and p99 ≤ ${AIM_P99_RATIO}× the relay's at every step it sustains, every backlog drained): ${allMet ? "met" : "NOT met"}`,
  );
  return allMet;
}

/**
 * BENCH_MODE=steps of a bench script: runs the steps, then stops the caller's `server` and database (`db.pg`),
 * ends the sink and exits (0 when runSteps met its aims).
 */
export async function stepMode(o: StepModeOptions, server: { stop: () => Promise<void> }, db: { pg: { stop: () => Promise<void> } }): Promise<never> {
  return endRun(await runSteps(o), server, db, o.sink);
}
