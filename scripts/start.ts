/**
 * `npm start` (and `npm run dev` with --dev): a supervisor (docs/architecture.md#processes).
 * 1. PostgreSQL: DATABASE_URL when set, else the embedded server under DATA_DIR (its own port).
 * 2. Migrations (prisma/migrations, applied offline; only checked with MIGRATE_ON_START=false) and the
 *    SECRET_KEY check (lib/db/prepare.ts; docs/operations.md).
 * 3. `next build` when there is no build of the current sources (not in --dev).
 * 4. The web server (scripts/web.ts → server.ts) on PORT, as a child process.
 * 5. The delivery worker (scripts/worker.ts) as a child process, unless WORKER_ENABLED=false: its own
 *    event loop, so deliveries never slow ingestion's answers and both cores are used.
 * A part that dies (crash, SIGKILL, out of memory) is started again with backoff and a restart budget
 * (lib/supervisor.ts) while the others keep serving; the web process shows every part's state at
 * /healthz. Ctrl-C / SIGTERM stop it all cleanly (web, then worker, then PostgreSQL); so does the death
 * of a launcher (npm or tsx killed with SIGKILL). When this process ends without that clean stop (its
 * own SIGKILL, a crash), every part still ends: web and worker notice their parent is gone, and each
 * PostgreSQL, restarted ones included, is stopped by its guard (lib/db/embedded.ts; docs/architecture.md
 * "Processes"). A start after a SIGKILL'd one whose guard died too stops the orphaned PostgreSQL first.
 * A start that fails prints one sentence of cause and remedy, never a stack trace.
 */
import "./require-node";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded";
import { EMBEDDED_DATABASE_ENV } from "@/lib/crypto/secrets";
import { prepareDatabase } from "@/lib/db/prepare";
import { closePool } from "@/lib/db/pool";
import { ensureDashboardAdmin } from "@/lib/dashboard/bootstrap";
import { ensureGatewayTeam } from "@/lib/teams/bootstrap";
import { ensureOutboundKey } from "@/lib/outbound/auth";
import { isAlive, StartFailure } from "@/lib/processes";
import { listenAndRelay, listenFailureMessage, type SocketRelay } from "@/lib/socket-relay";
import { type HealthMessage, Part, type RunningPart } from "@/lib/supervisor";
import { buildIfNeeded, type ProcessScript, processBundle, SOURCE_MAPS_PRELOAD } from "./build-if-needed";

const log = (m: string) => console.log(`[hookyard] ${m}`);
// Settings may also come from a .env file (copy .env.example); the environment wins.
if (existsSync(".env")) process.loadEnvFile(".env");
const dev = process.argv.includes("--dev");
// The test harness builds once before starting several servers (scripts/test.ts).
const skipBuild = process.argv.includes("--no-build");
if (dev) (process.env as Record<string, string>).NODE_ENV = "development";
let config: ReturnType<typeof getConfig>;
try {
  config = getConfig();
} catch (err) {
  console.error(`[hookyard] ${(err as Error).message.replace(/\.?$/, "")}; fix these settings in the environment or .env (see .env.example).`);
  process.exit(1);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One Hookyard per embedded data directory: wait for a previous one that is shutting down. */
async function takeLock(lockFile: string): Promise<void> {
  mkdirSync(path.dirname(lockFile), { recursive: true });
  for (let i = 0; i < 150 && existsSync(lockFile); i++) {
    const pid = Number(readFileSync(lockFile, "utf8"));
    if (!Number.isInteger(pid) || pid === process.pid || !isAlive(pid)) break;
    if (i === 0) log(`waiting for the Hookyard already using ${config.dataDir} (pid ${pid}) to stop…`);
    if (i === 149)
      throw new StartFailure(`Another Hookyard (pid ${pid}) is running with DATA_DIR=${config.dataDir}; stop it, or set DATA_DIR to another directory.`);
    await sleep(100);
  }
  writeFileSync(lockFile, String(process.pid));
}

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

/** Why a child ended, in words. */
const exitReason = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `was killed (${signal})` : `exited with code ${code}`);

/**
 * Spawns `node {nodeArgs} {the script's bundle} --child` (`--import tsx {script}` when there is no bundle of the
 * current sources, and in development) and resolves once it reports "ready" over IPC; rejects
 * with its reported failure (or its exit) when it ends first.
 */
function spawnChild(
  script: ProcessScript,
  extraArgs: string[],
  nodeArgs: string[],
  env: NodeJS.ProcessEnv,
  stopTimeoutMs: number,
  onSpawn: (c: ChildProcess) => void = () => {},
  onCondition: (why: string | null) => void = () => {},
): Promise<RunningPart & { child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    // The bundle of the current sources when there is one (npm start makes it: scripts/build-if-needed.ts), with
    // the source maps of our code for stack traces (scripts/source-maps.mjs); else the script itself through
    // tsx (`npm run dev`, changed sources).
    const bundle = dev ? null : processBundle(script);
    const entry = bundle ? ["--import", SOURCE_MAPS_PRELOAD, bundle] : ["--import", "tsx", script];
    const child = spawn(process.execPath, [...nodeArgs, ...entry, "--child", ...extraArgs], {
      env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    onSpawn(child);
    let failure: string | null = null;
    const exited = new Promise<string>((r) => child.once("exit", (code, signal) => r(exitReason(code, signal))));
    child.on("message", (m: unknown) => {
      if (m === "ready") {
        resolve({
          child,
          pid: child.pid ?? null,
          exited,
          stop: async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill("SIGTERM");
            await Promise.race([exited, sleep(stopTimeoutMs)]);
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
          },
        });
      } else if (m && typeof m === "object" && (m as { type?: string }).type === "failed") failure = String((m as { message?: unknown }).message);
      // A running worker that takes no due work says so (lib/delivery/watchdog.ts), and again when it does.
      else if (m && typeof m === "object" && (m as { type?: string }).type === "condition") {
        const why = (m as { condition?: unknown }).condition;
        onCondition(typeof why === "string" ? why : null);
      }
    });
    child.once("error", reject);
    void exited.then((why) => reject(failure ? new StartFailure(failure) : new Error(`it ${why} before it was ready`)));
  });
}

/**
 * V8 flags for a child (docs/operations.md "Memory"): its young generation at a fixed size (V8_SEMI_SPACE_MB;
 * left to itself, V8 resizes it from 32 to 128 MiB and back under a steady load, and RSS follows), and the web
 * process's old space bounded (WEB_MAX_OLD_SPACE_MB), which also bounds how far its heap grows between collections.
 */
function heapFlags(part: "web" | "worker"): string[] {
  const semi = config.v8SemiSpaceMb;
  const flags = semi > 0 ? [`--min-semi-space-size=${semi}`, `--max-semi-space-size=${semi}`] : [];
  if (part === "web" && config.webMaxOldSpaceMb > 0) flags.push(`--max-old-space-size=${config.webMaxOldSpaceMb}`);
  return flags;
}

let stopping = false;
let embeddedHandle: EmbeddedPostgresHandle | undefined;
const lockFile = path.join(config.dataDir, "hookyard.pid");
const childEnv = () => ({ ...process.env });
let webChild: ChildProcess | null = null;
/** PORT, held here so that a restarting web process refuses no connection (lib/socket-relay.ts). */
let relay: SocketRelay | undefined;

const onGiveUp = (why: string) => {
  console.error(`[hookyard] ${why}; see the lines above for its errors.`);
  void shutdown("a part kept failing", 1);
};
/** Sends the parts' states to the web process, for /healthz. */
const publishHealth = () => {
  if (!webChild?.connected) return;
  const message: HealthMessage = { type: "health", parts: Object.fromEntries(parts().map((p) => [p.name, p.health()])) };
  webChild.send(message, () => {});
};

const database: Part | null = config.databaseUrl
  ? null
  : new Part(
      "database",
      async () => {
        const handle = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
        embeddedHandle = handle;
        return { pid: handle.pid, exited: handle.exited.then(({ code, signal }) => `(embedded PostgreSQL) ${exitReason(code, signal)}`), stop: handle.stop };
      },
      { log, onChange: publishHealth, onGiveUp },
    );
/** Children wait for the embedded database before they are restarted (a worker would only fail again). */
const beforeRestart = async () => database?.whenUp();

const web = new Part(
  "web",
  async () => {
    const running = await spawnChild("scripts/web.ts", dev ? ["--dev"] : [], heapFlags("web"), childEnv(), 15_000, (c) => (webChild = c));
    // Connections that arrived while no web process was ready go to this one first.
    relay?.attach(running.child);
    void running.exited.then(() => relay?.detach());
    setTimeout(publishHealth, 0);
    return running;
  },
  { log, onChange: publishHealth, onGiveUp, beforeRestart },
);

const worker: Part | null = config.workerEnabled
  ? new Part(
      "worker",
      () =>
        // A stopping worker finishes its deliveries in flight (each up to DELIVERY_TIMEOUT_MS) before it exits.
        spawnChild(
          "scripts/worker.ts",
          [],
          heapFlags("worker"),
          { ...childEnv(), ...(isLocalDatabase(process.env.DATABASE_URL) ? { HOOKYARD_DB_BACKEND_NICE: String(config.workerNice) } : {}) },
          config.deliveryTimeoutMs + 20_000,
          (child) => {
            // WORKER_NICE (default 0): a lower CPU priority for the worker leaves the CPU to ingestion, but under a
            // steady load that fills the cores it starves deliveries (docs/pipeline.md "CPU priority").
            try {
              if (child.pid) os.setPriority(child.pid, config.workerNice);
            } catch {}
          },
          (why) => worker?.setCondition(why),
        ),
      { log, onChange: publishHealth, onGiveUp, beforeRestart },
    )
  : null;

function parts(): Part[] {
  return [database, web, worker].filter((p): p is Part => p !== null);
}

async function shutdown(reason: string, code = 0): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  log(`stopping (${reason})…`);
  const force = setTimeout(() => process.exit(code || 1), config.deliveryTimeoutMs + 60_000);
  force.unref();
  for (const p of parts()) p.halt();
  // In order: the web server stops taking requests, the worker finishes its deliveries, PostgreSQL goes last.
  await relay?.close().catch(() => {});
  await web.stop().catch((e) => console.error(e instanceof Error ? e.message : e));
  await worker?.stop().catch((e) => console.error(e instanceof Error ? e.message : e));
  await closePool().catch(() => {});
  await database?.stop().catch((e) => console.error(e instanceof Error ? e.message : e));
  await embeddedHandle?.stop().catch(() => {});
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
    // Once: a second call of shutdown() forces an exit (a second Ctrl-C), which must not cut this stop short.
    if (!stopping && (process.ppid !== launchers[0] || launchers.some((pid) => !isAlive(pid)))) void shutdown("the launching process exited");
  }, 500).unref();
}

/** One sentence of cause and remedy for a start failure, never a stack trace. */
function explain(err: unknown): string {
  if (err instanceof StartFailure) return err.message;
  const e = err as NodeJS.ErrnoException;
  const first = (e instanceof Error ? e.message : String(err)).split("\n")[0].replace(/\.$/, "");
  if (config.databaseUrl && ["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "28P01", "3D000", "EAI_AGAIN"].includes(String(e.code))) {
    return `The database at DATABASE_URL cannot be used (${first}); check that PostgreSQL is running there and that the URL's host, port, user, password and database are right.`;
  }
  if (e.code === "EACCES" || e.code === "EPERM")
    return `Hookyard lacks a permission it needs (${first}); run it as a user who may write DATA_DIR and this checkout, or fix their permissions.`;
  return `Hookyard could not start (${first}); fix the cause above, or run with LOG_LEVEL=debug for more detail.`;
}

try {
  if (config.databaseUrl) {
    log("using DATABASE_URL");
  } else {
    await takeLock(lockFile);
    await database!.start();
    process.env.DATABASE_URL = embeddedHandle!.url;
    process.env[EMBEDDED_DATABASE_ENV] = "1";
    log(`embedded PostgreSQL on 127.0.0.1:${config.embeddedPgPort} (data in ${path.relative(process.cwd(), embeddedHandle!.pgData) || "."})`);
  }
  // PORT is held by this process from here on; the web process serves what it accepts.
  relay = await listenAndRelay(config.port, config.host).catch((err) => {
    const message = listenFailureMessage(err, config.port);
    throw message ? new StartFailure(message) : err;
  });
  // Migrations (unless MIGRATE_ON_START=false), then the schema and key checks (docs/operations.md).
  await prepareDatabase(process.env.DATABASE_URL!, { log });
  await ensureGatewayTeam(log);
  await ensureOutboundKey(log);
  await ensureDashboardAdmin(log);
  // The supervisor needs no connection of its own from here on (the children have theirs).
  await closePool();
  if (!dev && !skipBuild) {
    try {
      buildIfNeeded(log);
    } catch (err) {
      throw new StartFailure(
        `The app could not be built (${(err as Error).message.split("\n")[0]}); run \`npm run build\` to see why, fix it, and start again.`,
      );
    }
  }
  await web.start();
  await worker?.start();
  publishHealth();
  log(`ready on ${config.publicUrl}${dev ? " (development)" : ""}`);
} catch (err) {
  console.error(`[hookyard] ${explain(err)}`);
  await shutdown("start failed", 1);
}

// Whatever escapes (a bug, not a part's crash: those are children) is one line, then a clean stop.
process.on("uncaughtException", (err) => {
  console.error(`[hookyard] the supervisor failed (${err instanceof Error ? err.message : err}); stopping everything.`);
  void shutdown("supervisor error", 1);
});
