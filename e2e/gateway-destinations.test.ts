/**
 * Gateway `/destinations` (shared/spec/gateway.md "Destination", "Destination authentication",
 * "2025-01-01"; reference §2 defaults, §4 auth types): every endpoint, versions, credentials.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
let other: TestTeam;
beforeAll(async () => {
  team = await newTeam("destinations");
  other = await newTeam("other");
});

const V = "/2025-07-01";

describe("POST /destinations", () => {
  it("POST /destinations – HTTP with a url → defaults of the real product", async () => {
    const { status, json } = await api(team, "POST", `${V}/destinations`, { name: "api", config: { url: "https://example.com/hooks" } });
    expect(status).toBe(200);
    expect(json.id).toMatch(/^des_/);
    expect(json.type).toBe("HTTP");
    expect(json.config).toEqual({
      url: "https://example.com/hooks",
      rate_limit: null,
      rate_limit_period: "second",
      http_method: null,
      path_forwarding_disabled: false,
      auth_type: "GATEWAY_SIGNATURE",
    });
  });

  it("POST /destinations – HTTP without config.url → 422 with the product's data", async () => {
    const { status, json } = await api(team, "POST", `${V}/destinations`, { name: "nourl" });
    expect(status).toBe(422);
    expect(json).toEqual({
      handled: true,
      status: 422,
      message: "Unprocessable Entity",
      code: "UNPROCESSABLE_ENTITY",
      data: { type: "HTTP", field: "config.url", message: "HTTP destination requires `config.url`." },
    });
  });

  it.each([
    [{ name: "bad1", config: { url: "ftp://example.com" } }, "config.url"],
    [{ name: "bad2", type: "CLI", config: { path: "/x", rate_limit: 5 } }, "config.rate_limit"],
    [{ name: "bad3", type: "CLI", config: { path: "no-slash" } }, "config.path"],
    [{ name: "bad4", config: { url: "https://e.com", auth_type: "OAUTH9" } }, "config.auth_type"],
    [{ name: "bad5", config: { url: "https://e.com", auth_type: "BASIC_AUTH", auth: { username: "u" } } }, "config.auth.password"],
    [{ name: "bad6", config: { url: "https://e.com", rate_limit_period: "day" } }, "config.rate_limit_period"],
    [{ name: "bad7", type: "SMTP" }, "type"],
    [{ name: "bad8", type: "MOCK_API", config: { url: "https://e.com" } }, "config.url"],
  ])("POST /destinations – %j → 422 naming %s", async (body, field) => {
    const { status, json } = await api(team, "POST", `${V}/destinations`, body);
    expect(status).toBe(422);
    expect(json.data.field).toBe(field);
  });

  it("POST /destinations – CLI (path, no rate limit fields) and MOCK_API", async () => {
    const cli = await api(team, "POST", `${V}/destinations`, { name: "cli", type: "CLI", config: { path: "/webhooks" } });
    expect(cli.json.config).toEqual({ path: "/webhooks", http_method: null, path_forwarding_disabled: false, auth_type: "GATEWAY_SIGNATURE" });
    const mock = await api(team, "POST", `${V}/destinations`, { name: "mock", type: "MOCK_API" });
    expect(mock.json.type).toBe("MOCK_API");
    expect(mock.json.config.url).toBeUndefined();
  });

  it("POST /destinations – credentials hidden unless include=config.auth, encrypted at rest", async () => {
    const auths = [
      ["CUSTOM_SIGNATURE", { key: "x-sig", signing_secret: "custom-secret-1" }],
      ["BASIC_AUTH", { username: "user", password: "basic-secret-2" }],
      ["API_KEY", { key: "x-api-key", api_key: "apikey-secret-3", to: "query" }],
      ["BEARER_TOKEN", { token: "bearer-secret-4" }],
    ] as const;
    for (const [authType, auth] of auths) {
      const created = await api(team, "POST", `${V}/destinations`, { name: `auth-${authType}`, config: { url: "https://e.com", auth_type: authType, auth } });
      expect(created.status).toBe(200);
      expect(created.json.config.auth).toBeUndefined();
      const shown = await api(team, "GET", `${V}/destinations/${created.json.id}?include=config.auth`);
      expect(shown.json.config.auth).toEqual(auth);
      const { rows } = await db().query("SELECT auth_encrypted, config::text AS config FROM destinations WHERE id = $1", [created.json.id]);
      const secret = Object.values(auth).find((v) => v.includes("secret"))!;
      expect(rows[0].auth_encrypted).not.toContain(secret);
      expect(rows[0].config).not.toContain(secret);
    }
  });

  it("POST /destinations – duplicate name → 409 with the existing id", async () => {
    const a = await api(team, "POST", `${V}/destinations`, { name: "twice", config: { url: "https://e.com" } });
    const b = await api(team, "POST", `${V}/destinations`, { name: "twice", config: { url: "https://e.com" } });
    expect(b.status).toBe(409);
    expect(b.json.data).toEqual({ id: a.json.id, resource_type: "destination" });
  });
});

describe("destinations – update, upsert, list, disable, delete, isolation", () => {
  it("PUT /destinations/{id} – partial update keeps credentials; PUT /destinations upserts by name", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, { name: "keep", config: { url: "https://e.com/a", auth_type: "BEARER_TOKEN", auth: { token: "t0k" } } });
    const up = await api(team, "PUT", `${V}/destinations/${json.id}?include=config.auth`, { config: { rate_limit: 10, rate_limit_period: "minute" } });
    expect(up.json.config).toMatchObject({ url: "https://e.com/a", rate_limit: 10, rate_limit_period: "minute", auth_type: "BEARER_TOKEN", auth: { token: "t0k" } });
    const upserted = await api(team, "PUT", `${V}/destinations`, { name: "keep", description: "same one" });
    expect(upserted.json.id).toBe(json.id);
    expect(upserted.json.description).toBe("same one");
    const fresh = await api(team, "PUT", `${V}/destinations`, { name: "brand-new", config: { url: "https://e.com/new" } });
    expect(fresh.json.id).not.toBe(json.id);
  });

  it("GET /destinations, /count, disable/enable, delete", async () => {
    const t = await newTeam("dest-list");
    const a = (await api(t, "POST", `${V}/destinations`, { name: "a", config: { url: "https://e.com" } })).json;
    await api(t, "POST", `${V}/destinations`, { name: "b", type: "CLI", config: { path: "/" } });
    expect((await api(t, "GET", `${V}/destinations/count`)).json).toEqual({ count: 2 });
    expect((await api(t, "GET", `${V}/destinations?type=CLI`)).json.models.map((m: any) => m.name)).toEqual(["b"]);
    expect((await api(t, "PUT", `${V}/destinations/${a.id}/disable`)).json.disabled_at).not.toBeNull();
    expect((await api(t, "GET", `${V}/destinations/count`)).json).toEqual({ count: 1 });
    expect((await api(t, "GET", `${V}/destinations/count?disabled=true`)).json).toEqual({ count: 2 });
    expect((await api(t, "PUT", `${V}/destinations/${a.id}/enable`)).json.disabled_at).toBeNull();
    expect((await api(t, "DELETE", `${V}/destinations/${a.id}`)).json).toEqual({ id: a.id });
    expect((await api(t, "GET", `${V}/destinations/${a.id}`)).status).toBe(404);
  });

  it("another team's destination → 404 on get, update, disable, delete", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, { name: "mine", config: { url: "https://e.com" } });
    expect((await api(other, "GET", `${V}/destinations/${json.id}`)).status).toBe(404);
    expect((await api(other, "PUT", `${V}/destinations/${json.id}`, { name: "stolen" })).status).toBe(404);
    expect((await api(other, "PUT", `${V}/destinations/${json.id}/disable`)).status).toBe(404);
    expect((await api(other, "DELETE", `${V}/destinations/${json.id}`)).status).toBe(404);
    expect((await api(team, "GET", `${V}/destinations/${json.id}`)).json.name).toBe("mine");
  });
});

describe("destinations – versions", () => {
  it("2024-09-01 – flat url, rate limit, auth_method in and out; disabled_path_forwarding accepted", async () => {
    const { status, json } = await api(team, "POST", "/2024-09-01/destinations", {
      name: "legacy-http",
      url: "https://e.com/legacy",
      rate_limit: 5,
      rate_limit_period: "minute",
      disabled_path_forwarding: true,
      auth_method: { type: "BASIC_AUTH", config: { username: "u", password: "p" } },
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({
      url: "https://e.com/legacy",
      cli_path: null,
      rate_limit: 5,
      rate_limit_period: "minute",
      path_forwarding_disabled: true,
      auth_method: { type: "BASIC_AUTH" },
    });
    expect(json.type).toBeUndefined();
    expect(json.config).toBeUndefined();
    const modern = await api(team, "GET", `${V}/destinations/${json.id}?include=config.auth`);
    expect(modern.json.type).toBe("HTTP");
    expect(modern.json.config.auth).toEqual({ username: "u", password: "p" });
  });

  it("2024-09-01 – cli_path makes a CLI destination", async () => {
    const { json } = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-cli", cli_path: "/local" });
    expect(json.cli_path).toBe("/local");
    expect((await api(team, "GET", `/2025-01-01/destinations/${json.id}`)).json.config.path).toBe("/local");
  });
});
