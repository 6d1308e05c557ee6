/**
 * The operator commands on the test database (docs/operations.md "Teams and users"): `npm run teams`
 * creates (printing the id alone on stdout), lists and deletes teams, refusing the gateway team and a
 * team with sources in one sentence with a non-zero exit; `npm run keys -- create --team` makes a key
 * that works at once on the API as that team, `revoke` ends it; `npm run users -- create --team` makes a
 * member of that team (an operator with --operator); an unknown team is one sentence and exit 1.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, gatewayTeam } from "./support/gateway";

/** `npm run --silent <script> -- …args` on the test database: exit status, stdout, stderr. */
function run(script: string, ...args: string[]): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script, "--", ...args], { env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (status) => resolve({ status, out, err }));
  });
}

describe("npm run teams, keys --team, users --team", () => {
  // Each command is a process of its own (tsx): several seconds apiece on a busy 2-core machine.
  it("a team made on the command line gets a working key and a member; then it is deleted", { timeout: 240_000 }, async () => {
    const created = await run("teams", "create", "CLI", "team");
    expect(created.status, created.err).toBe(0);
    const teamId = created.out.trim();
    expect(teamId).toMatch(/^tm_[A-Za-z0-9]+$/);
    expect(created.err).toContain("signing secret:");
    expect((await db().query("SELECT name, mode FROM teams WHERE id = $1", [teamId])).rows[0]).toEqual({ name: "CLI team", mode: "TEAM" });

    const list = await run("teams", "list");
    const [key, user, op, unknown] = await Promise.all([
      run("keys", "create", "ci", "--team", teamId),
      run("users", "create", "--team", teamId, `cli-${teamId}@example.test`, "a-long-enough-password"),
      run("users", "create", "--team", teamId, "--operator", `op-${teamId}@example.test`, "a-long-enough-password"),
      run("keys", "create", "--team", "tm_doesnotexist"),
    ]);
    expect(list.status).toBe(0);
    expect(list.out).toMatch(new RegExp(`^${teamId}  CLI team  created \\S+  0 key\\(s\\)  0 user\\(s\\)$`, "m"));
    expect(list.out).toMatch(/\(gateway team\)$/m);

    expect(key.status, key.err).toBe(0);
    const apiKey = /^(hky_[A-Za-z0-9_-]{40})$/m.exec(key.out)![1];
    const made = await api({ apiKey }, "POST", "/2025-07-01/sources", { name: "cli-src" });
    expect(made.status).toBe(200);
    expect((await db().query("SELECT team_id FROM sources WHERE id = $1", [made.json.id])).rows[0].team_id).toBe(teamId);

    expect(user.status, user.err).toBe(0);
    expect(op.status, op.err).toBe(0);
    const { rows: users } = await db().query("SELECT email, operator FROM dashboard_users WHERE team_id = $1 ORDER BY email", [teamId]);
    expect(users).toEqual([
      { email: `cli-${teamId}@example.test`.toLowerCase(), operator: false },
      { email: `op-${teamId}@example.test`.toLowerCase(), operator: true },
    ]);

    expect(unknown.status).toBe(1);
    expect(unknown.err.trim()).toBe("There is no team tm_doesnotexist (see the list of teams).");

    const [refused, gateway, revoke] = await Promise.all([
      run("teams", "delete", teamId),
      gatewayTeam().then((g) => run("teams", "delete", g.teamId)),
      run("keys", "revoke", apiKey.slice(0, 12)),
    ]);
    expect(refused.status).toBe(1);
    expect(refused.err.trim()).toMatch(/^Team tm_\S+ still has 1 source\(s\) and 0 destination\(s\); delete them first/);
    expect(gateway.status).toBe(1);
    expect(gateway.err).toMatch(/is the gateway team/);
    expect(revoke.status).toBe(0);
    expect((await api({ apiKey }, "GET", "/2025-07-01/sources")).status).toBe(401);

    await db().query("DELETE FROM sources WHERE id = $1", [made.json.id]);
    const deleted = await run("teams", "delete", teamId);
    expect(deleted.status, deleted.err).toBe(0);
    expect(deleted.out).toContain(`deleted team ${teamId} (CLI team) with 1 API key(s) and 2 dashboard user(s)`);
    expect((await db().query("SELECT 1 FROM teams WHERE id = $1", [teamId])).rowCount).toBe(0);
  });

  it("usage errors exit 2 with the usage line", async () => {
    const [bad, missing] = await Promise.all([run("teams", "frobnicate"), run("users", "create", "--team")]);
    expect(bad.status).toBe(2);
    expect(bad.err).toContain("usage: npm run teams -- list | create <name> | delete <id>");
    expect(missing.status).toBe(2);
    expect(missing.err).toContain("usage: npm run users");
  });
});
