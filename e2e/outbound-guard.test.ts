/**
 * What an outbound tenant may reach (docs/outbound.md "The gateway type", "Destinations and their types"):
 * - `gateway` destinations target only sources of the team linked to the outbound service (by default the
 *   gateway team; OUTBOUND_GATEWAY_TEAMS), with the admin key and with a tenant's JWT (the portal's
 *   credential), on create and on update; one stored before that rule delivers nothing; what is delivered
 *   goes through the source's own verification (signed by Hookyard with the source's secret when it can).
 * - RabbitMQ destinations connect through the delivery address guard: on a server of its own with
 *   private networks off, metadata, private and loopback targets (literal or resolved) fail with
 *   `host_unreachable` without a connection and without internal details.
 * - `custom_headers` values that would fail every delivery (CR, LF, control characters) are a 422.
 */
import { createHmac, randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/teams/api-keys";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL, db } from "./support/client";
import { api, gatewayTeam, newTeam, type TestTeam } from "./support/gateway";
import { eventually } from "./support/receiver";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

const run = randomBytes(4).toString("hex");
let admin = "";
const T1 = `guard1-${run}`;
const T2 = `guard2-${run}`;
let jwt1 = "";

async function call(token: string, method: string, path: string, body?: unknown, base = BASE_URL) {
  const res = await fetch(`${base}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** A new source of `team` through the gateway API (`base`: another server's). */
async function source(team: TestTeam | { apiKey: string }, body: Record<string, unknown> = {}, base?: string): Promise<string> {
  const name = `s-${run}-${randomBytes(3).toString("hex")}`;
  if (base) {
    const res = await fetch(`${base}/api/2025-07-01/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name, ...body }),
    });
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json.id;
  }
  const res = await api(team, "POST", "/2025-07-01/sources", { name, ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.id;
}

const notAllowed = (id: string) => ({
  status: 422,
  message: "validation error",
  data: [`config.source_id: ${id} is not a source of the gateway team linked to the outbound service (OUTBOUND_GATEWAY_TEAMS)`],
});

/** The attempts of event `eventId` once there are `n`, with their response data. */
const attemptsOf = (token: string, eventId: string, n = 1, base = BASE_URL) =>
  eventually(async () => {
    const { json } = await call(token, "GET", `/attempts?event_id=${eventId}&include=response_data`, undefined, base);
    return json.models.length >= n ? json.models : null;
  }, 20_000);

const requestsOf = async (sourceId: string) =>
  (
    await db().query<{ verified: boolean; rejection_cause: string | null; headers: Record<string, string>; body: Buffer }>(
      "SELECT r.verified, r.rejection_cause, d.headers, d.body FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.source_id = $1",
      [sourceId],
    )
  ).rows;

beforeAll(async () => {
  admin = (await createOutboundKey(`guard-${run}`)).key;
  for (const t of [T1, T2]) expect((await call(admin, "PUT", `/tenants/${t}`)).status).toBeLessThan(300);
  jwt1 = (await call(admin, "GET", `/tenants/${T1}/token`)).json.token;
});

describe("gateway destinations reach only the linked team's sources", () => {
  let teamA: TestTeam; // the gateway team: linked by default
  let teamB: TestTeam; // another team
  beforeAll(async () => {
    teamA = await gatewayTeam();
    teamB = await newTeam(`guard-other-${run}`);
  });

  it("create and update, with a tenant's JWT and with the admin key: another team's source is a 422; the linked team's is accepted", async () => {
    const srcA = await source(teamA);
    const srcB = await source(teamB);
    const unknown = `src_${"x".repeat(22)}`;
    for (const token of [jwt1, admin]) {
      for (const id of [srcB, unknown]) {
        const r = await call(token, "POST", `/tenants/${T1}/destinations`, { type: "gateway", topics: ["x"], config: { source_id: id } });
        expect(r.status).toBe(422);
        expect(r.json).toEqual(notAllowed(id));
      }
    }
    const created = await call(jwt1, "POST", `/tenants/${T1}/destinations`, { type: "gateway", topics: ["x"], config: { source_id: srcA } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    for (const token of [jwt1, admin]) {
      const r = await call(token, "PATCH", `/tenants/${T1}/destinations/${created.json.id}`, { config: { source_id: srcB } });
      expect(r.status).toBe(422);
      expect(r.json).toEqual(notAllowed(srcB));
    }
    expect((await call(admin, "GET", `/tenants/${T1}/destinations/${created.json.id}`)).json.config).toEqual({ source_id: srcA });
    expect((await call(jwt1, "PATCH", `/tenants/${T1}/destinations/${created.json.id}`, { topics: ["y"] })).status).toBe(200);
  });

  it("a destination stored with another team's source (before the rule) delivers nothing there: source_not_allowed", async () => {
    const srcB = await source(teamB);
    const id = `des_guard${run}`;
    await db().query("INSERT INTO outbound_destinations (id, tenant_id, type, topics, config) VALUES ($1, $2, 'gateway', $3, $4)", [
      id,
      T2,
      [`old-${run}`],
      JSON.stringify({ source_id: srcB }),
    ]);
    const p = await call(admin, "POST", "/publish", { tenant_id: T2, topic: `old-${run}`, eligible_for_retry: false, data: { x: 1 } });
    expect(p.json.destination_ids).toEqual([id]);
    const [attempt] = await attemptsOf(admin, p.json.id);
    expect(attempt).toMatchObject({ status: "failed", code: "source_not_allowed", destination_id: id });
    expect(attempt.response_data.body).not.toContain(teamB.teamId);
    expect(await requestsOf(srcB)).toEqual([]);
  });

  it("deliveries go through the source's verification: signed with its HMAC secret (verified), unsigned for a provider scheme (401), unverified without one", async () => {
    const hmacAuth = { algorithm: "sha256", encoding: "hex", header_key: "X-Signature", webhook_secret_key: `secret-${run}` };
    const signed = await source(teamA, { config: { auth_type: "HMAC", auth: hmacAuth } });
    const gitlab = await source(teamA, { type: "GITLAB", config: { auth: { api_key: `token-${run}` } } });
    const plain = await source(teamA);
    const topics = { [signed]: `signed-${run}`, [gitlab]: `gitlab-${run}`, [plain]: `plain-${run}` };
    for (const [src, topic] of Object.entries(topics)) {
      const d = await call(jwt1, "POST", `/tenants/${T1}/destinations`, { type: "gateway", topics: [topic], config: { source_id: src } });
      expect(d.status, JSON.stringify(d.json)).toBe(201);
    }
    const publish = async (src: string) =>
      (await call(admin, "POST", "/publish", { tenant_id: T1, topic: topics[src], eligible_for_retry: false, data: { src } })).json.id as string;

    const [ok] = await attemptsOf(admin, await publish(signed));
    expect(ok).toMatchObject({ status: "success", code: "200" });
    const [req] = await requestsOf(signed);
    expect(req).toMatchObject({ verified: true, rejection_cause: "NO_CONNECTION" }); // verified; no connection of its own to feed
    expect(req.headers["x-signature"]).toBe(createHmac("sha256", hmacAuth.webhook_secret_key).update(req.body).digest("hex"));

    const [refused] = await attemptsOf(admin, await publish(gitlab));
    expect(refused).toMatchObject({ status: "failed", code: "401" });
    expect(await requestsOf(gitlab)).toMatchObject([{ verified: false, rejection_cause: "VERIFICATION_FAILED" }]);

    await attemptsOf(admin, await publish(plain));
    expect(await requestsOf(plain)).toMatchObject([{ verified: false }]);
  });
});

describe("custom_headers values", () => {
  it("CR, LF or another control character in a value is a 422 at create and at update; a tab is not", async () => {
    const url = "https://hooks.example.com/in";
    for (const value of ["a\r\nx-injected: 1", "a\nb", "a\rb", "a\u0001b", "a\u007fb", "€"]) {
      for (const headers of [{ "x-team": value }, JSON.stringify({ "x-team": value })]) {
        const r = await call(jwt1, "POST", `/tenants/${T1}/destinations`, { type: "webhook", topics: ["h"], config: { url, custom_headers: headers } });
        expect(r.status, JSON.stringify(value)).toBe(422);
        expect(r.json.data).toEqual([
          "config.custom_headers.x-team must not contain CR, LF or other control characters (tab excepted), nor characters beyond U+00FF",
        ]);
      }
    }
    const d = await call(admin, "POST", `/tenants/${T1}/destinations`, {
      type: "standard_webhook",
      topics: ["h"],
      config: { url, custom_headers: { "x-team": "blue\tgreen é" } },
    });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    const patched = await call(jwt1, "PATCH", `/tenants/${T1}/destinations/${d.json.id}`, { config: { custom_headers: { "x-team": "a\r\nb" } } });
    expect(patched.status).toBe(422);
    expect((await call(admin, "GET", `/tenants/${T1}/destinations/${d.json.id}`)).json.config.custom_headers).toBe('{"x-team":"blue\\tgreen é"}');
  });
});

/** A TCP listener on 127.0.0.1 that counts the connections it gets (and closes them). */
async function countingListener() {
  let connections = 0;
  const server = net.createServer((s) => {
    connections += 1;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections, close: () => new Promise((r) => server.close(r)) };
}

describe("RabbitMQ destinations and the address guard", () => {
  let listener: Awaited<ReturnType<typeof countingListener>>;
  beforeAll(async () => {
    listener = await countingListener();
  });
  afterAll(async () => listener.close());

  it("where private networks are allowed (the test servers), a local broker address is connected to", async () => {
    const d = await call(admin, "POST", `/tenants/${T1}/destinations`, {
      type: "rabbitmq",
      topics: [`mq-${run}`],
      config: { server_url: `localhost:${listener.port}` },
      credentials: { username: "u", password: "p" },
    });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    const p = await call(admin, "POST", "/publish", { tenant_id: T1, topic: `mq-${run}`, eligible_for_retry: false, data: { x: 1 } });
    const [attempt] = await attemptsOf(admin, p.json.id);
    expect(attempt.status).toBe("failed");
    expect(listener.connections()).toBeGreaterThan(0);
  }, 30_000);

  describe("on a server of its own: DELIVERY_ALLOW_PRIVATE_NETWORKS=false, OUTBOUND_GATEWAY_TEAMS naming one team", () => {
    let server: RunningServer | undefined;
    let database: Awaited<ReturnType<typeof privateDatabase>> | undefined;
    const key = `hko_guard_${randomBytes(12).toString("hex")}`;
    // Two teams made before the server starts: the oldest (the gateway team, linked by default) and the one the setting names.
    const teams = {
      oldest: { id: `tm_old${run}`, apiKey: `hky_old_${randomBytes(16).toString("hex")}` },
      listed: { id: `tm_listed${run}`, apiKey: `hky_listed_${randomBytes(16).toString("hex")}` },
    };
    beforeAll(async () => {
      database = await privateDatabase("outguard");
      for (const [i, t] of [teams.oldest, teams.listed].entries()) {
        await database.client.query(
          `INSERT INTO teams (id, name, mode, cli_key_hash, created_at, updated_at) VALUES ($1, $1, 'TEAM', $2, now() - make_interval(hours => $3), now())`,
          [t.id, `cli_${t.id}`, 2 - i],
        );
        await database.client.query("INSERT INTO api_keys (id, team_id, name, prefix, key_hash, created_at) VALUES ($1, $2, 'test', $3, $4, now())", [
          `key_${t.id}`,
          t.id,
          t.apiKey.slice(0, 12),
          hashApiKey(t.apiKey),
        ]);
      }
      server = await startServer({
        DATABASE_URL: database.url,
        OUTBOUND_API_KEY: key,
        DELIVERY_ALLOW_PRIVATE_NETWORKS: "false",
        OUTBOUND_GATEWAY_TEAMS: teams.listed.id,
        OUTBOUND_DELIVERY_TIMEOUT_SECONDS: "3",
      });
      await call(key, "PUT", "/tenants/t", undefined, server.url);
    }, 90_000);
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    it("metadata, private and loopback targets, literal or resolved, are host_unreachable without a connection or internal details", async () => {
      const targets = [
        "169.254.169.254:5672",
        "[fd00:ec2::254]:5672",
        "[::ffff:169.254.169.254]:5672",
        "metadata.google.internal:5672",
        "10.0.0.1:5672",
        "192.168.1.1:5672",
        `127.0.0.1:${listener.port}`,
        `localhost:${listener.port}`, // a host name that resolves to a loopback address
      ];
      const before = listener.connections();
      const topic = `guard-${run}`;
      const ids: Record<string, string> = {};
      for (const server_url of targets) {
        const d = await call(
          key,
          "POST",
          "/tenants/t/destinations",
          { type: "rabbitmq", topics: [topic], config: { server_url }, credentials: { username: "u", password: "p" } },
          server!.url,
        );
        expect(d.status, JSON.stringify(d.json)).toBe(201);
        ids[d.json.id] = server_url;
      }
      const p = await call(key, "POST", "/publish", { tenant_id: "t", topic, eligible_for_retry: false, data: { x: 1 } }, server!.url);
      expect(p.json.destination_ids).toHaveLength(targets.length);
      const attempts = await attemptsOf(key, p.json.id, targets.length, server!.url);
      for (const a of attempts) {
        const target = ids[a.destination_id];
        expect([target, a.status, a.code]).toEqual([target, "failed", "host_unreachable"]);
        expect(a.response_data.body).toBe(
          `${target} is not a permitted delivery target (cloud metadata, link-local and reserved addresses never are; private networks only where the operator allows them)`,
        );
      }
      expect(listener.connections()).toBe(before);
    }, 60_000);

    it("OUTBOUND_GATEWAY_TEAMS replaces the default: the listed team's sources only", async () => {
      const listedSource = await source(teams.listed, {}, server!.url);
      const oldestSource = await source(teams.oldest, {}, server!.url);
      const refused = await call(key, "POST", "/tenants/t/destinations", { type: "gateway", topics: ["g"], config: { source_id: oldestSource } }, server!.url);
      expect(refused.json).toEqual(notAllowed(oldestSource));
      const ok = await call(key, "POST", "/tenants/t/destinations", { type: "gateway", topics: ["g"], config: { source_id: listedSource } }, server!.url);
      expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    });
  });
});
