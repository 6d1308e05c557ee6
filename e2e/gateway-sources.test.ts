/**
 * Gateway `/sources` (docs/gateway-api.md#sources, #versions, #errors):
 * every endpoint, list filters, each version's request and response shapes, validation errors naming
 * the field, credentials hidden unless included and encrypted at rest.
 * Authentication, isolation and the rate limit: gateway-auth.test.ts. Paging: gateway-paging.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
beforeAll(async () => {
  team = await newTeam("sources");
});

const V = "/2025-07-01";
const HMAC = { algorithm: "sha256", encoding: "hex", header_key: "x-signature", webhook_secret_key: "hmac-secret-value-123" };
const GENERIC_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

const create = async (body: Record<string, unknown>, t: TestTeam = team, version = V) => {
  const r = await api(t, "POST", `${version}/sources`, body);
  if (r.status !== 200) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
};

/** The stored row: encrypted credentials and the JSON config. */
async function stored(id: string) {
  const { rows } = await db().query("SELECT auth_encrypted, config::text AS config, team_id FROM sources WHERE id = $1", [id]);
  return rows[0] as { auth_encrypted: string | null; config: string; team_id: string } | undefined;
}

describe("POST /sources", () => {
  it("POST /sources – minimum body → 200 WEBHOOK source with default methods, its ingest url, authenticated false", async () => {
    const { status, json } = await api(team, "POST", `${V}/sources`, { name: "plain" });
    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual([
      "authenticated",
      "config",
      "created_at",
      "description",
      "disabled_at",
      "id",
      "name",
      "team_id",
      "type",
      "updated_at",
      "url",
    ]);
    expect(json.id).toMatch(/^src_[0-9A-Za-z]+$/);
    expect(json.team_id).toBe(team.teamId);
    expect(json.name).toBe("plain");
    expect(json.type).toBe("WEBHOOK");
    expect(json.url).toBe(`${BASE_URL}/e/${json.id.slice(4)}`);
    expect(json.authenticated).toBe(false);
    expect(json.config).toEqual({ allowed_http_methods: GENERIC_METHODS, custom_response: null });
    expect(json.description).toBeNull();
    expect(json.disabled_at).toBeNull();
    expect(new Date(json.created_at).toISOString()).toBe(json.created_at);
    expect(json.updated_at).toBe(json.created_at);
    expect(Math.abs(Date.parse(json.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it("POST /sources – every field: description, methods, custom_response, HMAC → authenticated true, auth hidden", async () => {
    const body = {
      name: "full",
      description: "all the fields",
      type: "WEBHOOK",
      config: { allowed_http_methods: ["GET", "POST"], custom_response: { content_type: "json", body: '{"ok":true}' }, auth_type: "HMAC", auth: HMAC },
    };
    const { status, json } = await api(team, "POST", `${V}/sources`, body);
    expect(status).toBe(200);
    expect(json.description).toBe("all the fields");
    expect(json.authenticated).toBe(true);
    expect(json.config).toEqual({ allowed_http_methods: ["GET", "POST"], custom_response: { content_type: "json", body: '{"ok":true}' }, auth_type: "HMAC" });
    expect("auth" in json.config).toBe(false);
  });

  it("POST /sources – STRIPE defaults to POST only; its credentials are hidden unless include=config.auth", async () => {
    const json = await create({ name: "stripe", type: "STRIPE", config: { auth: { webhook_secret_key: "whsec_supersecret" } } });
    expect(json.type).toBe("STRIPE");
    expect(json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null, auth_type: "STRIPE" });
    expect(json.authenticated).toBe(true);
    const plain = await api(team, "GET", `${V}/sources/${json.id}`);
    expect(plain.json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null, auth_type: "STRIPE" });
    const shown = await api(team, "GET", `${V}/sources/${json.id}?include=config.auth`);
    expect(shown.json.config.auth).toEqual({ webhook_secret_key: "whsec_supersecret" });
    const asArray = await api(team, "GET", `${V}/sources/${json.id}?include[]=config.auth`);
    expect(asArray.json.config.auth).toEqual({ webhook_secret_key: "whsec_supersecret" });
    const created = await api(team, "POST", `${V}/sources?include=config.auth`, {
      name: "stripe-shown",
      type: "STRIPE",
      config: { auth: { webhook_secret_key: "whsec_x" } },
    });
    expect(created.json.config.auth).toEqual({ webhook_secret_key: "whsec_x" });
  });

  it("POST /sources – a provider type without credentials is not authenticated", async () => {
    const json = await create({ name: "github-open", type: "GITHUB" });
    expect(json.authenticated).toBe(false);
    expect(json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null });
  });

  it("POST /sources – a provider type Hookyard accepts but does not verify keeps its credentials and is not authenticated", async () => {
    const json = await create({ name: "coinbase-in", type: "COINBASE", config: { auth: { webhook_secret_key: "cb" } } });
    expect(json.config.auth_type).toBe("COINBASE");
    expect(json.authenticated).toBe(false);
    const verifiedType = await create({ name: "stripe-in-auth", type: "STRIPE", config: { auth: { webhook_secret_key: "whsec_x" } } });
    expect(verifiedType.authenticated).toBe(true);
  });

  it("POST /sources – credentials are stored encrypted: neither auth_encrypted nor config holds the plaintext", async () => {
    const cases = [
      { name: "enc-hmac", config: { auth_type: "HMAC", auth: { ...HMAC, webhook_secret_key: "plain-hmac-SECRET-1" } } },
      { name: "enc-basic", config: { auth_type: "BASIC_AUTH", auth: { username: "user-x", password: "plain-basic-SECRET-2" } } },
      { name: "enc-key", config: { auth_type: "API_KEY", auth: { header_key: "x-api-key", api_key: "plain-apikey-SECRET-3" } } },
      { name: "enc-stripe", type: "STRIPE", config: { auth: { webhook_secret_key: "plain-stripe-SECRET-4" } } },
    ];
    for (const body of cases) {
      const json = await create(body);
      const row = (await stored(json.id))!;
      expect(row.auth_encrypted).toMatch(/^v1:/);
      expect(row.auth_encrypted).not.toContain("SECRET");
      expect(row.config).not.toContain("SECRET");
      const shown = await api(team, "GET", `${V}/sources/${json.id}?include=config.auth`);
      expect(JSON.stringify(shown.json.config.auth)).toContain("SECRET");
    }
    const none = await create({ name: "enc-none" });
    expect((await stored(none.id))!.auth_encrypted).toBeNull();
  });

  it("POST /sources – a name of exactly 155 characters is accepted; surrounding spaces are trimmed", async () => {
    expect((await api(team, "POST", `${V}/sources`, { name: "n".repeat(155) })).status).toBe(200);
    expect((await create({ name: "  spaced  " })).name).toBe("spaced");
  });

  it("POST /sources – duplicate name → 409 RESOURCE_ALREADY_EXISTS with the existing id; nothing created", async () => {
    const first = await create({ name: "dup" });
    const before = (await api(team, "GET", `${V}/sources/count?name=dup&disabled=true`)).json.count;
    const { status, json } = await api(team, "POST", `${V}/sources`, { name: "dup", type: "GITHUB" });
    expect(status).toBe(409);
    expect(json).toEqual({
      handled: true,
      status: 409,
      message: "Resource already exists",
      code: "RESOURCE_ALREADY_EXISTS",
      data: { id: first.id, resource_type: "source" },
    });
    expect(before).toBe(1);
    expect((await api(team, "GET", `${V}/sources/${first.id}`)).json.type).toBe("WEBHOOK");
  });

  it.each([
    ["an unknown type", { name: "t1", type: "NOPE" }, "type"],
    ["a lower-case type", { name: "t2", type: "stripe" }, "type"],
    ["a name longer than 155", { name: "x".repeat(156) }, "name"],
    ["a blank name", { name: "   " }, "name"],
    ["no name", { type: "WEBHOOK" }, "name"],
    ["a number as name", { name: 42 }, "name"],
    ["a number as description", { name: "t9", description: 5 }, "description"],
    ["a string as config", { name: "t10", config: "POST" }, "config"],
    ["a string as allowed_http_methods", { name: "t11", config: { allowed_http_methods: "POST" } }, "config.allowed_http_methods"],
    ["an unknown HTTP method", { name: "t6", config: { allowed_http_methods: ["FETCH"] } }, "config.allowed_http_methods.0"],
    ["an empty method list", { name: "t12", config: { allowed_http_methods: [] } }, "config.allowed_http_methods"],
    [
      "a bad custom_response content type",
      { name: "t13", config: { custom_response: { content_type: "html", body: "x" } } },
      "config.custom_response.content_type",
    ],
    ["an unknown top-level property", { name: "t3", extra: true }, "extra"],
    ["an unknown config property", { name: "t14", config: { verification: {} } }, "config.verification"],
    ["HMAC with a bad algorithm", { name: "t4", config: { auth_type: "HMAC", auth: { ...HMAC, algorithm: "sha3" } } }, "config.auth.algorithm"],
    ["HMAC without header_key", { name: "t15", config: { auth_type: "HMAC", auth: { ...HMAC, header_key: undefined } } }, "config.auth.header_key"],
    ["auth without auth_type on WEBHOOK", { name: "t5", config: { auth: { webhook_secret_key: "x" } } }, "config.auth_type"],
    ["an unknown auth_type", { name: "t16", config: { auth_type: "MAGIC", auth: {} } }, "config.auth_type"],
    ["a provider auth_type on HTTP", { name: "t7", type: "HTTP", config: { auth_type: "STRIPE", auth: { webhook_secret_key: "x" } } }, "config.auth_type"],
  ])("POST /sources – %s → 422 naming the field", async (_label, body, field) => {
    const { status, json } = await api(team, "POST", `${V}/sources`, body);
    expect(status).toBe(422);
    expect(json.handled).toBe(true);
    expect(json.status).toBe(422);
    expect(json.code).toBe("UNPROCESSABLE_ENTITY");
    expect(json.message).toBe("Unprocessable Entity");
    expect(json.data.field).toBe(field);
    expect(typeof json.data.message).toBe("string");
    expect(json.data.message.length).toBeGreaterThan(0);
  });

  it("POST /sources – none of the refused bodies created anything", async () => {
    const { json } = await api(team, "GET", `${V}/sources/count?disabled=true&name[0]=t1&name[1]=t2&name[2]=t3&name[3]=t4&name[4]=t5&name[5]=t6&name[6]=t7`);
    expect(json).toEqual({ count: 0 });
  });

  it.each([
    ["malformed JSON", '{"name":'],
    ["an empty body", ""],
  ])("POST /sources – %s → 400 BAD_REQUEST; nothing created", async (_label, raw) => {
    const before = (await api(team, "GET", `${V}/sources/count?disabled=true`)).json.count;
    const { status, json } = await api(team, "POST", `${V}/sources`, raw);
    expect(status).toBe(400);
    expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
    expect(typeof json.message).toBe("string");
    expect((await api(team, "GET", `${V}/sources/count?disabled=true`)).json.count).toBe(before);
  });
});

describe("PUT /sources (upsert by name)", () => {
  it("PUT /sources – creates the source, then updates the same source (same id, one row)", async () => {
    const created = await api(team, "PUT", `${V}/sources`, { name: "upserted", description: "one" });
    expect(created.status).toBe(200);
    expect(created.json.description).toBe("one");
    const updated = await api(team, "PUT", `${V}/sources`, { name: "upserted", description: "two", config: { allowed_http_methods: ["POST"] } });
    expect(updated.status).toBe(200);
    expect(updated.json.id).toBe(created.json.id);
    expect(updated.json.description).toBe("two");
    expect(updated.json.config.allowed_http_methods).toEqual(["POST"]);
    expect(updated.json.created_at).toBe(created.json.created_at);
    expect((await api(team, "GET", `${V}/sources/count?name=upserted`)).json).toEqual({ count: 1 });
  });

  it("PUT /sources – an invalid body → 422, nothing created", async () => {
    const r = await api(team, "PUT", `${V}/sources`, { name: "upsert-bad", type: "NOPE" });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("type");
    expect((await api(team, "GET", `${V}/sources/count?name=upsert-bad&disabled=true`)).json).toEqual({ count: 0 });
  });

  it("PUT /sources – concurrent upserts of one new name all succeed on one source", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => api(team, "PUT", `${V}/sources`, { name: "raced", description: `d${i}` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    expect((await api(team, "GET", `${V}/sources/count?name=raced`)).json).toEqual({ count: 1 });
  });
});

describe("GET /sources/{id}, PUT /sources/{id}, DELETE /sources/{id}", () => {
  it("GET /sources/{id} – the source as created; unknown id → 404 with the error body", async () => {
    const json = await create({ name: "fetched", description: "d" });
    const got = await api(team, "GET", `${V}/sources/${json.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(json);
    const missing = await api(team, "GET", `${V}/sources/src_doesnotexist000`);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND", data: { id: "src_doesnotexist000" } });
  });

  it("PUT /sources/{id} – partial update keeps what it was not given, credentials included", async () => {
    const json = await create({
      name: "hmac-src",
      description: "keep me",
      config: { auth_type: "HMAC", auth: HMAC, custom_response: { content_type: "text", body: "ok" } },
    });
    const up = await api(team, "PUT", `${V}/sources/${json.id}?include=config.auth`, { config: { allowed_http_methods: ["POST", "GET"] } });
    expect(up.status).toBe(200);
    expect(up.json.config).toEqual({
      allowed_http_methods: ["POST", "GET"],
      custom_response: { content_type: "text", body: "ok" },
      auth_type: "HMAC",
      auth: HMAC,
    });
    expect(up.json.description).toBe("keep me");
    expect(up.json.name).toBe("hmac-src");
    expect(up.json.authenticated).toBe(true);
    expect(Date.parse(up.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(json.updated_at));
    const desc = await api(team, "PUT", `${V}/sources/${json.id}?include=config.auth`, { description: null });
    expect(desc.json.description).toBeNull();
    expect(desc.json.config.auth).toEqual(HMAC);
    // The stored credentials are still the original ones.
    const row = (await stored(json.id))!;
    expect(row.auth_encrypted).not.toContain(HMAC.webhook_secret_key);
  });

  it("PUT /sources/{id} – new credentials replace the old; auth_type null removes verification", async () => {
    const json = await create({ name: "rotate-creds", config: { auth_type: "HMAC", auth: HMAC } });
    const basic = await api(team, "PUT", `${V}/sources/${json.id}?include=config.auth`, {
      config: { auth_type: "BASIC_AUTH", auth: { username: "u", password: "p" } },
    });
    expect(basic.status).toBe(200);
    expect(basic.json.config.auth_type).toBe("BASIC_AUTH");
    expect(basic.json.config.auth).toEqual({ username: "u", password: "p" });
    const newSecret = await api(team, "PUT", `${V}/sources/${json.id}?include=config.auth`, { config: { auth: { username: "u", password: "p2" } } });
    expect(newSecret.json.config.auth).toEqual({ username: "u", password: "p2" });
    const off = await api(team, "PUT", `${V}/sources/${json.id}?include=config.auth`, { config: { auth_type: null } });
    expect(off.status).toBe(200);
    expect(off.json.authenticated).toBe(false);
    expect(off.json.config).toEqual({ allowed_http_methods: GENERIC_METHODS, custom_response: null });
    expect((await stored(json.id))!.auth_encrypted).toBeNull();
  });

  it("PUT /sources/{id} – rename; a name taken by another source → 409 with that source's id", async () => {
    const a = await create({ name: "rename-a" });
    const b = await create({ name: "rename-b" });
    const renamed = await api(team, "PUT", `${V}/sources/${a.id}`, { name: "rename-c" });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe("rename-c");
    const same = await api(team, "PUT", `${V}/sources/${a.id}`, { name: "rename-c" });
    expect(same.status).toBe(200);
    const clash = await api(team, "PUT", `${V}/sources/${a.id}`, { name: "rename-b" });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({ handled: true, status: 409, code: "RESOURCE_ALREADY_EXISTS", data: { id: b.id, resource_type: "source" } });
    expect((await api(team, "GET", `${V}/sources/${a.id}`)).json.name).toBe("rename-c");
  });

  it("PUT /sources/{id} – changing the type takes the new type's defaults", async () => {
    const json = await create({ name: "retyped" });
    const up = await api(team, "PUT", `${V}/sources/${json.id}`, { type: "SHOPIFY" });
    expect(up.status).toBe(200);
    expect(up.json.type).toBe("SHOPIFY");
    expect(up.json.config.allowed_http_methods).toEqual(["POST"]);
  });

  it("PUT /sources/{id} – invalid body → 422 naming the field; unknown id → 404; malformed JSON → 400", async () => {
    const json = await create({ name: "upd-invalid" });
    const bad = await api(team, "PUT", `${V}/sources/${json.id}`, { config: { auth_type: "HMAC", auth: { ...HMAC, encoding: "utf7" } } });
    expect(bad.status).toBe(422);
    expect(bad.json.data.field).toBe("config.auth.encoding");
    const unknown = await api(team, "PUT", `${V}/sources/${json.id}`, { colour: "red" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.data.field).toBe("colour");
    expect((await api(team, "PUT", `${V}/sources/src_nope0000000000`, { description: "x" })).status).toBe(404);
    expect((await api(team, "PUT", `${V}/sources/${json.id}`, "{nope")).status).toBe(400);
    expect((await api(team, "GET", `${V}/sources/${json.id}`)).json).toEqual(json);
  });

  it("DELETE /sources/{id} – {id}; then 404 on get, update, disable and a second delete; gone from lists and counts", async () => {
    const json = await create({ name: "doomed" });
    const del = await api(team, "DELETE", `${V}/sources/${json.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: json.id });
    const gone = await api(team, "GET", `${V}/sources/${json.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND", data: { id: json.id } });
    expect((await api(team, "PUT", `${V}/sources/${json.id}`, { description: "x" })).status).toBe(404);
    expect((await api(team, "PUT", `${V}/sources/${json.id}/disable`)).status).toBe(404);
    expect((await api(team, "DELETE", `${V}/sources/${json.id}`)).status).toBe(404);
    expect((await api(team, "GET", `${V}/sources?id=${json.id}&disabled=true`)).json.models).toEqual([]);
    expect((await api(team, "GET", `${V}/sources/count?id=${json.id}&disabled=true`)).json).toEqual({ count: 0 });
    expect(await stored(json.id)).toBeUndefined();
  });
});

describe("PUT /sources/{id}/disable|enable|archive|unarchive", () => {
  it.each([
    ["disable", "enable"],
    ["archive", "unarchive"],
  ])("PUT /sources/{id}/%s then /%s – disabled_at set (kept on repeat), then cleared", async (off, on) => {
    const json = await create({ name: `toggle-${off}` });
    const first = await api(team, "PUT", `${V}/sources/${json.id}/${off}`);
    expect(first.status).toBe(200);
    expect(first.json.id).toBe(json.id);
    expect(first.json.disabled_at).not.toBeNull();
    expect(Math.abs(Date.parse(first.json.disabled_at) - Date.now())).toBeLessThan(60_000);
    expect("auth" in first.json.config).toBe(false);
    const again = await api(team, "PUT", `${V}/sources/${json.id}/${off}`);
    expect(again.json.disabled_at).toBe(first.json.disabled_at);
    expect((await api(team, "GET", `${V}/sources/${json.id}`)).json.disabled_at).toBe(first.json.disabled_at);
    const back = await api(team, "PUT", `${V}/sources/${json.id}/${on}`);
    expect(back.status).toBe(200);
    expect(back.json.disabled_at).toBeNull();
  });

  it("PUT /sources/{id}/explode – unknown action → 404 gateway body; the source is untouched", async () => {
    const json = await create({ name: "no-explode" });
    const r = await api(team, "PUT", `${V}/sources/${json.id}/explode`);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ handled: true, status: 404, code: "NOT_FOUND" });
    expect((await api(team, "GET", `${V}/sources/${json.id}`)).json.disabled_at).toBeNull();
  });

  it("PUT /sources/{id}/disable – unknown id → 404", async () => {
    expect((await api(team, "PUT", `${V}/sources/src_missing00000000/disable`)).status).toBe(404);
  });
});

describe("GET /sources and /sources/count – filters", () => {
  let t: TestTeam;
  const ids: Record<string, string> = {};
  let disabledAt = "";
  beforeAll(async () => {
    t = await newTeam("filters");
    for (const [name, type] of [
      ["alpha", "WEBHOOK"],
      ["beta", "GITHUB"],
      ["gamma", "GITHUB"],
      ["Delta_1", "STRIPE"],
      ["delta%2", "WEBHOOK"],
      ["off", "WEBHOOK"],
    ]) {
      ids[name] = (await create({ name, type }, t)).id;
    }
    disabledAt = (await api(t, "PUT", `${V}/sources/${ids.off}/disable`)).json.disabled_at;
  });
  const names = async (q: string) => {
    const r = await api(t, "GET", `${V}/sources?${q}`);
    expect(r.status).toBe(200);
    expect(r.json.count).toBe(r.json.models.length);
    // Sorted here: the database collation's order of upper and lower case is not the point.
    return r.json.models.map((m: any) => m.name).sort();
  };
  const count = async (q: string) => (await api(t, "GET", `${V}/sources/count?${q}`)).json.count;

  it("GET /sources – no filter: the team's enabled sources; the disabled one is left out", async () => {
    expect(await names("")).toEqual(["Delta_1", "alpha", "beta", "delta%2", "gamma"]);
    expect(await count("")).toBe(5);
  });

  it("GET /sources – disabled=true includes disabled sources; disabled=false does not", async () => {
    expect(await names("disabled=true")).toEqual(["Delta_1", "alpha", "beta", "delta%2", "gamma", "off"]);
    expect(await count("disabled=true")).toBe(6);
    expect(await names("disabled=false")).toEqual(["Delta_1", "alpha", "beta", "delta%2", "gamma"]);
  });

  it("GET /sources – id: one value and an array", async () => {
    expect(await names(`id=${ids.beta}`)).toEqual(["beta"]);
    expect(await names(`id[]=${ids.beta}&id[]=${ids.alpha}`)).toEqual(["alpha", "beta"]);
    expect(await count(`id[0]=${ids.gamma}&id[1]=${ids.off}`)).toBe(1);
    expect(await count(`id[0]=${ids.gamma}&id[1]=${ids.off}&disabled=true`)).toBe(2);
  });

  it("GET /sources – name: exact, name[0]/name[1], name[], repeated key", async () => {
    expect(await names("name=gamma")).toEqual(["gamma"]);
    expect(await names("name=gam")).toEqual([]);
    expect(await names("name[0]=alpha&name[1]=gamma")).toEqual(["alpha", "gamma"]);
    expect(await names("name[]=beta")).toEqual(["beta"]);
    expect(await names("name[]=beta&name[]=alpha")).toEqual(["alpha", "beta"]);
    expect(await names("name=beta&name=gamma")).toEqual(["beta", "gamma"]);
    expect(await count("name[0]=alpha&name[1]=gamma")).toBe(2);
  });

  it("GET /sources – name[contains]: case-insensitive substring; % and _ are literal characters", async () => {
    expect(await names("name[contains]=MM")).toEqual(["gamma"]);
    expect(await names("name[contains]=delta")).toEqual(["Delta_1", "delta%2"]);
    expect(await names("name[contains]=_")).toEqual(["Delta_1"]);
    expect(await names("name[contains]=%25")).toEqual(["delta%2"]);
    expect(await count("name[contains]=a")).toBe(5);
  });

  it("GET /sources – type: one value and an array", async () => {
    expect(await names("type=GITHUB")).toEqual(["beta", "gamma"]);
    expect(await names("type[]=STRIPE&type[]=GITHUB")).toEqual(["Delta_1", "beta", "gamma"]);
    expect(await count("type=GITHUB")).toBe(2);
    expect(await names("type=github")).toEqual([]);
  });

  it("GET /sources – disabled_at operators: any, gte, gt, lte, lt with date-only and full ISO values", async () => {
    const at = Date.parse(disabledAt);
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await names("disabled_at[any]=true")).toEqual(["off"]);
    expect(await names("disabled_at[any]=false")).toEqual(["Delta_1", "alpha", "beta", "delta%2", "gamma"]);
    expect(await names("disabled_at[gte]=2000-01-01")).toEqual(["off"]);
    expect(await names(`disabled_at[gte]=${iso(at)}`)).toEqual(["off"]);
    expect(await names(`disabled_at[gt]=${iso(at)}`)).toEqual([]);
    expect(await names(`disabled_at[gt]=${iso(at - 1)}`)).toEqual(["off"]);
    expect(await names(`disabled_at[lte]=${iso(at)}`)).toEqual(["off"]);
    expect(await names(`disabled_at[lt]=${iso(at)}`)).toEqual([]);
    expect(await names(`disabled_at[lt]=${iso(at + 1)}`)).toEqual(["off"]);
    expect(await names("disabled_at[lt]=2000-01-01T00:00:00Z")).toEqual([]);
    expect(await names(`disabled_at[gte]=${iso(at - 60_000)}&disabled_at[lte]=${iso(at + 60_000)}`)).toEqual(["off"]);
    expect(await count("disabled_at[any]=true")).toBe(1);
  });

  it("GET /sources – filters combine with AND", async () => {
    expect(await names("type=GITHUB&name[contains]=gam")).toEqual(["gamma"]);
    expect(await names(`type=WEBHOOK&id[]=${ids.beta}`)).toEqual([]);
  });

  it.each([
    ["a bad date", "disabled_at[gte]=nonsense"],
    ["an impossible date", "disabled_at[gte]=2024-02-30"],
    ["an unknown operator", "name[between]=a"],
    ["a date operator on a string", "name[gte]=a"],
    ["contains on a date", "disabled_at[contains]=2024"],
    ["a bad boolean", "disabled=maybe"],
    ["an operator on the disabled switch", "disabled[any]=true"],
    ["an array of dates", "disabled_at[]=2024-01-01"],
    ["an empty name", "name="],
  ])("GET /sources – %s → 400 BAD_REQUEST naming the parameter (count too)", async (_label, query) => {
    for (const path of [`${V}/sources?${query}`, `${V}/sources/count?${query}`]) {
      const { status, json } = await api(t, "GET", path);
      expect(status).toBe(400);
      expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
      expect(json.message).toContain(query.split(/[[=]/)[0]);
    }
  });

  it("GET /sources – include=config.auth reveals credentials in lists; without it no model has auth", async () => {
    const t2 = await newTeam("list-auth");
    await create({ name: "k", config: { auth_type: "API_KEY", auth: { header_key: "x-k", api_key: "list-secret" } } }, t2);
    const hidden = await api(t2, "GET", `${V}/sources`);
    expect(hidden.json.models).toHaveLength(1);
    expect("auth" in hidden.json.models[0].config).toBe(false);
    expect(JSON.stringify(hidden.json)).not.toContain("list-secret");
    const shown = await api(t2, "GET", `${V}/sources?include=config.auth`);
    expect(shown.json.models[0].config.auth).toEqual({ header_key: "x-k", api_key: "list-secret" });
  });
});

describe("versions", () => {
  it("2024-09-01 – flat shape in and out; lower-case verification type accepted; include=verification.configs", async () => {
    const { status, json } = await api(team, "POST", "/2024-09-01/sources", {
      name: "legacy",
      allowed_http_methods: ["POST"],
      custom_response: { content_type: "json", body: '{"ok":true}' },
      verification: { type: "hmac", configs: HMAC },
    });
    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual([
      "allowed_http_methods",
      "created_at",
      "custom_response",
      "description",
      "disabled_at",
      "id",
      "name",
      "team_id",
      "updated_at",
      "url",
      "verification",
    ]);
    expect(json.allowed_http_methods).toEqual(["POST"]);
    expect(json.custom_response).toEqual({ content_type: "json", body: '{"ok":true}' });
    expect(json.verification).toEqual({ type: "HMAC" });
    expect(json.url).toBe(`${BASE_URL}/e/${json.id.slice(4)}`);
    const shown = await api(team, "GET", `/2024-09-01/sources/${json.id}?include=verification.configs`);
    expect(shown.json.verification).toEqual({ type: "HMAC", configs: HMAC });
    const notShown = await api(team, "GET", `/2024-09-01/sources/${json.id}?include=config.auth`);
    expect(notShown.json.verification).toEqual({ type: "HMAC" });
    const modern = await api(team, "GET", `${V}/sources/${json.id}`);
    expect(modern.json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: { content_type: "json", body: '{"ok":true}' }, auth_type: "HMAC" });
    expect(modern.json.type).toBe("WEBHOOK");
    expect(modern.json.authenticated).toBe(true);
  });

  it("2024-09-01 – list, count and disable answer in the flat shape; verification null when none", async () => {
    const t = await newTeam("v2024-list");
    const json = await create({ name: "flat", allowed_http_methods: ["PUT"] }, t, "/2024-09-01");
    expect(json.verification).toBeNull();
    const list = await api(t, "GET", "/2024-09-01/sources");
    expect(list.json.pagination).toEqual({ order_by: "created_at", dir: "desc", limit: 100 });
    expect(list.json.models).toEqual([json]);
    expect((await api(t, "GET", "/2024-09-01/sources/count")).json).toEqual({ count: 1 });
    const off = await api(t, "PUT", `/2024-09-01/sources/${json.id}/disable`);
    expect(off.json.allowed_http_methods).toEqual(["PUT"]);
    expect(off.json.config).toBeUndefined();
  });

  it("2024-09-01 – PUT updates in the flat shape; verification null removes it; other fields kept", async () => {
    const json = await create({ name: "legacy-upd", verification: { type: "STRIPE", configs: { webhook_secret_key: "whsec_old" } } }, team, "/2024-09-01");
    expect(json.verification).toEqual({ type: "STRIPE" });
    const methods = await api(team, "PUT", `/2024-09-01/sources/${json.id}?include=verification.configs`, { allowed_http_methods: ["POST", "GET"] });
    expect(methods.status).toBe(200);
    expect(methods.json.allowed_http_methods).toEqual(["POST", "GET"]);
    expect(methods.json.verification).toEqual({ type: "STRIPE", configs: { webhook_secret_key: "whsec_old" } });
    const off = await api(team, "PUT", `/2024-09-01/sources/${json.id}`, { verification: null });
    expect(off.json.verification).toBeNull();
    expect(off.json.allowed_http_methods).toEqual(["POST", "GET"]);
  });

  it("2024-09-01 – errors name the fields as this version spells them", async () => {
    const bad = await api(team, "POST", "/2024-09-01/sources", { name: "legacy-bad", verification: { type: "HMAC", configs: { ...HMAC, algorithm: "sha3" } } });
    expect(bad.status).toBe(422);
    expect(bad.json.data.field).toBe("verification.configs.algorithm");
    const method = await api(team, "POST", "/2024-09-01/sources", { name: "legacy-bad", allowed_http_methods: ["FETCH"] });
    expect(method.status).toBe(422);
    expect(method.json.data.field).toBe("allowed_http_methods.0");
    const scheme = await api(team, "POST", "/2024-09-01/sources", { name: "legacy-bad", verification: { type: "magic", configs: {} } });
    expect(scheme.status).toBe(422);
    expect(scheme.json.data.field).toBe("verification.type");
  });

  it("2024-09-01 – type and config are not fields of this version → 422 naming them", async () => {
    const typed = await api(team, "POST", "/2024-09-01/sources", { name: "legacy-typed", type: "STRIPE" });
    expect(typed.status).toBe(422);
    expect(typed.json.data.field).toBe("type");
    const configured = await api(team, "POST", "/2024-09-01/sources", { name: "legacy-typed", config: { allowed_http_methods: ["POST"] } });
    expect(configured.status).toBe(422);
    expect(configured.json.data.field).toBe("config");
    expect((await api(team, "GET", `${V}/sources/count?name=legacy-typed&disabled=true`)).json).toEqual({ count: 0 });
  });

  it("no version segment – behaves as 2024-09-01 (create, get, list, count)", async () => {
    const t = await newTeam("unversioned");
    const { status, json } = await api(t, "POST", "/sources", {
      name: "unversioned",
      verification: { type: "stripe", configs: { webhook_secret_key: "whsec_u" } },
    });
    expect(status).toBe(200);
    expect(json.allowed_http_methods).toEqual(GENERIC_METHODS);
    expect(json.verification).toEqual({ type: "STRIPE" });
    expect(json.type).toBeUndefined();
    expect(json.config).toBeUndefined();
    const got = await api(t, "GET", `/sources/${json.id}?include=verification.configs`);
    expect(got.json.verification).toEqual({ type: "STRIPE", configs: { webhook_secret_key: "whsec_u" } });
    expect((await api(t, "GET", "/sources")).json.models.map((m: any) => m.allowed_http_methods)).toEqual([GENERIC_METHODS]);
    expect((await api(t, "GET", "/sources/count")).json).toEqual({ count: 1 });
    expect((await api(t, "POST", "/sources", { name: "typed", type: "STRIPE" })).status).toBe(422);
  });

  it("2025-01-01 – type + config shapes in and out; include=config.auth", async () => {
    const { status, json } = await api(team, "POST", "/2025-01-01/sources?include=config.auth", {
      name: "v2025",
      type: "GITHUB",
      config: { auth: { webhook_secret_key: "gh" } },
    });
    expect(status).toBe(200);
    expect(json.type).toBe("GITHUB");
    expect(json.authenticated).toBe(true);
    expect(json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null, auth_type: "GITHUB", auth: { webhook_secret_key: "gh" } });
    expect(json.allowed_http_methods).toBeUndefined();
    expect(json.verification).toBeUndefined();
    const got = await api(team, "GET", `/2025-01-01/sources/${json.id}`);
    expect(got.json.config).toEqual({ allowed_http_methods: ["POST"], custom_response: null, auth_type: "GITHUB" });
    const flat = await api(team, "POST", "/2025-01-01/sources", { name: "v2025-flat", allowed_http_methods: ["POST"] });
    expect(flat.status).toBe(422);
    expect(flat.json.data.field).toBe("allowed_http_methods");
  });

  it("2025-07-01 – the 2024 flat fields are refused (strict body)", async () => {
    const r = await api(team, "POST", `${V}/sources`, { name: "v2507-flat", verification: { type: "HMAC", configs: HMAC } });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("verification");
  });

  it("CHARGEBEE – accepted in 2025-01-01, refused (422 type) in 2025-07-01 on create and update; CHARGEBEE_BILLING accepted", async () => {
    const old = await api(team, "POST", "/2025-01-01/sources", { name: "cb-old", type: "CHARGEBEE" });
    expect(old.status).toBe(200);
    expect(old.json.type).toBe("CHARGEBEE");
    const r = await api(team, "POST", `${V}/sources`, { name: "cb-new", type: "CHARGEBEE" });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("type");
    const plain = await create({ name: "cb-upd" });
    const upd = await api(team, "PUT", `${V}/sources/${plain.id}`, { type: "CHARGEBEE" });
    expect(upd.status).toBe(422);
    expect(upd.json.data.field).toBe("type");
    expect((await api(team, "PUT", "/2025-01-01/sources", { name: "cb-upd", type: "CHARGEBEE" })).json.type).toBe("CHARGEBEE");
    expect((await api(team, "POST", `${V}/sources`, { name: "cb-billing", type: "CHARGEBEE_BILLING" })).status).toBe(200);
  });

  it("FIREBLOCKS – 2025-07-01 requires config.auth.environment and drops public_key; 2025-01-01 requires nothing and keeps public_key", async () => {
    const missing = await api(team, "POST", `${V}/sources`, { name: "fb1", type: "FIREBLOCKS" });
    expect(missing.status).toBe(422);
    expect(missing.json.data.field).toBe("config.auth.environment");
    const onlyKey = await api(team, "POST", `${V}/sources`, { name: "fb1", type: "FIREBLOCKS", config: { auth: { public_key: "pk" } } });
    expect(onlyKey.status).toBe(422);
    expect(onlyKey.json.data.field).toBe("config.auth.environment");
    const ok = await api(team, "POST", `${V}/sources?include=config.auth`, {
      name: "fb2",
      type: "FIREBLOCKS",
      config: { auth: { environment: "EU", public_key: "pk" } },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.config.auth).toEqual({ environment: "EU" });
    expect((await stored(ok.json.id))!.auth_encrypted).not.toBeNull();
    const old = await api(team, "POST", "/2025-01-01/sources?include=config.auth", { name: "fb3", type: "FIREBLOCKS", config: { auth: { public_key: "pk" } } });
    expect(old.status).toBe(200);
    expect(old.json.config.auth).toEqual({ public_key: "pk" });
    expect((await api(team, "POST", "/2025-01-01/sources", { name: "fb4", type: "FIREBLOCKS" })).status).toBe(200);
  });

  it.each([
    ["GET", "/2023-01-01/sources"],
    ["POST", "/2023-01-01/sources"],
    ["GET", "/2026-01-01/sources/count"],
    ["GET", "/2023-01-01/nothing-here"],
  ])("%s %s – unknown version → 400 with data.supported", async (method, path) => {
    const { status, json } = await api(team, method, path, method === "POST" ? { name: "v-unknown" } : undefined);
    expect(status).toBe(400);
    expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
    expect(json.data.supported).toEqual(["2024-09-01", "2025-01-01", "2025-07-01"]);
    expect(json.data.version).toBe(path.split("/")[1]);
  });
});
