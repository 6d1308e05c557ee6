/**
 * `npm run worker`: a delivery worker alone (docs/scaling.md#several-processes), for running more workers
 * than the one `npm start` includes. Needs DATABASE_URL (the database the web processes use); applies
 * migrations if needed. Stops cleanly on SIGINT/SIGTERM (deliveries in flight finish first).
 * `npm start` runs this file as its child (`--child`): then it tells its parent when it is ready (IPC)
 * and stops when the parent is gone.
 */
import "./require-node";
import { existsSync } from "node:fs";
import { getConfig } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { startWorker } from "@/lib/worker/index";
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
try {
  if (!child) await migrate(config.databaseUrl);
  worker = await startWorker();
} catch (err) {
  // One sentence, no stack trace; under `npm start` the supervisor restarts this process.
  const message = `The delivery worker could not start (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); check that the database at DATABASE_URL is up and migrated (npm run db:migrate).`;
  failStart(message, 1);
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  await worker.stop();
  console.log(`[hookyard] delivery worker stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await closePool();
  await stopTracing?.();
  process.exit(0);
};
stopWithParent(stop, child);
