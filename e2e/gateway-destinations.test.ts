/**
 * Gateway `/destinations` (docs/gateway-api.md#destinations, #versions,
 * docs/pipeline.md#destination-auth-configauth_type-configauth): every endpoint, versions, credentials.
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
    [{ name: "bad9", config: { url: "not a url" } }, "config.url"],
    [{ name: "bad10", config: { url: "https://e.com", rate_limit: 0 } }, "config.rate_limit"],
    [{ name: "bad11", type: "CLI", config: { path: "/x", rate_limit_period: "minute" } }, "config.rate_limit_period"],
    [{ name: "bad12", config: { url: "https://e.com", http_method: "TRACE" } }, "config.http_method"],
    [{ name: "bad13", config: { url: "https://e.com", auth_type: "API_KEY", auth: { key: "k", api_key: "v", to: "cookie" } } }, "config.auth.to"],
    [{ name: "bad14", config: { url: "https://e.com", auth_type: "CUSTOM_SIGNATURE", auth: { key: "x-sig" } } }, "config.auth.signing_secret"],
    [{ name: "bad15", config: { url: "https://e.com", auth_type: "BEARER_TOKEN", auth: { token: "t", extra: 1 } } }, "config.auth.extra"],
    [{ name: "bad16", config: { url: "https://e.com", surprise: true } }, "config.surprise"],
    // Credentials sent as headers must be sendable: a CR or LF would fail every delivery.
    [{ name: "bad17", config: { url: "https://e.com", auth_type: "API_KEY", auth: { key: "x-key", api_key: "v\r\nx-injected: 1" } } }, "config.auth.api_key"],
    [{ name: "bad18", config: { url: "https://e.com", auth_type: "API_KEY", auth: { key: "x key", api_key: "v" } } }, "config.auth.key"],
    [{ name: "bad19", config: { url: "https://e.com", auth_type: "BEARER_TOKEN", auth: { token: "t\nx" } } }, "config.auth.token"],
    [{ name: "bad20", config: { url: "https://e.com", auth_type: "CUSTOM_SIGNATURE", auth: { key: "x-sig\r\n", signing_secret: "s" } } }, "config.auth.key"],
    [
      {
        name: "bad21",
        config: { url: "https://e.com", auth_type: "CUSTOM_SIGNATURE", auth: { key: "x-sig", signing_secret: "s", rotate_secret_overlap_seconds: 604_801 } },
      },
      "config.auth.rotate_secret_overlap_seconds",
    ],
    [
      {
        name: "bad22",
        config: {
          url: "https://e.com",
          auth_type: "CUSTOM_SIGNATURE",
          auth: { key: "x-sig", signing_secret: "s", previous_signing_secret_invalid_at: "soon" },
        },
      },
      "config.auth.previous_signing_secret_invalid_at",
    ],
    [{ name: "", config: { url: "https://e.com" } }, "name"],
  ])("POST /destinations – %j → 422 naming %s", async (body, field) => {
    const { status, json } = await api(team, "POST", `${V}/destinations`, body);
    expect(status).toBe(422);
    expect(json.data.field).toBe(field);
  });

  it("POST /destinations – credentials sent as headers: a tab or Latin-1 character is fine, a query API key may hold anything", async () => {
    const ok = [
      { auth_type: "API_KEY", auth: { key: "x-key", api_key: "a\tb é" } },
      { auth_type: "API_KEY", auth: { key: "k ey", api_key: "line\nbreak", to: "query" } },
      { auth_type: "BEARER_TOKEN", auth: { token: "tok.en-1" } },
    ];
    for (const [i, config] of ok.entries()) {
      const { status, json } = await api(team, "POST", `${V}/destinations`, { name: `hdr-ok-${i}-${Date.now()}`, config: { url: "https://e.com", ...config } });
      expect(status, JSON.stringify(json)).toBe(200);
    }
  });

  it("POST /destinations – OAuth2/AWS/GCP auth types → 422 saying they are not supported", async () => {
    const { status, json } = await api(team, "POST", `${V}/destinations`, {
      name: "oauth",
      config: { url: "https://e.com", auth_type: "OAUTH2_CLIENT_CREDENTIALS", auth: { auth_server: "https://a.com", client_id: "c", client_secret: "s" } },
    });
    expect(status).toBe(422);
    expect(json.data.field).toBe("config.auth_type");
    expect(json.data.message).toMatch(/not supported/);
  });

  it("POST /destinations – API_KEY `to` defaults to header", async () => {
    const { json } = await api(team, "POST", `${V}/destinations?include=config.auth`, {
      name: "apikey-default",
      config: { url: "https://e.com", auth_type: "API_KEY", auth: { key: "x-k", api_key: "v" } },
    });
    expect(json.config.auth).toEqual({ key: "x-k", api_key: "v", to: "header" });
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
    const { json } = await api(team, "POST", `${V}/destinations`, {
      name: "keep",
      config: { url: "https://e.com/a", auth_type: "BEARER_TOKEN", auth: { token: "t0k" } },
    });
    const up = await api(team, "PUT", `${V}/destinations/${json.id}?include=config.auth`, { config: { rate_limit: 10, rate_limit_period: "minute" } });
    expect(up.json.config).toMatchObject({
      url: "https://e.com/a",
      rate_limit: 10,
      rate_limit_period: "minute",
      auth_type: "BEARER_TOKEN",
      auth: { token: "t0k" },
    });
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

  it("GET|PUT|DELETE /destinations/{id} – another team's id → 404 on get, update, disable, delete", async () => {
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

describe("destinations – more endpoints", () => {
  it("GET /destinations/{id} – unknown id → 404 with data.id", async () => {
    const { status, json } = await api(team, "GET", `${V}/destinations/des_doesnotexist`);
    expect(status).toBe(404);
    expect(json).toMatchObject({ handled: true, status: 404, code: "NOT_FOUND", data: { id: "des_doesnotexist" } });
    expect((await api(team, "PUT", `${V}/destinations/des_doesnotexist`, { description: "x" })).status).toBe(404);
    expect((await api(team, "DELETE", `${V}/destinations/des_doesnotexist`)).status).toBe(404);
    expect((await api(team, "PUT", `${V}/destinations/des_doesnotexist/enable`)).status).toBe(404);
  });

  it("PUT /destinations/{id}/archive|unarchive – aliases of disable/enable; an unknown action → 404", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, { name: "archived", config: { url: "https://e.com" } });
    const archived = await api(team, "PUT", `${V}/destinations/${json.id}/archive`);
    expect(archived.json.disabled_at).not.toBeNull();
    const again = await api(team, "PUT", `${V}/destinations/${json.id}/disable`);
    expect(again.json.disabled_at).toBe(archived.json.disabled_at);
    expect((await api(team, "PUT", `${V}/destinations/${json.id}/unarchive`)).json.disabled_at).toBeNull();
    expect((await api(team, "PUT", `${V}/destinations/${json.id}/explode`)).status).toBe(404);
  });

  it("PUT /destinations/{id} – a new auth_type drops the old credentials; renaming onto a taken name → 409", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, {
      name: "switch",
      config: { url: "https://e.com", auth_type: "BASIC_AUTH", auth: { username: "u", password: "p" } },
    });
    const noCreds = await api(team, "PUT", `${V}/destinations/${json.id}`, { config: { auth_type: "BEARER_TOKEN" } });
    expect(noCreds.status).toBe(422);
    expect(noCreds.json.data.field).toBe("config.auth.token");
    const sig = await api(team, "PUT", `${V}/destinations/${json.id}?include=config.auth`, { config: { auth_type: "GATEWAY_SIGNATURE" } });
    expect(sig.json.config).toMatchObject({ auth_type: "GATEWAY_SIGNATURE", auth: {} });
    await api(team, "POST", `${V}/destinations`, { name: "taken", config: { url: "https://e.com" } });
    const clash = await api(team, "PUT", `${V}/destinations/${json.id}`, { name: "taken" });
    expect(clash.status).toBe(409);
    expect(clash.json.data.resource_type).toBe("destination");
  });

  it("PUT /destinations/{id} – type change HTTP → CLI takes the new type's config", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, { name: "morph", config: { url: "https://e.com", rate_limit: 3 } });
    const cli = await api(team, "PUT", `${V}/destinations/${json.id}`, { type: "CLI", config: { path: "/dev" } });
    expect(cli.status).toBe(200);
    expect(cli.json).toMatchObject({ type: "CLI", config: { path: "/dev" } });
    expect(cli.json.config.url).toBeUndefined();
    expect(cli.json.config.rate_limit).toBeUndefined();
  });

  it("PUT /destinations – upsert of a new name with an invalid config → 422, nothing created", async () => {
    const bad = await api(team, "PUT", `${V}/destinations`, { name: "upsert-bad", config: { rate_limit: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.json.data.field).toBe("config.url");
    expect((await api(team, "GET", `${V}/destinations?name=upsert-bad`)).json.models).toEqual([]);
  });

  it("GET /destinations – filters id, name (array, contains), disabled_at; include=config.auth on the list; paging", async () => {
    const t = await newTeam("dest-filters");
    const ids: string[] = [];
    for (const n of ["alpha", "beta", "gamma", "delta", "epsilon"]) {
      ids.push(
        (await api(t, "POST", `${V}/destinations`, { name: n, config: { url: `https://e.com/${n}`, auth_type: "BEARER_TOKEN", auth: { token: `tok-${n}` } } }))
          .json.id,
      );
    }
    expect((await api(t, "GET", `${V}/destinations?id=${ids[1]}`)).json.models.map((m: any) => m.name)).toEqual(["beta"]);
    expect((await api(t, "GET", `${V}/destinations?name[0]=alpha&name[1]=gamma&order_by=name&dir=asc`)).json.models.map((m: any) => m.name)).toEqual([
      "alpha",
      "gamma",
    ]);
    expect((await api(t, "GET", `${V}/destinations?name[contains]=LTA`)).json.models.map((m: any) => m.name)).toEqual(["delta"]);
    const plain = (await api(t, "GET", `${V}/destinations`)).json;
    expect(plain.count).toBe(5);
    expect(plain.models.every((m: any) => m.config.auth === undefined)).toBe(true);
    const revealed = (await api(t, "GET", `${V}/destinations?include=config.auth&name=beta`)).json;
    expect(revealed.models[0].config.auth).toEqual({ token: "tok-beta" });
    await api(t, "PUT", `${V}/destinations/${ids[4]}/disable`);
    expect((await api(t, "GET", `${V}/destinations?disabled_at[any]=true`)).json.models.map((m: any) => m.name)).toEqual(["epsilon"]);
    expect((await api(t, "GET", `${V}/destinations/count?name[contains]=a`)).json).toEqual({ count: 4 });
    const p1 = (await api(t, "GET", `${V}/destinations?order_by=name&dir=asc&limit=2`)).json;
    const p2 = (await api(t, "GET", `${V}/destinations?order_by=name&dir=asc&limit=2&next=${p1.pagination.next}`)).json;
    expect([...p1.models, ...p2.models].map((m: any) => m.name)).toEqual(["alpha", "beta", "delta", "gamma"]);
    expect(p2.pagination.next).toBeUndefined();
    expect((await api(t, "GET", `${V}/destinations?order_by=name&dir=asc&limit=2&prev=${p2.pagination.prev}`)).json.models.map((m: any) => m.name)).toEqual([
      "alpha",
      "beta",
    ]);
  });

  it("POST /connections – another team's destination_id → 422 naming destination_id", async () => {
    const { json } = await api(team, "POST", `${V}/destinations`, { name: "not-yours", config: { url: "https://e.com" } });
    const r = await api(other, "POST", `${V}/connections`, { name: "steal", source: { name: "s" }, destination_id: json.id });
    expect(r.status).toBe(422);
    expect(r.json.data).toMatchObject({ field: "destination_id", id: json.id });
    expect((await api(other, "GET", `${V}/destinations?id=${json.id}`)).json.models).toEqual([]);
    expect((await api(other, "GET", `${V}/destinations/count`)).json.count).toBe(0);
  });
});

describe("destinations – versions, more", () => {
  it("2025-01-01 – type + config in and out, like 2025-07-01", async () => {
    const { status, json } = await api(team, "POST", "/2025-01-01/destinations", {
      name: "v2501",
      type: "HTTP",
      config: { url: "https://e.com/2501", http_method: "PUT" },
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({
      type: "HTTP",
      config: { url: "https://e.com/2501", http_method: "PUT", rate_limit: null, rate_limit_period: "second", auth_type: "GATEWAY_SIGNATURE" },
    });
    expect(json.url).toBeUndefined();
    expect(json.auth_method).toBeUndefined();
    const flat = await api(team, "POST", "/2025-01-01/destinations", { name: "v2501-flat", url: "https://e.com" });
    expect(flat.status).toBe(422);
    expect(flat.json.data.field).toBe("url");
  });

  it("2024-09-01 – include=auth_method.config reveals credentials, absent otherwise", async () => {
    const { json } = await api(team, "POST", "/2024-09-01/destinations", {
      name: "legacy-auth",
      url: "https://e.com",
      auth_method: { type: "BEARER_TOKEN", config: { token: "legacy-tok" } },
    });
    expect(json.auth_method).toEqual({ type: "BEARER_TOKEN" });
    expect((await api(team, "GET", `/2024-09-01/destinations/${json.id}`)).json.auth_method).toEqual({ type: "BEARER_TOKEN" });
    expect((await api(team, "GET", `/2024-09-01/destinations/${json.id}?include=auth_method.config`)).json.auth_method).toEqual({
      type: "BEARER_TOKEN",
      config: { token: "legacy-tok" },
    });
    const { rows } = await db().query("SELECT auth_encrypted FROM destinations WHERE id = $1", [json.id]);
    expect(rows[0].auth_encrypted).not.toContain("legacy-tok");
  });

  it("2024-09-01 – the default shape; path_forwarding_disabled accepted as well as disabled_path_forwarding", async () => {
    const { json } = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-default", url: "https://e.com/d", path_forwarding_disabled: true });
    expect(json).toEqual({
      id: expect.stringMatching(/^des_/),
      team_id: team.teamId,
      name: "legacy-default",
      description: null,
      url: "https://e.com/d",
      cli_path: null,
      rate_limit: null,
      rate_limit_period: "second",
      http_method: null,
      path_forwarding_disabled: true,
      auth_method: { type: "GATEWAY_SIGNATURE" },
      disabled_at: null,
      updated_at: expect.any(String),
      created_at: expect.any(String),
    });
  });

  it("2024-09-01 – type/config → 422 naming them; errors name the flat fields", async () => {
    const typed = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-typed", type: "HTTP", config: { url: "https://e.com" } });
    expect(typed.status).toBe(422);
    expect(typed.json.data.field).toBe("type");
    const nourl = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-nourl", rate_limit: 4 });
    expect(nourl.status).toBe(422);
    expect(nourl.json.data.field).toBe("url");
    const badAuth = await api(team, "POST", "/2024-09-01/destinations", {
      name: "legacy-badauth",
      url: "https://e.com",
      auth_method: { type: "BASIC_AUTH", config: { username: "u" } },
    });
    expect(badAuth.json.data.field).toBe("auth_method.config.password");
    const cliRate = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-clirate", cli_path: "/x", rate_limit: 2 });
    expect(cliRate.json.data.field).toBe("rate_limit");
  });

  it("2024-09-01 – a flat partial update keeps a CLI destination CLI; a GET body echoed back is accepted", async () => {
    const { json } = await api(team, "POST", "/2024-09-01/destinations", { name: "legacy-cli-upd", cli_path: "/a" });
    const upd = await api(team, "PUT", `/2024-09-01/destinations/${json.id}`, { http_method: "POST", cli_path: "/b" });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ cli_path: "/b", http_method: "POST", url: null });
    const desc = await api(team, "PUT", `/2024-09-01/destinations/${json.id}`, { path_forwarding_disabled: true });
    expect(desc.json).toMatchObject({ cli_path: "/b", path_forwarding_disabled: true });
    const { id: _id, team_id: _t, created_at: _c, updated_at: _u, disabled_at: _d, ...echo } = desc.json;
    const echoed = await api(team, "PUT", "/2024-09-01/destinations", { ...echo, description: "echoed" });
    expect(echoed.status).toBe(200);
    expect(echoed.json).toMatchObject({ id: json.id, cli_path: "/b", description: "echoed" });
  });

  it("2024-09-01 – auth_method null resets to the gateway signature", async () => {
    const { json } = await api(team, "POST", "/2024-09-01/destinations", {
      name: "legacy-reset",
      url: "https://e.com",
      auth_method: { type: "basic_auth", config: { username: "u", password: "p" } },
    });
    expect(json.auth_method.type).toBe("BASIC_AUTH");
    const reset = await api(team, "PUT", `/2024-09-01/destinations/${json.id}?include=auth_method.config`, { auth_method: null });
    expect(reset.json.auth_method).toEqual({ type: "GATEWAY_SIGNATURE", config: {} });
  });
});
