/**
 * Gateway `/sources` (shared/spec/gateway.md "Source", "Versioning", "Errors"; reference §1, §4):
 * every endpoint, each version's shapes, credentials hidden and encrypted, team isolation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, db, newTestUrl } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
let other: TestTeam;
beforeAll(async () => {
  team = await newTeam("sources");
  other = await newTeam("other");
});

const HMAC = { algorithm: "sha256", encoding: "hex", header_key: "x-signature", webhook_secret_key: "hmac-secret-value-123" };

describe("POST /sources", () => {
  it("POST /sources – minimum body → 200 WEBHOOK source with defaults and its ingest url", async () => {
    const { status, json } = await api(team, "POST", "/2025-07-01/sources", { name: "plain" });
    expect(status).toBe(200);
    expect(json.id).toMatch(/^src_[0-9A-Za-z]{22}$/);
    expect(json.team_id).toBe(team.teamId);
    expect(json.type).toBe("WEBHOOK");
    expect(json.url).toBe(`${BASE_URL}/e/${json.id.slice(4)}`);
    expect(json.authenticated).toBe(false);
    expect(json.config).toEqual({ allowed_http_methods: ["POST", "PUT", "PATCH", "DELETE"], custom_response: null });
    expect(json.description).toBeNull();
    expect(json.disabled_at).toBeNull();
    expect(new Date(json.created_at).toISOString()).toBe(json.created_at);
  });

  it("POST /sources – a provider type takes its own default methods and credentials; auth hidden unless included", async () => {
    const { json } = await api(team, "POST", "/2025-07-01/sources", { name: "stripe", type: "STRIPE", config: { auth: { webhook_secret_key: "whsec_supersecret" } } });
    expect(json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null, auth_type: "STRIPE" });
    expect(json.authenticated).toBe(true);
    const shown = await api(team, "GET", `/2025-07-01/sources/${json.id}?include=config.auth`);
    expect(shown.json.config.auth).toEqual({ webhook_secret_key: "whsec_supersecret" });
    const { rows } = await db().query("SELECT auth_encrypted, config::text AS config FROM sources WHERE id = $1", [json.id]);
    expect(rows[0].auth_encrypted).toMatch(/^v1:/);
    expect(rows[0].auth_encrypted).not.toContain("supersecret");
    expect(rows[0].config).not.toContain("supersecret");
  });

  it("POST /sources – duplicate name → 409 RESOURCE_ALREADY_EXISTS with the existing id", async () => {
    const first = await api(team, "POST", "/2025-07-01/sources", { name: "dup" });
    const { status, json } = await api(team, "POST", "/2025-07-01/sources", { name: "dup" });
    expect(status).toBe(409);
    expect(json).toEqual({ handled: true, status: 409, message: "Resource already exists", code: "RESOURCE_ALREADY_EXISTS", data: { id: first.json.id, resource_type: "source" } });
  });

  it.each([
    [{ name: "t1", type: "NOPE" }, "type"],
    [{ name: "t2", type: "stripe" }, "type"],
    [{ name: "x".repeat(156) }, "name"],
    [{ name: 42 }, "name"],
    [{ name: "t3", extra: true }, ""],
    [{ name: "t4", config: { auth_type: "HMAC", auth: { ...HMAC, algorithm: "sha3" } } }, "config.auth.algorithm"],
    [{ name: "t5", config: { auth: { webhook_secret_key: "x" } } }, "config.auth_type"],
    [{ name: "t6", config: { allowed_http_methods: ["FETCH"] } }, "config.allowed_http_methods.0"],
    [{ name: "t7", type: "HTTP", config: { auth_type: "STRIPE", auth: { webhook_secret_key: "x" } } }, "config.auth_type"],
  ])("POST /sources – invalid body %j → 422 naming %s", async (body, field) => {
    const { status, json } = await api(team, "POST", "/2025-07-01/sources", body);
    expect(status).toBe(422);
    expect(json.handled).toBe(true);
    expect(json.code).toBe("UNPROCESSABLE_ENTITY");
    expect(json.data.field ?? "").toBe(field);
    expect(typeof json.data.message).toBe("string");
  });

  it("POST /sources – malformed JSON → 400; nothing created", async () => {
    const before = await api(team, "GET", "/2025-07-01/sources/count?disabled=true");
    const { status, json } = await api(team, "POST", "/2025-07-01/sources", '{"name":');
    expect(status).toBe(400);
    expect(json.code).toBe("BAD_REQUEST");
    expect((await api(team, "GET", "/2025-07-01/sources/count?disabled=true")).json.count).toBe(before.json.count);
  });
});

describe("sources – read, update, upsert, disable, delete", () => {
  it("PUT /sources – upsert by name creates, then updates the same source", async () => {
    const created = await api(team, "PUT", "/2025-07-01/sources", { name: "upserted", description: "one" });
    expect(created.status).toBe(200);
    const updated = await api(team, "PUT", "/2025-07-01/sources", { name: "upserted", description: "two" });
    expect(updated.json.id).toBe(created.json.id);
    expect(updated.json.description).toBe("two");
  });

  it("PUT /sources/{id} – partial update keeps the credentials it was not given", async () => {
    const { json } = await api(team, "POST", "/2025-07-01/sources", { name: "hmac-src", config: { auth_type: "HMAC", auth: HMAC } });
    const up = await api(team, "PUT", `/2025-07-01/sources/${json.id}?include=config.auth`, { config: { allowed_http_methods: ["POST", "GET"] } });
    expect(up.status).toBe(200);
    expect(up.json.config).toEqual({ allowed_http_methods: ["POST", "GET"], custom_response: null, auth_type: "HMAC", auth: HMAC });
    const renamed = await api(team, "PUT", `/2025-07-01/sources/${json.id}`, { name: "plain" });
    expect(renamed.status).toBe(409);
  });

  it("PUT /sources/{id}/disable|enable|archive|unarchive – toggle disabled_at; lists leave disabled sources out unless disabled=true", async () => {
    const { json } = await api(team, "POST", "/2025-07-01/sources", { name: "toggled" });
    for (const [action, disabled] of [["disable", true], ["enable", false], ["archive", true]] as const) {
      const r = await api(team, "PUT", `/2025-07-01/sources/${json.id}/${action}`);
      expect(r.status).toBe(200);
      expect(r.json.disabled_at === null).toBe(!disabled);
    }
    const listed = await api(team, "GET", `/2025-07-01/sources?id=${json.id}`);
    expect(listed.json.models).toEqual([]);
    const withDisabled = await api(team, "GET", `/2025-07-01/sources?id=${json.id}&disabled=true`);
    expect(withDisabled.json.models.map((m: any) => m.id)).toEqual([json.id]);
    expect((await api(team, "PUT", `/2025-07-01/sources/${json.id}/unarchive`)).json.disabled_at).toBeNull();
    expect((await api(team, "PUT", `/2025-07-01/sources/${json.id}/explode`)).status).toBe(404);
  });

  it("DELETE /sources/{id} – {id}, then 404", async () => {
    const { json } = await api(team, "POST", "/2025-07-01/sources", { name: "doomed" });
    expect((await api(team, "DELETE", `/2025-07-01/sources/${json.id}`)).json).toEqual({ id: json.id });
    const gone = await api(team, "GET", `/2025-07-01/sources/${json.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND", data: { id: json.id } });
  });

  it("GET /sources and /sources/count – filters by name (array, contains) and type", async () => {
    const t = await newTeam("filters");
    for (const [name, type] of [["alpha", "WEBHOOK"], ["beta", "GITHUB"], ["gamma", "GITHUB"]]) await api(t, "POST", "/2025-07-01/sources", { name, type });
    const names = async (q: string) => (await api(t, "GET", `/2025-07-01/sources?${q}&order_by=name&dir=asc`)).json.models.map((m: any) => m.name);
    expect(await names("type=GITHUB")).toEqual(["beta", "gamma"]);
    expect(await names("name[0]=alpha&name[1]=gamma")).toEqual(["alpha", "gamma"]);
    expect(await names("name[]=beta")).toEqual(["beta"]);
    expect(await names("name[contains]=MM")).toEqual(["gamma"]);
    expect((await api(t, "GET", "/2025-07-01/sources/count?type=GITHUB")).json).toEqual({ count: 2 });
    expect((await api(t, "GET", "/2025-07-01/sources?disabled_at[gte]=nonsense")).status).toBe(400);
    expect((await api(t, "GET", "/2025-07-01/sources?name[between]=a")).status).toBe(400);
  });
});

describe("sources – versions", () => {
  it("2024-09-01 – flat shape in and out; lower-case verification type; include=verification.configs", async () => {
    const { status, json } = await api(team, "POST", "/2024-09-01/sources", {
      name: "legacy",
      allowed_http_methods: ["POST"],
      custom_response: { content_type: "json", body: '{"ok":true}' },
      verification: { type: "hmac", configs: HMAC },
    });
    expect(status).toBe(200);
    expect(json.type).toBeUndefined();
    expect(json.config).toBeUndefined();
    expect(json.allowed_http_methods).toEqual(["POST"]);
    expect(json.custom_response).toEqual({ content_type: "json", body: '{"ok":true}' });
    expect(json.verification).toEqual({ type: "HMAC" });
    const shown = await api(team, "GET", `/2024-09-01/sources/${json.id}?include=verification.configs`);
    expect(shown.json.verification).toEqual({ type: "HMAC", configs: HMAC });
    const modern = await api(team, "GET", `/2025-07-01/sources/${json.id}`);
    expect(modern.json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: { content_type: "json", body: '{"ok":true}' }, auth_type: "HMAC" });
  });

  it("no version segment – behaves as 2024-09-01", async () => {
    const { json } = await api(team, "POST", "/sources", { name: "unversioned" });
    expect(json.allowed_http_methods).toEqual(["POST", "PUT", "PATCH", "DELETE"]);
    expect(json.type).toBeUndefined();
  });

  it("2025-01-01 – type + config shapes", async () => {
    const { json } = await api(team, "POST", "/2025-01-01/sources", { name: "v2025", type: "GITHUB" });
    expect(json.type).toBe("GITHUB");
    expect(json.config.allowed_http_methods).toEqual(["POST"]);
  });

  it("2025-07-01 – the combined CHARGEBEE type is refused; accepted in 2025-01-01", async () => {
    expect((await api(team, "POST", "/2025-01-01/sources", { name: "cb-old", type: "CHARGEBEE" })).status).toBe(200);
    const r = await api(team, "POST", "/2025-07-01/sources", { name: "cb-new", type: "CHARGEBEE" });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("type");
  });

  it("2025-07-01 – FIREBLOCKS requires config.auth.environment and drops public_key; 2025-01-01 keeps public_key", async () => {
    expect((await api(team, "POST", "/2025-07-01/sources", { name: "fb1", type: "FIREBLOCKS" })).json.data.field).toBe("config.auth.environment");
    const ok = await api(team, "POST", "/2025-07-01/sources?include=config.auth", { name: "fb2", type: "FIREBLOCKS", config: { auth: { environment: "EU", public_key: "pk" } } });
    expect(ok.json.config.auth).toEqual({ environment: "EU" });
    const old = await api(team, "POST", "/2025-01-01/sources?include=config.auth", { name: "fb3", type: "FIREBLOCKS", config: { auth: { public_key: "pk" } } });
    expect(old.json.config.auth).toEqual({ public_key: "pk" });
  });

  it("unknown version → 400 with the supported versions", async () => {
    const { status, json } = await api(team, "GET", "/2023-01-01/sources");
    expect(status).toBe(400);
    expect(json.data.supported).toEqual(["2024-09-01", "2025-01-01", "2025-07-01"]);
  });
});

describe("sources – authentication and isolation", () => {
  it("Bearer and Basic (key as username, empty password) authenticate", async () => {
    expect((await api(team, "GET", "/2025-07-01/sources/count")).status).toBe(200);
    const basic = Buffer.from(`${team.apiKey}:`).toString("base64");
    expect((await api(null, "GET", "/2025-07-01/sources/count", undefined, { authorization: `Basic ${basic}` })).status).toBe(200);
  });

  it.each([
    ["no Authorization", {}],
    ["a wrong key", { authorization: "Bearer hky_wrongwrongwrongwrongwrong" }],
    ["a malformed scheme", { authorization: "Token abc" }],
  ])("%s → 401 with the gateway error body", async (_label, headers) => {
    const { status, json } = await api(null, "GET", "/2025-07-01/sources", undefined, headers);
    expect(status).toBe(401);
    expect(json).toMatchObject({ handled: true, status: 401, message: "Unauthorized", code: "UNAUTHORIZED" });
  });

  it("a console cli_key as Bearer authenticates nothing → 401", async () => {
    const { cli_key } = await newTestUrl();
    expect((await api({ apiKey: cli_key }, "GET", "/2025-07-01/sources")).status).toBe(401);
  });

  it("another team's source → 404 on get, update, disable, delete; absent from its lists", async () => {
    const { json } = await api(team, "POST", "/2025-07-01/sources", { name: "private" });
    for (const [method, path, body] of [
      ["GET", `/2025-07-01/sources/${json.id}`],
      ["PUT", `/2025-07-01/sources/${json.id}`, { description: "mine" }],
      ["PUT", `/2025-07-01/sources/${json.id}/disable`],
      ["DELETE", `/2025-07-01/sources/${json.id}`],
    ] as const) {
      expect((await api(other, method, path, body)).status).toBe(404);
    }
    expect((await api(other, "GET", `/2025-07-01/sources?id=${json.id}&disabled=true`)).json.models).toEqual([]);
    expect((await api(team, "GET", `/2025-07-01/sources/${json.id}`)).json.description).toBeNull();
  });

  it("console test URLs (guest workspaces) never appear in a team's lists", async () => {
    const t = await newTeam("empty");
    await newTestUrl({ name: "console-only" });
    expect((await api(t, "GET", "/2025-07-01/sources?disabled=true")).json.models).toEqual([]);
  });

  it("unknown endpoint → 404 gateway body (after authentication)", async () => {
    expect((await api(team, "GET", "/2025-07-01/nothing-here")).json).toMatchObject({ handled: true, status: 404, code: "NOT_FOUND" });
    expect((await api(null, "GET", "/2025-07-01/nothing-here")).status).toBe(401);
  });
});
