/**
 * `npm run worker`: a delivery worker alone (docs/scaling.md#several-processes), for running more workers
 * than the one `npm start` includes. Needs DATABASE_URL (the database the web processes use) and SECRET_KEY;
 * applies migrations if needed (unless MIGRATE_ON_START=false), and refuses to start on a schema it does not
 * know or another key (lib/db/prepare.ts; docs/operations.md). Stops cleanly on SIGINT/SIGTERM (deliveries in flight finish first).
 * `npm start` runs this file as its child (`--child`): then it tells its parent when it is ready (IPC)
 * and stops when the parent is gone.
 * With METRICS_PORT, it serves /metrics, /livez and /readyz on a listener of its own: on METRICS_PORT,
 * or METRICS_PORT + 1 as the child of `npm start` (whose web process has METRICS_PORT; docs/operations.md
 * "Metrics and health").
 */
import "./require-node";
import { existsSync } from "node:fs";
import { getConfig } from "@/lib/config";
import { closePool } from "@/lib/db/pool";
import { probeDatabase } from "@/lib/db/health";
import { prepareDatabase } from "@/lib/db/prepare";
import { type MetricsListener, startMetricsListener } from "@/lib/observability/endpoints";
import { StartFailure } from "@/lib/processes";
import { startWorker, workerReady } from "@/lib/worker/index";
import { failStart, stopWithParent } from "@/lib/supervisor";
import { startTracing } from "@/lib/tracing";

if (existsSync(".env")) process.loadEnvFile(".env");
// Traces first (docs/operations.md "Traces"); nothing is loaded when off.
const stopTracing = await startTracing("hookyard-worker");
const config = getConfig();
if (!config.databaseUrl) {
  console.error("npm run worker needs DATABASE_URL (the PostgreSQL your Hookyard web processes use)");
  process.exit(2);
}
const child = process.argv.includes("--child");
let worker: Awaited<ReturnType<typeof startWorker>>;
let metrics: MetricsListener | null = null;
// The worker child of `npm start` takes the port after its web process's.
const metricsPort = config.metrics.port === undefined ? undefined : config.metrics.port + (child ? 1 : 0);
try {
  // Under `npm start` the supervisor migrated; this process only checks (docs/operations.md "Migrations").
  await prepareDatabase(config.databaseUrl, { migrate: config.migrateOnStart && !child, log: (m) => console.log(`[hookyard] ${m}`) });
  worker = await startWorker();
  if (metricsPort !== undefined) {
    metrics = await startMetricsListener({ port: metricsPort, host: config.host, ready: async () => workerReady() && (await probeDatabase()).up });
  }
} catch (err) {
  // One sentence, no stack trace; under `npm start` the supervisor restarts this process.
  const message =
    err instanceof StartFailure
      ? err.message
      : `The delivery worker could not start (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); check that the database at DATABASE_URL is up and migrated (npm run db:migrate).`;
  failStart(message, 1);
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  await metrics?.close();
  await worker.stop();
  console.log(`[hookyard] delivery worker stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await closePool();
  await stopTracing?.();
  process.exit(0);
};
stopWithParent(stop, child);
