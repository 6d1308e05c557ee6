/**
 * `npm run chaos` (docs/benchmarks.md#crashes-npm-run-chaos): under a bounded steady load (CHAOS_RATE requests per second, default
 * 200) to a source whose connection delivers to a local receiver, kills the delivery worker, the web
 * process and PostgreSQL with SIGKILL in turn (CHAOS_PHASE_MS of load before and after each kill, default
 * 15 s; CHAOS_RECEIVER_DELAY_MS, default 0, makes the receiver slow so deliveries are in flight), and prints for each: the answers by status, accepted
 * requests lost (must be 0), duplicates, and the time until deliveries resumed. Exits 1 when any
 * accepted request was lost. Needs a build (`npm run build`). Results: docs/benchmarks.md.
 *
 * `npm run chaos -- outages`: PostgreSQL outages instead (e2e/support/outages.ts): CHAOS_ROUNDS rounds
 * (default 3) of kills at each moment (under load, right after a worker restart, idle), each kept down
 * 1 s and then 20 s, under CHAOS_RATE gateway requests and as many outbound publishes per second
 * (default 50); after each, everything accepted must be delivered within 60 s. Exits 1 otherwise.
 */
import { formatReports, runChaos } from "../e2e/support/chaos";
import { type OutageSpec, runOutages } from "../e2e/support/outages";
import { buildIfNeeded } from "./build-if-needed";

const log = (m: string) => console.log(`[chaos] ${m}`);
buildIfNeeded(log);
if (process.argv.includes("outages")) {
  const rate = Number(process.env.CHAOS_RATE ?? 50);
  const kills: OutageSpec[] = [];
  for (let round = 0; round < Number(process.env.CHAOS_ROUNDS ?? 3); round++) {
    for (const at of ["load", "worker-restart", "idle"] as const) for (const outageMs of [1000, 20_000]) kills.push({ at, outageMs });
  }
  log(`${kills.length} PostgreSQL outages under ${rate} requests/s and ${rate} publishes/s`);
  const { reports } = await runOutages({ rate, loadMs: 5000, settleMs: 60_000, kills, log });
  const bad = reports.filter((r) => r.undelivered.gateway + r.undelivered.outbound > 0 || r.caughtUpAfterMs === null || r.workerUpAfterMs === null);
  for (const r of reports)
    console.log(
      `${r.at.padEnd(15)} down ${(r.outageMs / 1000).toFixed(0).padStart(2)} s  caught up after ${r.caughtUpAfterMs === null ? "never" : `${(r.caughtUpAfterMs / 1000).toFixed(1)} s`}  worker up after ${r.workerUpAfterMs === null ? "never" : `${(r.workerUpAfterMs / 1000).toFixed(1)} s`}  undelivered ${JSON.stringify(r.undelivered)}  health ${r.healthSeen.join(" → ")}`,
    );
  console.log(
    bad.length === 0
      ? "every accepted request was delivered after every outage, and the worker took jobs again"
      : `${bad.length} outages left accepted requests UNDELIVERED`,
  );
  process.exit(bad.length === 0 ? 0 : 1);
}
const rate = Number(process.env.CHAOS_RATE ?? 200);
const phaseMs = Number(process.env.CHAOS_PHASE_MS ?? 15_000);
const receiverDelayMs = Number(process.env.CHAOS_RECEIVER_DELAY_MS ?? 0);
log(`${rate} requests/s; ${phaseMs / 1000} s of load before and after each kill; the receiver answers after ${receiverDelayMs} ms`);
const { reports } = await runChaos({ rate, beforeMs: phaseMs, afterMs: phaseMs, settleMs: 90_000, receiverDelayMs, log });
console.log(formatReports(reports));
const lost = reports.reduce((n, r) => n + r.lost, 0);
console.log(lost === 0 ? "no accepted request was lost" : `${lost} accepted requests were LOST`);
process.exit(lost === 0 ? 0 : 1);
