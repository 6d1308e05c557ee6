/**
 * `npx tsx scripts/bench/metrics-overhead.ts`: the CPU time the metrics add to one ingested request
 * (docs/benchmarks.md "Metrics overhead"), measured without the noise of a loaded machine's HTTP run:
 * what server.ts and lib/ingest do per request (trackHttpResponse, the response's `close`, which counts
 * and times it, and recordIngested), timed over many rounds, against the same loop with the `close`
 * listener of an untracked response only. Prints µs per request for both and the difference.
 * Env: BENCH_ROUNDS (default 2,000,000).
 */
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { recordIngested, trackHttpResponse } from "@/lib/observability/metrics";

const rounds = Number(process.env.BENCH_ROUNDS ?? 2_000_000);
const response = () => Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true }) as unknown as ServerResponse;
const noop = () => {};

/** µs per round of `body`, the best of three runs (after a warm-up). */
function time(body: () => void): number {
  for (let i = 0; i < rounds / 10; i++) body();
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = process.cpuUsage();
    for (let i = 0; i < rounds; i++) body();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / rounds); // cpuUsage is in µs
  }
  return best;
}

const untracked = time(() => {
  const res = response();
  res.once("close", noop);
  res.emit("close");
});
const tracked = time(() => {
  const res = response();
  trackHttpResponse(res, "ingest", "POST");
  recordIngested("accepted");
  res.emit("close");
});
console.log(
  `[bench] ${rounds} rounds; CPU µs per request: without metrics ${untracked.toFixed(3)}, with metrics ${tracked.toFixed(3)}, metrics cost ${(tracked - untracked).toFixed(3)}`,
);
