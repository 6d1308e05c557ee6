/**
 * `npm run chaos` (issue 15 §3): under a bounded steady load (CHAOS_RATE requests per second, default
 * 200) to a source whose connection delivers to a local receiver, kills the delivery worker, the web
 * process and PostgreSQL with SIGKILL in turn (CHAOS_PHASE_MS of load before and after each kill, default
 * 15 s; CHAOS_RECEIVER_DELAY_MS, default 0, makes the receiver slow so deliveries are in flight), and prints for each: the answers by status, accepted
 * requests lost (must be 0), duplicates, and the time until deliveries resumed. Exits 1 when any
 * accepted request was lost. Needs a build (`npm run build`). Results: docs/benchmarks.md.
 */
import { formatReports, runChaos } from "../e2e/support/chaos";
import { buildIfNeeded } from "./build-if-needed";

const log = (m: string) => console.log(`[chaos] ${m}`);
buildIfNeeded(log);
const rate = Number(process.env.CHAOS_RATE ?? 200);
const phaseMs = Number(process.env.CHAOS_PHASE_MS ?? 15_000);
const receiverDelayMs = Number(process.env.CHAOS_RECEIVER_DELAY_MS ?? 0);
log(`${rate} requests/s; ${phaseMs / 1000} s of load before and after each kill; the receiver answers after ${receiverDelayMs} ms`);
const { reports } = await runChaos({ rate, beforeMs: phaseMs, afterMs: phaseMs, settleMs: 90_000, receiverDelayMs, log });
console.log(formatReports(reports));
const lost = reports.reduce((n, r) => n + r.lost, 0);
console.log(lost === 0 ? "no accepted request was lost" : `${lost} accepted requests were LOST`);
process.exit(lost === 0 ? 0 : 1);
