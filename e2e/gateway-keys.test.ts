/**
 * An operator gets a working key without reading the database (docs/gateway-api.md#getting-a-key):
 * the first start on an empty database creates the gateway team, GATEWAY_API_KEY pins a key, and
 * `npm run keys` creates, lists (prefixes only) and revokes keys and rotates the signing secret, the
 * previous secret staying valid for the delay given.
 */
import { spawnSync } from "node:child_process";
import { format } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cliSigningSecret } from "@/lib/cli-channel/sessions";
import { decryptSecret } from "@/lib/crypto/secrets";
import { closePool, databaseUrl, getPool } from "@/lib/db/pool";
import { getSigningSecrets } from "@/lib/teams/signing-secret";
import { adminCommandStatus } from "../scripts/admin-command";
import { keysCommand, keysCommandLine } from "../scripts/keys-command";
import { type RunningServer, startServer } from "./support/servers";
import { newTeam } from "./support/gateway";

const adminUrl = process.env.TEST_PG_ADMIN_URL!;
/** The shared test database (the servers of `npm test`); this process's own pools go to this file's database. */
const sharedUrl = process.env.DATABASE_URL!;
const dbName = `hookyard_keys_${Date.now()}`;
const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${dbName}$1`);
const PINNED = "hky_pinned_key_for_tests_0123456789";
let server: RunningServer | undefined;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  server = await startServer({ DATABASE_URL: url, GATEWAY_API_KEY: PINNED });
  // The keys commands and getSigningSecrets run in this process, on this file's database (as the script would).
  process.env.DATABASE_URL = url;
  expect(databaseUrl()).toBe(url);
}, 90_000);

afterAll(async () => {
  await closePool();
  process.env.DATABASE_URL = sharedUrl;
  await server?.stop();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
});

/**
 * `npm run keys -- …args` on this file's database, in this process: the script's own command line, frame
 * (adminCommandStatus: database prepared, AppError → 1) and commands, its console output collected
 * (stdout, then stderr, as a spawned script's). Spawning the script costs a second or two of CPU each
 * time, so only {@link keysProcess} checks the script itself.
 */
async function keys(...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void stdout.push(`${format(...a)}\n`));
  const error = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void stderr.push(`${format(...a)}\n`));
  try {
    const status = await adminCommandStatus(() => keysCommand(keysCommandLine(args)));
    return { status, out: stdout.join("") + stderr.join("") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** `npm run keys -- …args` on this file's database, as a process (its script run as npm runs it, without npm's own start-up). */
function keysProcess(...args: string[]) {
  const r = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/keys.ts", ...args], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** getSigningSecrets of the gateway team of this file's database, at `at`. */
async function signingSecrets(at?: Date): Promise<{ teamId: string; current: string; previous: string | null; previousExpiresAt: Date | null }> {
  const { rows } = await getPool().query("SELECT id FROM teams WHERE mode = 'TEAM' ORDER BY created_at LIMIT 1");
  return { teamId: rows[0].id, ...(await getSigningSecrets(rows[0].id, at)) };
}

const call = async (key: string, path = "/api/2025-07-01/sources/count") =>
  (await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).status;

describe("bootstrap", () => {
  it("a server started on an empty database with GATEWAY_API_KEY accepts that key (Bearer and Basic) and never prints it", async () => {
    expect(server!.output()).toContain("created the gateway team");
    expect(server!.output()).toMatch(/CLI key: +cli_[A-Za-z0-9_-]{32} /);
    expect(server!.output()).not.toContain(PINNED);
    expect(await call(PINNED)).toBe(200);
    expect(await call(PINNED, "/api/sources")).toBe(200);
    const basic = await fetch(`${server!.url}/api/2025-07-01/sources`, { headers: { authorization: `Basic ${Buffer.from(`${PINNED}:`).toString("base64")}` } });
    expect(basic.status).toBe(200);
    expect(await call("hky_pinned_key_for_tests_0123456780")).toBe(401);
  });

  it("the first start prints the signing secret once; it is the team's current secret, stored encrypted", async () => {
    const printed = /signing secret: (\S+)/.exec(server!.output())?.[1];
    expect(printed).toBeDefined();
    const s = await signingSecrets();
    expect(s.current).toBe(printed);
    expect(s.previous).toBeNull();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT signing_secret_encrypted AS s FROM teams WHERE id = $1", [s.teamId]);
    await client.end();
    expect(rows[0].s).not.toContain(printed);
    expect(decryptSecret(rows[0].s)).toBe(printed);
  });
});

describe("npm run keys", () => {
  let created = "";

  it("npm run keys -- create ci (the script, spawned) → prints a new key once; it works on the API at once", async () => {
    const r = keysProcess("create", "ci");
    expect(r.status).toBe(0);
    created = /^(hky_[A-Za-z0-9_-]{40})$/m.exec(r.out)?.[1] ?? "";
    expect(created).not.toBe("");
    expect(await call(created)).toBe(200);
    expect(await call(created, "/api/2024-09-01/sources")).toBe(200);
  });

  it("npm run keys -- list → prefixes, names and ids; never a full key", async () => {
    const r = await keys("list");
    expect(r.status).toBe(0);
    expect(r.out).toContain(created.slice(0, 12));
    expect(r.out).not.toContain(created);
    expect(r.out).not.toContain(created.slice(0, 20));
    expect(r.out).not.toContain(PINNED);
    expect(r.out).toContain(PINNED.slice(0, 12));
    expect(r.out).toContain("GATEWAY_API_KEY");
    expect(r.out).toContain(" ci ");
  });

  it("npm run keys -- revoke <prefix> → the key answers 401; the other keys keep working; list marks it REVOKED", async () => {
    const r = await keys("revoke", created.slice(0, 12));
    expect(r.status).toBe(0);
    expect(await call(created)).toBe(401);
    expect(await call(PINNED)).toBe(200);
    const line = (await keys("list")).out.split("\n").find((l) => l.includes(created.slice(0, 12)));
    expect(line).toContain("REVOKED");
    expect((await keys("revoke", created.slice(0, 12))).status).toBe(1);
  });

  it("npm run keys -- revoke <full key> and revoke <id> both revoke", async () => {
    const byKey = /^(hky_[A-Za-z0-9_-]{40})$/m.exec((await keys("create", "by-key")).out)![1];
    const byIdOut = (await keys("create", "by-id")).out;
    const byId = /^(hky_[A-Za-z0-9_-]{40})$/m.exec(byIdOut)![1];
    const id = /created (\S+) \(by-id\)/.exec(byIdOut)![1];
    expect([await call(byKey), await call(byId)]).toEqual([200, 200]);
    expect((await keys("revoke", byKey)).status).toBe(0);
    expect((await keys("revoke", id)).status).toBe(0);
    expect([await call(byKey), await call(byId)]).toEqual([401, 401]);
  });

  it("npm run keys -- revoke of nothing, or with no argument, fails", async () => {
    expect((await keys("revoke", "hky_nothing_like_this")).status).toBe(1);
    expect((await keys("revoke")).status).not.toBe(0);
    expect((await keys("unknown-command")).status).not.toBe(0);
  });

  it("npm run keys -- rotate-secret 2 → prints the new secret; the previous one stays as `previous` for 2 hours, then not", async () => {
    const before = await signingSecrets();
    const r = await keys("rotate-secret", "2");
    expect(r.status).toBe(0);
    const secret = /new signing secret \(shown once\): (\S+)/.exec(r.out)?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(before.current);
    const after = await signingSecrets();
    expect(after.teamId).toBe(before.teamId);
    expect(after.current).toBe(secret);
    expect(after.previous).toBe(before.current);
    const left = after.previousExpiresAt!.getTime() - Date.now();
    expect(left).toBeGreaterThan(2 * 3_600_000 - 120_000);
    expect(left).toBeLessThanOrEqual(2 * 3_600_000);
    // Just before the delay ends the previous secret is still given; just after, it is not.
    expect((await signingSecrets(new Date(after.previousExpiresAt!.getTime() - 1_000))).previous).toBe(before.current);
    const expired = await signingSecrets(new Date(after.previousExpiresAt!.getTime() + 1_000));
    expect(expired.previous).toBeNull();
    expect(expired.current).toBe(secret);
    // Stored encrypted.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT signing_secret_encrypted AS s, previous_signing_secret_encrypted AS p FROM teams WHERE id = $1", [
      after.teamId,
    ]);
    await client.end();
    expect(rows[0].s).not.toContain(secret);
    expect(rows[0].p).not.toContain(before.current);
  });

  it("npm run keys -- rotate-secret 0 → the previous secret is dropped at once", async () => {
    const before = await signingSecrets();
    const r = await keys("rotate-secret", "0");
    expect(r.status).toBe(0);
    const secret = /new signing secret \(shown once\): (\S+)/.exec(r.out)?.[1];
    const after = await signingSecrets();
    expect(after.current).toBe(secret);
    expect(after.current).not.toBe(before.current);
    expect(after.previous).toBeNull();
    // The script, spawned: "-1" is an option its command line refuses (usage, exit 2) before any database work.
    expect(keysProcess("rotate-secret", "-1").status).not.toBe(0);
  });

  it("npm run keys -- cli-key → a new cli_key for the gateway team (stored hashed), which opens a CLI session; the previous key stops working", async () => {
    const open = (key: string) =>
      fetch(`${server!.url}/cli/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: '{"source_name":"from-keys"}',
      });
    const first = await keys("cli-key");
    expect(first.status).toBe(0);
    const previous = /^(cli_[A-Za-z0-9_-]{32})$/m.exec(first.out)?.[1];
    expect(previous).toBeDefined();
    const r = await keys("cli-key");
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/shown once; the previous key no longer works/);
    const cliKey = /^(cli_[A-Za-z0-9_-]{32})$/m.exec(r.out)?.[1];
    expect(cliKey).toBeDefined();
    expect(cliKey).not.toBe(previous);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT mode, cli_key_hash FROM teams WHERE cli_key_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')", [cliKey]);
    const plain = await client.query("SELECT count(*)::int AS n FROM teams WHERE cli_key_hash = $1 OR cli_key_hash LIKE 'cli\\_%'", [cliKey]);
    await client.end();
    expect(rows).toEqual([{ mode: "TEAM", cli_key_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(plain.rows[0].n).toBe(0);
    expect((await open(previous!)).status).toBe(401);
    const opened = await open(cliKey!);
    expect(opened.status).toBe(200);
    const session = (await opened.json()) as { source: { name: string }; signing_secret: string };
    expect(session.source.name).toBe("from-keys");
    // The CLI is given its forwarding secret, never the team's signing secret (docs/cli.md).
    expect(session.signing_secret).toBe(cliSigningSecret((await signingSecrets()).current));
    expect(session.signing_secret).not.toBe((await signingSecrets()).current);
  });

  it("npm run keys on the database did not create a second gateway team", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM teams WHERE mode = 'TEAM'");
    await client.end();
    expect(rows[0].n).toBe(1);
  });
});

describe("storage", () => {
  it("keys are stored hashed: the api_keys table never holds a key", async () => {
    // On this file's database (this process's pool) and its server.
    const team = await newTeam("hashed");
    const { rows } = await getPool().query("SELECT key_hash, prefix FROM api_keys WHERE team_id = $1", [team.teamId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].key_hash).not.toContain(team.apiKey);
    expect(rows[0].prefix).toHaveLength(12);
    expect(team.apiKey.startsWith(rows[0].prefix)).toBe(true);
    const all = await getPool().query("SELECT * FROM api_keys");
    expect(JSON.stringify(all.rows)).not.toContain(team.apiKey);
    expect(await call(team.apiKey)).toBe(200);
  });
});
