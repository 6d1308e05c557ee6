/**
 * Teams and operators in the dashboard (docs/operations.md "Teams and users", "System page"): a member's
 * session sees its own team's sources, requests and events only, never another team's, and never the
 * outbound service; the operator-only endpoints under /dashboard/api answer 401 without a session, 403 to
 * a member and to a cross-site request; an operator creates a team, a key that works at once as that team
 * and is then revoked, and a member user of it; deleting a team is refused while it has sources, and for
 * the gateway team; the system report counts a due job with its age and lists the largest tables.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, db } from "./support/client";
import { newUser, sessionOnly, signInHttp } from "./support/dashboard";
import { api, gatewayTeam, newTeam, type TestTeam } from "./support/gateway";
import { eventually } from "./support/receiver";

const V = "/2025-07-01";
const ORIGIN = new URL(BASE_URL).origin;
let teamA: TestTeam;
let teamB: TestTeam;
let memberA: string;
let memberB: string;
let operator: string;
let sourceA: { id: string; url: string };
let requestA: string;
let eventA: string;

/** A signed-in session cookie of a new user of `teamId`. */
async function session(teamId: string, isOperator: boolean): Promise<string> {
  const u = await newUser(teamId, undefined, { operator: isOperator });
  const signed = await signInHttp(u.email, u.password);
  expect(signed.error).toBeNull();
  return sessionOnly(signed.cookie);
}

/** A dashboard API call with a cookie (and the dashboard's own Origin unless `origin` says otherwise). */
async function dash(cookie: string | null, method: string, path: string, body?: unknown, origin = ORIGIN) {
  const res = await fetch(`${BASE_URL}/dashboard/api${path}`, {
    method,
    headers: { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch((): any => null) };
}

beforeAll(async () => {
  teamA = await newTeam("teams A");
  teamB = await newTeam("teams B");
  [memberA, memberB, operator] = await Promise.all([session(teamA.teamId, false), session(teamB.teamId, false), session(teamB.teamId, true)]);
  // Team A: a connection to a destination that does not answer, and one request through it.
  const conn = await api(teamA, "POST", `${V}/connections`, {
    name: "a-conn",
    source: { name: "a-src" },
    destination: { name: "a-dst", config: { url: "http://127.0.0.1:9/never" } },
  });
  expect(conn.status).toBe(200);
  sourceA = { id: conn.json.source.id, url: conn.json.source.url };
  const sent = await fetch(sourceA.url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
  expect(sent.status).toBe(200);
  requestA = (await sent.json()).request_id;
  eventA = await eventually(async () => (await api(teamA, "GET", `${V}/events?source_id=${sourceA.id}`)).json.models[0]?.id);
});

describe("a member's session sees its own team only", () => {
  it("team A's member sees A's source, request and event", async () => {
    const cookie = { cookie: memberA };
    expect((await api(null, "GET", `${V}/sources/${sourceA.id}`, undefined, cookie)).status).toBe(200);
    expect((await api(null, "GET", `${V}/requests/${requestA}`, undefined, cookie)).status).toBe(200);
    expect((await api(null, "GET", `${V}/events/${eventA}`, undefined, cookie)).status).toBe(200);
  });

  it("team B's member (and team B's operator) never see team A's sources, requests or events", async () => {
    for (const cookie of [memberB, operator]) {
      const h = { cookie };
      for (const path of ["sources", "requests", "events"]) {
        const list = await api(null, "GET", `${V}/${path}?limit=250`, undefined, h);
        expect(list.status).toBe(200);
        const ids = list.json.models.map((m: { id: string }) => m.id);
        expect(ids).not.toContain({ sources: sourceA.id, requests: requestA, events: eventA }[path]);
      }
      expect((await api(null, "GET", `${V}/sources/${sourceA.id}`, undefined, h)).status).toBe(404);
      expect((await api(null, "GET", `${V}/requests/${requestA}`, undefined, h)).status).toBe(404);
      expect((await api(null, "GET", `${V}/events/${eventA}`, undefined, h)).status).toBe(404);
      expect((await api(null, "GET", `${V}/events?source_id=${sourceA.id}`, undefined, h)).json.models).toEqual([]);
    }
  });

  it("a member's session is refused by the outbound service (403); an operator's works", async () => {
    const tenant = `teams-${Date.now()}`;
    const member = await fetch(`${BASE_URL}/outbound/api/v1/tenants/${tenant}`, { method: "PUT", headers: { cookie: memberA, origin: ORIGIN } });
    expect(member.status).toBe(403);
    const op = await fetch(`${BASE_URL}/outbound/api/v1/tenants/${tenant}`, { method: "PUT", headers: { cookie: operator, origin: ORIGIN } });
    expect([200, 201]).toContain(op.status);
  });
});

describe("the operator-only endpoints", () => {
  it.each(["/teams", "/system"])("GET %s: 401 signed out, 403 for a member, 200 for an operator", async (path) => {
    expect((await dash(null, "GET", path)).status).toBe(401);
    const member = await dash(memberA, "GET", path);
    expect(member.status).toBe(403);
    expect(member.json).toEqual({ status: 403, message: "Only operators may do this." });
    expect((await dash(operator, "GET", path)).status).toBe(200);
  });

  it("unsafe methods: 403 for a member and for an operator's cross-site request, nothing created", async () => {
    const name = `cross-site-${Date.now()}`;
    expect((await dash(memberA, "POST", "/teams", { name })).status).toBe(403);
    expect((await dash(operator, "POST", "/teams", { name }, "https://evil.example")).status).toBe(403);
    expect((await db().query("SELECT 1 FROM teams WHERE name = $1", [name])).rowCount).toBe(0);
  });

  it("bad bodies are 4xx with one sentence, never a 500", async () => {
    expect((await dash(operator, "POST", "/teams", { name: "  " })).status).toBe(422);
    expect((await dash(operator, "POST", "/teams", { nom: "x" })).status).toBe(422);
    const notJson = await fetch(`${BASE_URL}/dashboard/api/teams`, { method: "POST", headers: { cookie: operator, origin: ORIGIN }, body: "{" });
    expect(notJson.status).toBe(400);
    expect((await dash(operator, "POST", "/teams/tm_nope/keys", {})).status).toBe(404);
    expect((await dash(operator, "POST", `/teams/${teamA.teamId}/users`, { email: "not-an-email" })).status).toBe(422);
  });
});

describe("an operator manages teams", () => {
  it("creates a team, a key that works as that team at once, revokes it, and adds a member who sees that team only", async () => {
    const created = await dash(operator, "POST", "/teams", { name: "  Payments  " });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "Payments", id: expect.stringMatching(/^tm_/), signing_secret: expect.any(String) });
    expect(created.json.cli_key).toMatch(/^cli_/);
    const teamId: string = created.json.id;

    const key = await dash(operator, "POST", `/teams/${teamId}/keys`, { name: "ci" });
    expect(key.status).toBe(201);
    expect(key.json.key).toMatch(/^hky_/);
    expect(key.json.prefix).toBe(key.json.key.slice(0, 12));
    const made = await api({ apiKey: key.json.key }, "POST", `${V}/sources`, { name: "pay-src" });
    expect(made.status).toBe(200);
    expect((await db().query("SELECT team_id FROM sources WHERE id = $1", [made.json.id])).rows[0].team_id).toBe(teamId);

    const listed = (await dash(operator, "GET", "/teams")).json.models.find((t: { id: string }) => t.id === teamId);
    expect(listed).toMatchObject({ name: "Payments", api_keys: 1, users: 0, gateway: false });
    expect(JSON.stringify(listed)).not.toContain(key.json.key);

    // Another team's id in the path never reaches this team's key.
    expect((await dash(operator, "DELETE", `/teams/${teamA.teamId}/keys/${key.json.id}`)).status).toBe(404);
    expect((await dash(operator, "DELETE", `/teams/${teamId}/keys/${key.json.id}`)).status).toBe(200);
    expect((await api({ apiKey: key.json.key }, "GET", `${V}/sources`)).status).toBe(401);
    expect((await dash(operator, "DELETE", `/teams/${teamId}/keys/${key.json.id}`)).status).toBe(404);

    const email = `pay-${Date.now()}@example.test`;
    const user = await dash(operator, "POST", `/teams/${teamId}/users`, { email, password: "a-long-enough-password" });
    expect(user.status).toBe(201);
    expect(user.json).toMatchObject({ email, operator: false, has_password: true, sign_in_link: null });
    expect((await dash(operator, "POST", `/teams/${teamId}/users`, { email })).status).toBe(409);
    const cookie = sessionOnly((await signInHttp(email, "a-long-enough-password")).cookie);
    const sources = await api(null, "GET", `${V}/sources`, undefined, { cookie });
    expect(sources.json.models.map((s: { id: string }) => s.id)).toEqual([made.json.id]);
    expect((await dash(cookie, "GET", "/system")).status).toBe(403);

    const linked = await dash(operator, "POST", `/teams/${teamId}/users`, { email: `link-${email}`, operator: true });
    expect(linked.json).toMatchObject({ operator: true, has_password: false });
    expect(linked.json.sign_in_link).toMatch(/\/dashboard\/sign-in\/link\?token=/);

    // Delete: refused while the team has a source, then done once it is gone (its users go with it).
    const refused = await dash(operator, "DELETE", `/teams/${teamId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/still has 1 source/);
    await db().query("DELETE FROM sources WHERE id = $1", [made.json.id]);
    expect((await dash(operator, "DELETE", `/teams/${teamId}`)).status).toBe(200);
    expect((await db().query("SELECT 1 FROM dashboard_users WHERE team_id = $1", [teamId])).rowCount).toBe(0);
    expect((await api(null, "GET", `${V}/sources`, undefined, { cookie })).status).toBe(401);
  });

  it("the gateway team cannot be deleted", async () => {
    const gateway = await gatewayTeam();
    const res = await dash(operator, "DELETE", `/teams/${gateway.teamId}`);
    expect(res.status).toBe(409);
    expect(res.json.message).toMatch(/is the gateway team/);
    expect((await db().query("SELECT 1 FROM teams WHERE id = $1", [gateway.teamId])).rowCount).toBe(1);
  });
});

describe("the system report", () => {
  it("counts a due job with its age, shows the processes, the database's largest tables and the retention", async () => {
    // A job of a task no worker runs, due an hour ago: it waits in the queue for as long as it exists.
    const { rows } = await db().query<{ id: string }>(
      "SELECT (graphile_worker.add_job('hookyard-test-never-run', '{}'::json, run_at => now() - interval '1 hour')).id::text AS id",
    );
    try {
      const r = await dash(operator, "GET", "/system");
      expect(r.status).toBe(200);
      expect(r.json.queues.gateway.jobs.due).toBeGreaterThanOrEqual(1);
      expect(r.json.queues.gateway.jobs.oldest_due_seconds).toBeGreaterThanOrEqual(3590);
      expect(r.json.queues.gateway.events.pending).toBeGreaterThanOrEqual(r.json.queues.gateway.events.due);
      expect(Object.keys(r.json.queues.outbound.deliveries).sort()).toEqual(["due", "oldest_due_seconds", "pending"]);
      expect(r.json.processes.parts.web.state).toBe("up");
      expect(r.json.processes.parts.database.state).toBe("up");
      const { rows: size } = await db().query<{ bytes: string }>("SELECT pg_database_size(current_database()) AS bytes");
      expect(r.json.database.bytes).toBeGreaterThan(Number(size[0].bytes) * 0.5);
      const largest: { table: string; bytes: number; partition_of: string | null }[] = r.json.database.largest;
      expect(largest.length).toBe(10);
      expect([...largest].sort((a, b) => b.bytes - a.bytes).map((t) => t.bytes)).toEqual(largest.map((t) => t.bytes));
      const { rows: biggest } = await db().query<{ relname: string }>(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 1",
      );
      expect(largest.map((t) => t.table)).toContain(biggest[0].relname);
      expect(r.json.retention).toEqual({ days: 30, keeps_forever: false });
    } finally {
      await db().query("DELETE FROM graphile_worker._private_jobs WHERE id = $1::bigint", [rows[0].id]);
    }
  });
});

describe('the Settings endpoints (docs/dashboard.md "Settings")', () => {
  it("act on the signed-in user's own team: a member makes and revokes its team's key, adds a member but no operator, never touches another team's key", async () => {
    expect((await dash(null, "GET", "/settings")).status).toBe(401);
    const mine = await dash(memberA, "GET", "/settings");
    expect(mine.status).toBe(200);
    expect(mine.json.team.id).toBe(teamA.teamId);
    expect(mine.json.operator).toBe(false);
    // Outbound settings and portal branding are for operators only.
    expect(mine.json.outbound).toBeUndefined();
    expect((await dash(operator, "GET", "/settings")).json.portal.brand_color).toMatch(/^#[0-9a-f]{3,8}$/i);

    const made = await dash(memberA, "POST", "/settings/keys", { name: "member key" });
    expect(made.status).toBe(201);
    expect((await api({ apiKey: made.json.key }, "GET", `${V}/sources`)).json.models.map((s: { id: string }) => s.id)).toContain(sourceA.id);
    // Team B's member cannot revoke it (404, as for a key that does not exist), nor from another origin.
    expect((await dash(memberB, "DELETE", `/settings/keys/${made.json.id}`)).status).toBe(404);
    expect((await dash(memberA, "DELETE", `/settings/keys/${made.json.id}`, undefined, "https://evil.example")).status).toBe(403);
    expect((await dash(memberA, "DELETE", `/settings/keys/${made.json.id}`)).status).toBe(200);
    expect((await api({ apiKey: made.json.key }, "GET", `${V}/sources`)).status).toBe(401);

    expect((await dash(memberA, "POST", "/settings/users", { email: `s-op-${Date.now()}@example.test`, operator: true })).status).toBe(403);
    const added = await dash(memberA, "POST", "/settings/users", { email: `s-member-${Date.now()}@example.test` });
    expect(added.status).toBe(201);
    expect(added.json.operator).toBe(false);
    expect(added.json.sign_in_link).toContain("/dashboard/sign-in/link?token=");
    expect((await dash(memberA, "GET", "/settings")).json.team.members.map((m: { email: string }) => m.email)).toContain(added.json.email);
    expect((await dash(memberA, "POST", "/settings/users", { email: "not an email" })).status).toBe(422);
  });
});
