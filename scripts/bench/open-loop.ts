/**
 * Open-loop load generator for the benches (docs/benchmarks.md "Open-loop steps"): POSTs fired on a clock
 * at a fixed rate, as webhook providers send. Send n is due at start + n/rate s whether or not earlier
 * sends were answered; sends that find every socket busy wait in the client's queue, and that wait counts
 * in their latency, which is measured from the SCHEDULED time (no coordinated omission). Sockets are
 * keep-alive connections of one undici Pool. Autocannon stays for the closed-loop phases.
 *
 * Also a command: `npx tsx scripts/bench/open-loop.ts <url> [rate/s = 1000] [seconds = 10] [sockets = 64]`
 * POSTs 1 KiB JSON bodies and prints the per-second counts and the latency percentiles.
 */
import { Pool, type Dispatcher } from "undici";
import { jsonOfSize, percentile } from "./common";

export type OpenLoopOptions = {
  /** Where to POST (origin, path and query). */
  url: string;
  /** Sends per second. */
  rate: number;
  /** How long sends are scheduled for, s: rate × seconds sends in all. */
  seconds: number;
  /** Keep-alive sockets (default 64). */
  sockets?: number;
  headers?: Record<string, string>;
  /** The body of send number `seq` (0-based). */
  body: (seq: number) => string;
  /** A send without a complete answer after this long counts as an error (default 30,000 ms). */
  timeoutMs?: number;
  /**
   * Bounds the run: this long after the last scheduled send, every send not answered yet (including those
   * still waiting for a socket, which `timeoutMs` does not cover) counts as an error (no answer). Default: none.
   */
  giveUpAfterMs?: number;
};

/** Counts of one 1 s window from the first scheduled send: sends written, 2xx answers, errors (non-2xx or no answer). */
export type SecondCounts = { sent: number; ok: number; errors: number };

/**
 * One run, per send (index = seq), times in wall-clock ms (Date.now()'s scale, fractional, comparable with
 * the sink's arrival times): `scheduled` (when it was due), `sent` (when undici began writing it on a
 * socket; NaN if never), `answered` (response end or error), `status` (HTTP status; 0 = no answer: network
 * error or timeout). `perSecond[s]` counts by the window of each event's own time (send time for `sent`,
 * answer time for `ok` and `errors`); windows after the schedule hold the late answers.
 * `latency` is answer − scheduled of the 2xx answers, ms.
 */
export type OpenLoopRun = {
  startedAt: number;
  endsAt: number;
  scheduled: Float64Array;
  sent: Float64Array;
  answered: Float64Array;
  status: Int16Array;
  ok: number;
  errors: number;
  perSecond: SecondCounts[];
  latency: { p50: number; p95: number; p99: number };
};

/** Runs `rate × seconds` scheduled sends (see the module doc); resolves once every send has been answered or has failed. */
export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopRun> {
  const url = new URL(o.url);
  const timeoutMs = o.timeoutMs ?? 30_000;
  const pool = new Pool(url.origin, {
    connections: o.sockets ?? 64,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const total = Math.round(o.rate * o.seconds);
  const run: OpenLoopRun = {
    startedAt: 0,
    endsAt: 0,
    scheduled: new Float64Array(total),
    sent: new Float64Array(total).fill(NaN),
    answered: new Float64Array(total).fill(NaN),
    status: new Int16Array(total),
    ok: 0,
    errors: 0,
    perSecond: [],
    latency: { p50: NaN, p95: NaN, p99: NaN },
  };
  const headers = { "content-type": "application/json", ...o.headers };
  const t0 = performance.now();
  const wall0 = Date.now();
  const wall = () => wall0 + (performance.now() - t0);
  run.startedAt = wall0;
  run.endsAt = wall0 + o.seconds * 1000;
  const second = (t: number): SecondCounts => {
    const s = Math.max(0, Math.floor((t - wall0) / 1000));
    while (run.perSecond.length <= s) run.perSecond.push({ sent: 0, ok: 0, errors: 0 });
    return run.perSecond[s];
  };
  let open = 0;
  let fired = 0;
  let allAnswered: () => void = () => {};
  const done = (seq: number, status: number) => {
    if (!Number.isNaN(run.answered[seq])) return;
    const t = wall();
    run.answered[seq] = t;
    run.status[seq] = status;
    const ok = status >= 200 && status < 300;
    if (ok) run.ok++;
    else run.errors++;
    second(t)[ok ? "ok" : "errors"]++;
    if (--open === 0 && fired === total) allAnswered();
  };
  const fire = (seq: number) => {
    open++;
    let status = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {
        run.sent[seq] = wall();
        second(run.sent[seq]).sent++;
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData() {},
      onResponseEnd() {
        done(seq, status);
      },
      onResponseError() {
        done(seq, 0);
      },
    };
    try {
      pool.dispatch({ path: `${url.pathname}${url.search}`, method: "POST", headers, body: o.body(seq) }, handler);
    } catch {
      done(seq, 0);
    }
  };
  let giveUp: NodeJS.Timeout | undefined;
  // The clock: every send whose time has come is fired, however many that is (a late timer fires a burst).
  await new Promise<void>((resolve) => {
    allAnswered = resolve;
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) * o.rate) / 1000) + 1);
      while (fired < due) {
        run.scheduled[fired] = wall0 + (fired * 1000) / o.rate;
        fire(fired++);
      }
      if (fired < total) setTimeout(tick, Math.max(0, (fired * 1000) / o.rate - (performance.now() - t0)));
      else if (open === 0) resolve();
      else if (o.giveUpAfterMs !== undefined)
        giveUp = setTimeout(() => {
          // Fails every send in flight or queued (each reports an error): the run ends.
          void pool.destroy(new Error("gave up"));
          for (let seq = 0; seq < total; seq++) done(seq, 0);
        }, o.giveUpAfterMs);
    };
    tick();
  });
  clearTimeout(giveUp);
  await pool.close().catch(() => {});
  const latencies: number[] = [];
  for (let i = 0; i < total; i++) if (run.status[i] >= 200 && run.status[i] < 300) latencies.push(run.answered[i] - run.scheduled[i]);
  latencies.sort((a, b) => a - b);
  run.latency = { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) };
  return run;
}

if (process.argv[1]?.endsWith("open-loop.ts")) {
  const [target, rate = "1000", seconds = "10", sockets = "64"] = process.argv.slice(2);
  if (!target) throw new Error("usage: npx tsx scripts/bench/open-loop.ts <url> [rate/s] [seconds] [sockets]");
  const body = jsonOfSize((pad) => ({ type: "bench", pad }));
  const r = await openLoop({ url: target, rate: Number(rate), seconds: Number(seconds), sockets: Number(sockets), body: () => body });
  console.log("| second | sent | 2xx | errors |\n|---|---|---|---|");
  r.perSecond.forEach((c, s) => console.log(`| ${s} | ${c.sent} | ${c.ok} | ${c.errors} |`));
  console.log(
    `2xx ${r.ok}, errors ${r.errors}; answer − scheduled p50 / p95 / p99 ms: ${r.latency.p50.toFixed(1)} / ${r.latency.p95.toFixed(1)} / ${r.latency.p99.toFixed(1)}`,
  );
}
