/**
 * Credentials that must hold on the server (docs/dashboard.md "Signing in", docs/cli.md "The cli_key",
 * docs/architecture.md "Cookies"): sign-out and password resets end dashboard sessions for every copy of
 * the cookie; passwords are hashed with OWASP's scrypt minimum and old hashes are replaced at sign-in;
 * malformed cookies are no cookie on every surface (never a 500); cli_keys are stored hashed and the CLI
 * never receives the team's signing secret.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { cliSigningSecret } from "@/lib/cli-channel/sessions";
import { hashPassword, resetPassword } from "@/lib/dashboard/users";
import { hashCliKey } from "@/lib/teams/cli-key";
import { getSigningSecrets } from "@/lib/teams/signing-secret";
import { BASE_URL, createTestUrl, db, uniqueIp } from "./support/client";
import { AUTH, mergeCookies, newUser, sessionOnly, signInHttp } from "./support/dashboard";
import { newTeam, type TestTeam } from "./support/gateway";

const V = "/api/2025-07-01";
const ORIGIN = new URL(BASE_URL).origin;
let team: TestTeam;

beforeAll(async () => {
  team = await newTeam("credentials");
});

/** A signed-in user of the file's team and its session cookie alone. */
async function signedIn(): Promise<{ user: { id: string; email: string; password: string }; cookie: string }> {
  const user = await newUser(team.teamId);
  const signed = await signInHttp(user.email, user.password);
  expect(signed.error).toBeNull();
  return { user, cookie: sessionOnly(signed.cookie) };
}

/** What the three surfaces that accept the dashboard session answer for `cookie`. */
async function surfaces(cookie: string) {
  const connections = await fetch(`${BASE_URL}${V}/connections`, { headers: { cookie } });
  const page = await fetch(`${BASE_URL}/dashboard/events`, { headers: { cookie }, redirect: "manual" });
  const tenants = await fetch(`${BASE_URL}/outbound/api/v1/tenants`, { headers: { cookie } });
  const location = page.headers.get("location");
  return { connections: connections.status, page: page.status, pageTo: location && new URL(location, BASE_URL).pathname, tenants: tenants.status };
}
const SIGNED_IN = { connections: 200, page: 200, pageTo: null, tenants: 200 };
const REFUSED = { connections: 401, page: 307, pageTo: "/dashboard/sign-in", tenants: 401 };

/** Signs out through next-auth as the dashboard's button does; returns the cookies the browser keeps. */
async function signOut(cookie: string): Promise<string> {
  const csrf = await fetch(`${AUTH}/csrf`, { headers: { cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const out = await fetch(`${AUTH}/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: mergeCookies(cookie, csrf), "content-type": "application/x-www-form-urlencoded", origin: BASE_URL },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  expect(out.status).toBeLessThan(400);
  return mergeCookies(cookie, out);
}

/** `npm run users -- …args` on the test database. */
function users(...args: string[]) {
  const r = spawnSync("npm", ["run", "--silent", "users", "--", ...args], { env: process.env, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("dashboard sessions end on the server", () => {
  it("sign-out: the replayed cookie is refused by the gateway API, the dashboard pages and the outbound admin API", async () => {
    const { cookie } = await signedIn();
    expect(await surfaces(cookie)).toEqual(SIGNED_IN);
    const kept = await signOut(cookie);
    expect(sessionOnly(kept)).toBe("");
    expect(await surfaces(cookie)).toEqual(REFUSED);
    // Not an outbound admin credential any more, not even with the dashboard's own origin.
    const put = await fetch(`${BASE_URL}/outbound/api/v1/tenants/after-sign-out-${Date.now()}`, { method: "PUT", headers: { cookie, origin: ORIGIN } });
    expect(put.status).toBe(401);
    const session = await (await fetch(`${AUTH}/session`, { headers: { cookie } })).json();
    expect(session.user).toBeUndefined();
  });

  it("sign-out ends that session only: the same user's other browser stays signed in", async () => {
    const { user, cookie } = await signedIn();
    const other = sessionOnly((await signInHttp(user.email, user.password)).cookie);
    await signOut(cookie);
    expect(await surfaces(cookie)).toEqual(REFUSED);
    expect(await surfaces(other)).toEqual(SIGNED_IN);
  });

  it("a password reset (resetPassword) ends every session of the user; the new password signs in", async () => {
    const { user, cookie } = await signedIn();
    const other = sessionOnly((await signInHttp(user.email, user.password)).cookie);
    await resetPassword(user.email, "a-completely-new-password");
    expect(await surfaces(cookie)).toEqual(REFUSED);
    expect(await surfaces(other)).toEqual(REFUSED);
    const again = await signInHttp(user.email, "a-completely-new-password");
    expect(again.error).toBeNull();
    expect(await surfaces(sessionOnly(again.cookie))).toEqual(SIGNED_IN);
  });

  it("npm run users -- reset-password, with a password or with a one-time link, ends every session of the user", async () => {
    const a = await signedIn();
    const r = users("reset-password", a.user.email, "another-brand-new-password");
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain("its sessions ended");
    expect(await surfaces(a.cookie)).toEqual(REFUSED);

    const b = await signedIn();
    const link = users("reset-password", b.user.email);
    expect(link.status, link.out).toBe(0);
    expect(link.out).toMatch(/\/dashboard\/sign-in\/link\?token=/);
    expect(await surfaces(b.cookie)).toEqual(REFUSED);
  }, 90_000);
});

describe("dashboard password hashes", () => {
  it("a password stored with the old scrypt cost (N = 2^15) signs in and is rehashed with N = 2^17, which signs in too", async () => {
    const user = await newUser(team.teamId);
    const { rows: fresh } = await db().query("SELECT password_hash FROM dashboard_users WHERE id = $1", [user.id]);
    expect(fresh[0].password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    const old = await hashPassword(user.password, { N: 1 << 15, r: 8, p: 1 });
    await db().query("UPDATE dashboard_users SET password_hash = $2 WHERE id = $1", [user.id, old]);
    expect((await signInHttp(user.email, "not-the-password")).error).toBe("CredentialsSignin");
    expect((await db().query("SELECT password_hash FROM dashboard_users WHERE id = $1", [user.id])).rows[0].password_hash).toBe(old);
    expect((await signInHttp(user.email, user.password)).error).toBeNull();
    const { rows } = await db().query("SELECT password_hash FROM dashboard_users WHERE id = $1", [user.id]);
    expect(rows[0].password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(rows[0].password_hash).not.toBe(old);
    expect((await signInHttp(user.email, user.password)).error).toBeNull();
  }, 60_000);
});

/** Sends one raw request (the header bytes as given) and returns the answer's status code. */
function rawStatus(head: string): Promise<number> {
  const url = new URL(BASE_URL);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(head));
    let data = "";
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
  });
}

describe("malformed cookies are no cookie on every surface, never a 500", () => {
  const BAD = ["%", "%E0%A4%A", "a%00b", "%ZZ", '"%"'];
  const DASH = "hookyard.dashboard-session";

  it.each(BAD)("dashboard session cookie %j: gateway API 401, outbound admin API 401, dashboard page to sign-in, next-auth session empty", async (bad) => {
    const cookie = `${DASH}=${bad}`;
    expect(await surfaces(cookie)).toEqual(REFUSED);
    const session = await fetch(`${AUTH}/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({});
  });

  it.each(BAD)("console session cookie %j: a create starts a new workspace; the pages answer 200", async (bad) => {
    const res = await createTestUrl({ name: "bad-cookie" }, { ip: uniqueIp(), cookie: `hookyard_session=${bad}` });
    expect(res.status).toBe(201);
    expect(res.headers.get("set-cookie")).toMatch(/^hookyard_session=/);
    const id = new URL(res.headers.get("location")!).pathname.slice(1);
    for (const path of ["/", `/${id}`]) expect((await fetch(`${BASE_URL}${path}`, { headers: { cookie: `hookyard_session=${bad}` } })).status).toBe(200);
  });

  it.each(BAD)("portal cookie %j: the outbound API answers 401 and the portal page says there is no session", async (bad) => {
    const cookie = `hy_portal=${bad}; hy_portal_theme=${bad}`;
    expect((await fetch(`${BASE_URL}/outbound/api/v1/tenants/t1/destinations`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${BASE_URL}/portal`, { headers: { cookie } })).status).toBe(200);
  });

  it("empty names, duplicate names and junk around a valid session: the first occurrence of the name decides", async () => {
    const { cookie } = await signedIn();
    const token = cookie.slice(DASH.length + 1);
    expect(await surfaces(`=; =x; ==; junk; ${DASH}=${token}; ${DASH}=%`)).toEqual(SIGNED_IN);
    expect(await surfaces(`${DASH}=%; ${DASH}=${token}`)).toEqual(REFUSED);
    expect(await surfaces(`${DASH}=forged; ${DASH}=${token}`)).toEqual(REFUSED);
  });

  it("very long Cookie headers: within Node's header limit the session still reads; past it, 431 on every surface", async () => {
    const { cookie } = await signedIn();
    const filler = Array.from({ length: 1500 }, (_, i) => `f${i}=%`).join("; ");
    expect(await surfaces(`${filler}; ${cookie}`)).toEqual(SIGNED_IN);
    const huge = `x=${"a".repeat(20_000)}; ${cookie}`;
    for (const path of [`${V}/connections`, "/dashboard/events", "/outbound/api/v1/tenants", "/", "/portal"]) {
      expect((await fetch(`${BASE_URL}${path}`, { headers: { cookie: huge }, redirect: "manual" })).status, path).toBe(431);
    }
  });

  it("NUL or a bare CR inside the Cookie header is refused by the HTTP parser with 400 on every surface", async () => {
    for (const path of [`${V}/connections`, "/dashboard/events", "/outbound/api/v1/tenants", "/", "/portal"]) {
      for (const bad of ["a\u0000b", "a\rb"]) {
        expect(
          await rawStatus(`GET ${path} HTTP/1.1\r\nHost: x\r\nCookie: ${DASH}=${bad}; hookyard_session=${bad}; hy_portal=${bad}\r\nConnection: close\r\n\r\n`),
          `${path} ${JSON.stringify(bad)}`,
        ).toBe(400);
      }
    }
  });
});

describe("cli_key", () => {
  it("the migration replaces every stored plaintext key by its SHA-256, the hash the server looks keys up by", async () => {
    const MIGRATION = "20261125210930_dashboard_sessions_cli_key_hash";
    const adminUrl = process.env.TEST_PG_ADMIN_URL!;
    const name = `hookyard_clikey_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const scratch = new pg.Client({ connectionString: adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`) });
    try {
      await scratch.connect();
      const dirs = readdirSync("prisma/migrations")
        .filter((d) => /^\d{14}_/.test(d))
        .sort();
      expect(dirs).toContain(MIGRATION);
      for (const d of dirs.filter((d) => d < MIGRATION)) await scratch.query(readFileSync(`prisma/migrations/${d}/migration.sql`, "utf8"));
      const keys = ["cli_plaintextKeyOfAnOldTeam0123456789", "cli_plaintextKeyOfAGuest_-0123456789"];
      for (const [i, key] of keys.entries())
        await scratch.query("INSERT INTO teams (id, name, mode, cli_key, updated_at) VALUES ($1, 't', 'TEAM', $2, now())", [`tm_m${i}`, key]);
      await scratch.query(readFileSync(`prisma/migrations/${MIGRATION}/migration.sql`, "utf8"));
      const { rows } = await scratch.query("SELECT id, cli_key_hash FROM teams ORDER BY id");
      expect(rows).toEqual(keys.map((key, i) => ({ id: `tm_m${i}`, cli_key_hash: hashCliKey(key) })));
      const columns = await scratch.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'teams' AND column_name LIKE 'cli%'");
      expect(columns.rows).toEqual([{ column_name: "cli_key_hash" }]);
    } finally {
      await scratch.end().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }, 60_000);

  it("is stored as its SHA-256 only, the same hash the migration computes in SQL, and opens a CLI session", async () => {
    const res = await createTestUrl({ name: "hashed" }, { ip: uniqueIp() });
    const t = (await res.json()) as { cli_key: string; ingest_url: string };
    const { rows } = await db().query(
      "SELECT t.cli_key_hash, encode(sha256(convert_to($1, 'UTF8')), 'hex') AS sql_hash FROM teams t WHERE t.cli_key_hash = $2",
      [t.cli_key, hashCliKey(t.cli_key)],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].cli_key_hash).toBe(rows[0].sql_hash);
    expect(rows[0].cli_key_hash).not.toContain(t.cli_key);
    const { rows: plain } = await db().query("SELECT count(*)::int AS n FROM teams WHERE cli_key_hash LIKE 'cli%'");
    expect(plain[0].n).toBe(0);
    const opened = await fetch(`${BASE_URL}/cli/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.cli_key}`, "content-type": "application/json" },
      body: '{"source_name":"hashed"}',
    });
    expect(opened.status).toBe(200);
  });

  it("POST /cli/sessions gives the CLI its forwarding secret, never the team's signing secret", async () => {
    const opened = await fetch(`${BASE_URL}/cli/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.cliKey}`, "content-type": "application/json" },
      body: '{"source_name":"secret-check"}',
    });
    expect(opened.status).toBe(200);
    const text = await opened.text();
    const { current } = await getSigningSecrets(team.teamId);
    expect(text).not.toContain(current);
    expect(JSON.parse(text).signing_secret).toBe(cliSigningSecret(current));
  });

  it("a guest workspace whose stored key predates hashing gets its derived key at the owner's next create; the old key stops working", async () => {
    const first = await createTestUrl({ name: "upgrade" }, { ip: uniqueIp() });
    const cookie = first.headers.get("set-cookie")!.split(";")[0];
    const t = (await first.json()) as { cli_key: string; cmd_hint: string };
    const teamId = (await db().query("SELECT id FROM teams WHERE cli_key_hash = $1", [hashCliKey(t.cli_key)])).rows[0].id;
    const legacy = "cli_legacyPlaintextKeyOfAnOlderVersion";
    // What the migration leaves for a key issued before: the hash of a key the server can no longer show.
    await db().query("UPDATE teams SET cli_key_hash = encode(sha256(convert_to($2, 'UTF8')), 'hex') WHERE id = $1", [teamId, legacy]);
    const open = (key: string) =>
      fetch(`${BASE_URL}/cli/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: '{"source_name":"upgrade"}',
      });
    expect((await open(legacy)).status).toBe(200);
    expect((await open(t.cli_key)).status).toBe(401);
    const second = (await (await createTestUrl({ name: "upgrade-2" }, { ip: uniqueIp(), cookie })).json()) as { cli_key: string; cmd_hint: string };
    expect(second.cli_key).toBe(t.cli_key);
    expect(second.cmd_hint).toContain(`--cli-key ${t.cli_key} `);
    expect((await open(t.cli_key)).status).toBe(200);
    expect((await open(legacy)).status).toBe(401);
  });

  it("cmd_hint runs the clone's own file, never a registry package by name", async () => {
    const t = (await (await createTestUrl({}, { ip: uniqueIp() })).json()) as { cli_key: string; cmd_hint: string };
    expect(t.cmd_hint.startsWith("node cli/hookyard.mjs listen [port] <source-name> --cli-key ")).toBe(true);
    expect(t.cmd_hint).not.toMatch(/^npx hookyard/);
  });

  it("a package named hookyard on the registry never runs from the hint, even when npx may install (a plain `npx hookyard` would run it)", async () => {
    // A registry on loopback that serves a `hookyard` package whose bin writes a marker file.
    const dir = mkdtempSync(path.join(os.tmpdir(), "hookyard-npx-"));
    const asked: string[] = [];
    const server = http.createServer();
    try {
      mkdirSync(path.join(dir, "package"));
      mkdirSync(path.join(dir, "work"));
      writeFileSync(path.join(dir, "package", "package.json"), JSON.stringify({ name: "hookyard", version: "9.9.9", bin: { hookyard: "bin.js" } }));
      writeFileSync(
        path.join(dir, "package", "bin.js"),
        "#!/usr/bin/env node\nrequire('fs').writeFileSync(process.env.HOOKYARD_TEST_MARKER, process.argv.slice(2).join(' '));\n",
        { mode: 0o755 },
      );
      expect(spawnSync("tar", ["-czf", "hookyard-9.9.9.tgz", "package"], { cwd: dir }).status).toBe(0);
      const tgz = readFileSync(path.join(dir, "hookyard-9.9.9.tgz"));
      server.on("request", (req, res) => {
        asked.push(req.url ?? "");
        const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
        if (req.url === "/hookyard") {
          const dist = { tarball: `${base}/hookyard/-/hookyard-9.9.9.tgz`, integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}` };
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              name: "hookyard",
              "dist-tags": { latest: "9.9.9" },
              versions: { "9.9.9": { name: "hookyard", version: "9.9.9", bin: { hookyard: "bin.js" }, dist } },
            }),
          );
        } else if (req.url === "/hookyard/-/hookyard-9.9.9.tgz") {
          res.writeHead(200, { "content-type": "application/octet-stream" }).end(tgz);
        } else res.writeHead(404).end("{}");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const registry = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
      const run = (command: string, marker: string) =>
        new Promise<number | null>((resolve) => {
          // npm_config_yes: as a user who answers npx's "Ok to proceed?" with yes (the hint told them to run it).
          const env = {
            ...process.env,
            npm_config_yes: "true",
            npm_config_registry: registry,
            npm_config_cache: path.join(dir, `cache-${marker}`),
            npm_config_update_notifier: "false",
            HOOKYARD_TEST_MARKER: path.join(dir, marker),
          };
          const child = spawn("sh", ["-c", `exec ${command} </dev/null`], { cwd: path.join(dir, "work"), env, stdio: "ignore" });
          const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
          child.on("exit", (code) => (clearTimeout(timer), resolve(code)));
        });

      // Control: the old hint's form fetches and runs the registry's package (given the cli_key), so this test can fail.
      await run("npx hookyard listen 1 x --cli-key cli_control", "control");
      expect(existsSync(path.join(dir, "control"))).toBe(true);
      expect(readFileSync(path.join(dir, "control"), "utf8")).toContain("--cli-key cli_control");

      asked.length = 0;
      const t = (await (await createTestUrl({}, { ip: uniqueIp() })).json()) as { cli_key: string; cmd_hint: string; name: string };
      const code = await run(t.cmd_hint.replace("[port]", "1").replace("<source-name>", "x"), "hint");
      expect(code).not.toBe(0);
      expect(existsSync(path.join(dir, "hint"))).toBe(false);
      expect(asked.filter((u) => u.includes("/-/"))).toEqual([]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
