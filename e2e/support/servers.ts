/**
 * Test infrastructure: a real embedded PostgreSQL and real Hookyard servers (production build),
 * started the way `npm start` starts them. Used by scripts/test.ts (for every suite) and by tests that
 * need a server of their own.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";

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

/** Starts the test PostgreSQL (under .data/test-pg) and creates a fresh, migrated database. */
export async function startTestDatabase(): Promise<{ url: string; adminUrl: string; pg: EmbeddedPostgresHandle }> {
  const port = await freePort();
  const handle = await startEmbeddedPostgres({ dataDir: path.resolve(".data/test-pg"), port, database: "postgres" });
  const name = `hookyard_test_${Date.now()}`;
  const admin = new pg.Client({ connectionString: handle.url });
  await admin.connect();
  // Old test databases of earlier runs are of no use.
  const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'hookyard_%'");
  for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = handle.url.replace(/\/postgres$/, `/${name}`);
  await migrate(url);
  return { url, adminUrl: handle.url, pg: handle };
}

/**
 * A fresh, migrated database of its own on the test PostgreSQL (TEST_PG_ADMIN_URL), for tests that run
 * a server nobody else's worker may touch. `client` is connected to it; `drop()` ends it and drops it.
 */
export async function privateDatabase(prefix: string): Promise<{ url: string; client: pg.Client; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL!;
  const name = `hookyard_${prefix}_${Date.now()}_${process.pid}`;
  const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
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

export type RunningServer = { url: string; port: number; process: ChildProcess; output: () => string; stop: () => Promise<void> };

/**
 * Starts `tsx scripts/start.ts` (the production server; the build must exist) with `env` on a free
 * port and waits until it answers. `DATABASE_URL: ""` gives it an embedded PostgreSQL of its own. Rejects with the server's output when it does not come up in 60 s.
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  // A free port can be taken by another test between freePort() and the server's listen: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(env);
    } catch (err) {
      const raced = env.PORT === undefined && env.PUBLIC_URL === undefined && /is in use by another program/.test(String(err));
      if (!raced || attempt === 3) throw err;
    }
  }
}

async function startServerOnce(env: Record<string, string>): Promise<RunningServer> {
  const port = Number(env.PORT ?? (await freePort()));
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PUBLIC_URL: url, ...env, PORT: String(port), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" };
  // DATABASE_URL: "" starts the server on an embedded PostgreSQL of its own (under DATA_DIR), as `npm start` does.
  if (childEnv.DATABASE_URL === "") delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--no-build"], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    if (output.includes("ready on")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!output.includes("ready on")) {
    child.kill("SIGKILL");
    throw new Error(`server did not start in 60 s:\n${output}`);
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
      // tsx may exit before the server it launched: wait for the whole process group (server, worker) to end.
      const groupAlive = () => {
        try {
          process.kill(-child.pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (const end = Date.now() + 15_000; groupAlive() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
      if (groupAlive()) process.kill(-child.pid!, "SIGKILL");
    },
  };
}

/** Kills `server`'s whole process group with SIGKILL (a crash: nothing is shut down cleanly); resolves once it exited. */
export function killHard(server: RunningServer): Promise<unknown> {
  process.kill(-server.process.pid!, "SIGKILL");
  return new Promise((r) => (server.process.exitCode !== null ? r(null) : server.process.once("exit", r)));
}
