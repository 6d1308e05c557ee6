/**
 * `npm run worker`: a delivery worker alone (design "Processes and scale"), for running more workers
 * than the one `npm start` includes. Needs DATABASE_URL (the database the web processes use); applies
 * migrations if needed. Stops cleanly on SIGINT/SIGTERM (deliveries in flight finish first).
 * `npm start` runs this file as its child (`--child`): then it tells its parent when it is ready (IPC)
 * and stops when the parent is gone.
 */
import { existsSync } from "node:fs";
import { getConfig } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { startWorker } from "@/lib/delivery/worker";
import { startRetention } from "@/lib/retention/retention";

if (existsSync(".env")) process.loadEnvFile(".env");
const config = getConfig();
if (!config.databaseUrl) {
  console.error("npm run worker needs DATABASE_URL (the PostgreSQL your Hookyard web processes use)");
  process.exit(2);
}
const child = process.argv.includes("--child");
if (!child) await migrate(config.databaseUrl);
const worker = await startWorker();
startRetention(); // issue 15 §5: partitions ahead, expired partitions and guest workspaces (hourly, timer unref'd)
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.stop();
  await closePool();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (child) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 500).unref();
  process.on("disconnect", () => void stop());
  process.send?.("ready");
}
