/**
 * `npm run topology` (docs/operations.md#pooler; the last step of `npm test`). Two web-only
 * processes and two workers behind a PgBouncer in transaction mode (DATABASE_URL) with a direct
 * PostgreSQL 15 connection (DIRECT_DATABASE_URL), under TOPOLOGY_RATE requests/s (default 200, half
 * gateway requests, half outbound publishes) for TOPOLOGY_SECONDS (default 60); one web process and one
 * worker are killed with SIGKILL mid-load. Prints the summary line; exits 1 when an accepted request or
 * publish was not delivered, the console rate limit was counted per process, or the live view missed a
 * request of the other process. Needs a build (made if missing), `postgresql-15` and `pgbouncer`.
 */
import { formatTopology, runTopology, topologyProblems } from "../e2e/support/topology";
import { buildIfNeeded } from "./build-if-needed";

const log = (m: string) => console.log(`[topology] ${m}`);

buildIfNeeded(log);
const rate = Number(process.env.TOPOLOGY_RATE ?? 200);
const seconds = Number(process.env.TOPOLOGY_SECONDS ?? 60);
log(`${rate} requests/s for ${seconds} s over 2 web processes, 2 workers, PgBouncer (transaction mode) and PostgreSQL 15`);
const report = await runTopology({ rate, durationMs: seconds * 1000, settleMs: 90_000, log });
console.log(formatTopology(report));
const problems = topologyProblems(report);
for (const p of problems) console.log(`FAILED: ${p}`);
process.exit(problems.length ? 1 : 0);
