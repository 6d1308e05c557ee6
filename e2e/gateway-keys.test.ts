/**
 * An operator gets a working key without reading the database (issue 3 "Teams and credentials"):
 * GATEWAY_API_KEY pins a key on start, and `npm run keys` creates, lists (prefixes only) and revokes
 * keys and rotates the signing secret.
 */
import { spawnSync } from "node:child_process";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { decryptSecret } from "@/lib/crypto/secrets";
import { startServer } from "./support/servers";
import { db } from "./support/client";
import { api } from "./support/gateway";

const adminUrl = process.env.TEST_PG_ADMIN_URL!;
const dbName = `hookyard_keys_${Date.now()}`;
const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${dbName}$1`);
const stops: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const stop of stops) await stop();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
});

function keys(...args: string[]) {
  const r = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/keys.ts", ...args], { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("gateway keys", () => {
  it("a server started on an empty database with GATEWAY_API_KEY accepts that key; npm run keys creates, lists, revokes and rotates", async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}"`);
    await admin.end();
    const pinned = "hky_pinned_key_for_tests_0123456789";
    const server = await startServer({ DATABASE_URL: url, GATEWAY_API_KEY: pinned });
    stops.push(server.stop);
    expect(server.output()).toContain("created the gateway team");
    expect(server.output()).not.toContain(pinned);
    const call = async (key: string) => (await fetch(`${server.url}/api/2025-07-01/sources`, { headers: { authorization: `Bearer ${key}` } })).status;
    expect(await call(pinned)).toBe(200);

    const created = keys("create", "ci");
    expect(created.status).toBe(0);
    const key = /\n(hky_[A-Za-z0-9_-]{40})/.exec(created.out)?.[1];
    expect(key).toBeDefined();
    expect(await call(key!)).toBe(200);

    const listed = keys("list");
    expect(listed.status).toBe(0);
    expect(listed.out).toContain(key!.slice(0, 12));
    expect(listed.out).not.toContain(key!);
    expect(listed.out).not.toContain(pinned);
    expect(listed.out).toContain("GATEWAY_API_KEY");

    expect(keys("revoke", key!.slice(0, 12)).status).toBe(0);
    expect(await call(key!)).toBe(401);
    expect(await call(pinned)).toBe(200);
    expect(keys("revoke", "hky_nothing_like_this").status).toBe(1);

    const rotated = keys("rotate-secret", "2");
    expect(rotated.status).toBe(0);
    const secret = /new signing secret \(shown once\): (\S+)/.exec(rotated.out)?.[1];
    expect(secret).toBeDefined();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      "SELECT signing_secret_encrypted AS s, previous_signing_secret_encrypted AS p, previous_signing_secret_expires_at AS e FROM teams WHERE mode = 'TEAM'",
    );
    await client.end();
    expect(rows).toHaveLength(1);
    // Encrypted at rest; the printed secret is the current one, the previous one still signs for 2 h.
    expect(rows[0].s).not.toContain(secret);
    expect(decryptSecret(rows[0].s)).toBe(secret);
    expect(decryptSecret(rows[0].p)).not.toBe(secret);
    const left = rows[0].e.getTime() - Date.now();
    expect(left).toBeGreaterThan(7_000_000);
    expect(left).toBeLessThanOrEqual(7_200_000);
  }, 120_000);

  it("keys are stored hashed: the api_keys table never holds a key", async () => {
    const team = await (await import("./support/gateway")).newTeam("hashed");
    const { rows } = await db().query("SELECT key_hash, prefix FROM api_keys WHERE team_id = $1", [team.teamId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].key_hash).not.toContain(team.apiKey);
    expect(team.apiKey.startsWith(rows[0].prefix)).toBe(true);
    expect((await api(team, "GET", "/2025-07-01/sources/count")).status).toBe(200);
  });
});
