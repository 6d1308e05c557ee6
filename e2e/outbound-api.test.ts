/**
 * The outbound API's foundation (docs/outbound.md#credentials, #errors-and-bad-input,
 * #tenants, #destinations-and-their-types) against the running server, on both deployment forms:
 * the auth matrix (401, 403, a JWT scoped to its tenant), the managed form's rate-limit headers,
 * tenants (PUT 201/200, get, list with paging and count, delete, token, portal), destinations (create,
 * list, get, PATCH merge-patch, rotate_secret, enable, disable, delete, limits, validation), destination
 * types and topics, error bodies, and tenant isolation.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL, OUTBOUND_TYPE_NAMES } from "./support/client";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

let admin = "";
const run = randomBytes(4).toString("hex");
const tid = (name: string) => `${name}-${run}`;

async function call(token: string | null, method: string, path: string, body?: unknown, form = "api/v1") {
  const res = await fetch(`${BASE_URL}/outbound/${form}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  admin = (await createOutboundKey(`test-${run}`)).key;
});

describe("auth", () => {
  it("401 without or with bad credentials, with the outbound error body", async () => {
    expect(await call(null, "GET", "/tenants")).toMatchObject({ status: 401, json: { status: 401, message: "unauthorized" } });
    expect((await call("not-a-key-at-all-xxxx", "GET", "/tenants")).status).toBe(401);
    expect((await call("a.b.c-not-a-valid-jwt-token", "GET", "/tenants")).status).toBe(401);
    expect((await call(admin, "GET", "/nothing")).json).toEqual({ status: 404, message: "not found" });
    expect((await fetch(`${BASE_URL}/outbound/v9/tenants`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(404);
  });

  it("a tenant JWT: its own tenant only, never admin-only routes; 401 once the tenant is deleted", async () => {
    await call(admin, "PUT", `/tenants/${tid("jwt-a")}`);
    await call(admin, "PUT", `/tenants/${tid("jwt-b")}`);
    const { json } = await call(admin, "GET", `/tenants/${tid("jwt-a")}/token`);
    expect(json.tenant_id).toBe(tid("jwt-a"));
    const jwt = json.token as string;
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-a")}`)).status).toBe(200);
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-b")}`)).status).toBe(403);
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-b")}/destinations`)).status).toBe(403);
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-a")}/token`)).status).toBe(403);
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-a")}/portal`)).status).toBe(403);
    const list = await call(jwt, "GET", "/tenants");
    expect(list.json.models.map((t: { id: string }) => t.id)).toEqual([tid("jwt-a")]);
    expect(list.json.count).toBe(1);
    await call(admin, "DELETE", `/tenants/${tid("jwt-a")}`);
    expect((await call(jwt, "GET", `/tenants/${tid("jwt-a")}`)).status).toBe(401);
  });

  it("the managed form has the rate-limit headers (Reset as a Unix timestamp); the self-hosted form has none", async () => {
    const managed = await call(admin, "GET", "/topics", undefined, "2025-07-01");
    expect(managed.status).toBe(200);
    expect(managed.headers.get("x-ratelimit-limit")).toBe("240");
    expect(Number(managed.headers.get("x-ratelimit-remaining"))).toBeLessThan(240);
    expect(managed.headers.get("x-ratelimit-reset")).toMatch(/^\d{10}$/);
    expect((await call(admin, "GET", "/topics")).headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("malformed JSON is a 400, a body over 1 MiB a 413", async () => {
    expect(await call(admin, "PUT", `/tenants/${tid("json")}`, "{oops")).toMatchObject({ status: 400, json: { status: 400, message: "invalid JSON" } });
    const big = await call(admin, "PUT", `/tenants/${tid("big")}`, JSON.stringify({ metadata: { a: "x".repeat(1024 * 1024) } }));
    expect(big.status).toBe(413);
  });
});

describe("tenants", () => {
  it("PUT creates (201) then updates (200); get, list with count and paging, delete", async () => {
    const created = await call(admin, "PUT", `/tenants/${tid("t1")}`, { metadata: { plan: "pro" } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: tid("t1"), destinations_count: 0, topics: [], metadata: { plan: "pro" } });
    const again = await call(admin, "PUT", `/tenants/${tid("t1")}`, { metadata: { plan: "team" } });
    expect(again.status).toBe(200);
    expect(again.json.metadata).toEqual({ plan: "team" });
    expect((await call(admin, "PUT", `/tenants/${tid("t1")}`, { metadata: { plan: 5 } })).status).toBe(422);
    for (const n of ["t2", "t3"]) await call(admin, "PUT", `/tenants/${tid(n)}`);
    const ids = [tid("t1"), tid("t2"), tid("t3")];
    const first = await call(admin, "GET", `/tenants?limit=2&dir=asc&${ids.map((i) => `id=${i}`).join("&")}`);
    expect(first.json.models.map((t: { id: string }) => t.id)).toEqual(ids.slice(0, 2));
    expect(first.json.count).toBe(3);
    expect(first.json.pagination).toMatchObject({ order_by: "created_at", dir: "asc", limit: 2, prev: null });
    const second = await call(admin, "GET", `/tenants?limit=2&dir=asc&${ids.map((i) => `id=${i}`).join("&")}&next=${first.json.pagination.next}`);
    expect(second.json.models.map((t: { id: string }) => t.id)).toEqual([ids[2]]);
    expect(second.json.pagination.next).toBeNull();
    const back = await call(admin, "GET", `/tenants?limit=2&dir=asc&${ids.map((i) => `id=${i}`).join("&")}&prev=${second.json.pagination.prev}`);
    expect(back.json.models.map((t: { id: string }) => t.id)).toEqual(ids.slice(0, 2));
    expect((await call(admin, "GET", "/tenants?limit=0")).status).toBe(400);
    expect((await call(admin, "GET", "/tenants?limit=101")).status).toBe(400);
    expect((await call(admin, "GET", "/tenants?next=a&prev=b")).status).toBe(400);
    expect((await call(admin, "GET", "/tenants?next=garbage")).status).toBe(400);
    expect((await call(admin, "GET", `/tenants?created_at[gte]=2999-01-01&id=${tid("t1")}`)).json.count).toBe(0);
    expect(await call(admin, "DELETE", `/tenants/${tid("t3")}`)).toMatchObject({ status: 200, json: { success: true } });
    expect((await call(admin, "GET", `/tenants/${tid("t3")}`)).json).toEqual({ status: 404, message: "tenant not found" });
  });

  it("the portal URL carries a tenant token and the theme", async () => {
    const { json } = await call(admin, "GET", `/tenants/${tid("t1")}/portal?theme=dark`);
    const url = new URL(json.redirect_url);
    expect(url.pathname).toBe("/portal");
    expect(url.searchParams.get("theme")).toBe("dark");
    expect((await call(url.searchParams.get("token"), "GET", `/tenants/${tid("t1")}`)).status).toBe(200);
    expect((await call(admin, "GET", `/tenants/${tid("t1")}/portal?theme=pink`)).status).toBe(400);
    expect((await call(admin, "GET", `/tenants/nobody-${run}/token`)).status).toBe(404);
  });
});

describe("destinations", () => {
  const T = tid("dest");
  const base = `/tenants/${T}/destinations`;
  beforeAll(async () => {
    await call(admin, "PUT", `/tenants/${T}`);
  });

  it("create a webhook destination: a generated secret, headers as JSON text, disabled_at null", async () => {
    const { status, json } = await call(admin, "POST", base, {
      type: "webhook",
      topics: ["user.created", "user.created"],
      config: { url: "https://example.com/hook", custom_headers: { "x-env": "prod" } },
    });
    expect(status, JSON.stringify(json)).toBe(201);
    expect(json).toMatchObject({
      tenant_id: T,
      type: "webhook",
      topics: ["user.created"],
      config: { url: "https://example.com/hook", custom_headers: '{"x-env":"prod"}' },
      disabled_at: null,
      filter: null,
    });
    expect(json.id).toMatch(/^des_/);
    expect(json.credentials.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect((await call(admin, "GET", `/tenants/${T}`)).json).toMatchObject({ destinations_count: 1, topics: ["user.created"] });
  });

  it("validation: 422 with an array of messages", async () => {
    const bad = await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: "ftp://x", custom_headers: {} } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe("validation error");
    expect(bad.json.data).toEqual(expect.arrayContaining(["config.url failed pattern validation", "config.custom_headers must not be empty; omit it instead"]));
    expect((await call(admin, "POST", base, { type: "webhook", topics: "*", config: {} })).json.data).toContain("config.url is required");
    expect((await call(admin, "POST", base, { type: "carrier-pigeon", topics: "*", config: {} })).status).toBe(422);
    expect((await call(admin, "POST", base, { type: "webhook", topics: [], config: { url: "https://x.y" } })).status).toBe(422);
    expect((await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: "https://x.y", nope: "1" } })).json.data).toContain(
      "config.nope is forbidden",
    );
    expect((await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: "https://x.y", custom_headers: { host: "evil" } } })).status).toBe(
      422,
    );
    expect((await call(admin, "POST", `/tenants/nobody-${run}/destinations`, { type: "webhook", topics: "*", config: { url: "https://x.y" } })).status).toBe(
      404,
    );
  });

  it("PATCH merges config and credentials, type cannot change, rotate_secret keeps the old secret as previous", async () => {
    const { json: d } = await call(admin, "POST", base, {
      type: "webhook",
      topics: "*",
      config: { url: "https://a.example/h", custom_headers: { a: "1" } },
      credentials: { secret: "s3cret-given-by-the-operator" },
    });
    expect(d.credentials.secret).toBe("s3cret-given-by-the-operator");
    const patched = await call(admin, "PATCH", `${base}/${d.id}`, {
      config: { custom_headers: null },
      topics: ["order.paid"],
      filter: { data: { amount: { $gte: 10 } } },
    });
    expect(patched.json).toMatchObject({ config: { url: "https://a.example/h" }, topics: ["order.paid"], filter: { data: { amount: { $gte: 10 } } } });
    expect(patched.json.config.custom_headers).toBeUndefined();
    expect((await call(admin, "PATCH", `${base}/${d.id}`, { type: "rabbitmq" })).json).toEqual({
      status: 422,
      message: "validation error",
      data: ["type cannot be updated"],
    });
    const rotated = await call(admin, "PATCH", `${base}/${d.id}`, { credentials: { rotate_secret: true } });
    expect(rotated.json.credentials.secret).toMatch(/^whsec_/);
    expect(rotated.json.credentials.previous_secret).toBe("s3cret-given-by-the-operator");
    expect(Date.parse(rotated.json.credentials.previous_secret_invalid_at)).toBeGreaterThan(Date.now());
    expect((await call(admin, "PATCH", `${base}/${d.id}`, { filter: null })).json.filter).toBeNull();
  });

  it("a tenant JWT may rotate but not set secrets", async () => {
    const jwt = (await call(admin, "GET", `/tenants/${T}/token`)).json.token;
    const { json: d } = await call(jwt, "POST", base, { type: "webhook", topics: "*", config: { url: "https://b.example/h" } });
    expect(d.credentials.secret).toMatch(/^whsec_/);
    expect((await call(jwt, "PATCH", `${base}/${d.id}`, { credentials: { secret: "mine-now-mine-now" } })).json.data).toContain(
      "credentials.secret is forbidden",
    );
    expect((await call(jwt, "PATCH", `${base}/${d.id}`, { credentials: { rotate_secret: true } })).status).toBe(200);
    expect(
      (await call(jwt, "POST", base, { type: "webhook", topics: "*", config: { url: "https://b.example/h" }, created_at: "2020-01-01T00:00:00Z" })).status,
    ).toBe(403);
  });

  it("rabbitmq credentials are obfuscated on read; standard webhooks get a whsec_ base64 secret", async () => {
    const rabbit = await call(admin, "POST", base, {
      type: "rabbitmq",
      topics: "*",
      config: { server_url: "localhost:5672", exchange: "events", tls: "on" },
      credentials: { username: "guest", password: "a-long-password" },
    });
    expect(rabbit.status, JSON.stringify(rabbit.json)).toBe(201);
    expect(rabbit.json.config).toEqual({ server_url: "localhost:5672", exchange: "events", tls: "true" });
    expect(rabbit.json.credentials).toEqual({ username: "guest", password: "a-lo***********" });
    const std = await call(admin, "POST", base, { type: "standard_webhook", topics: "*", config: { url: "https://c.example/h" } });
    expect(std.json.credentials.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("list with filters, enable, disable, delete; limit of destinations per tenant", async () => {
    const all = await call(admin, "GET", base);
    expect(Array.isArray(all.json)).toBe(true);
    const n = all.json.length;
    expect((await call(admin, "GET", `${base}?type=rabbitmq`)).json).toHaveLength(1);
    expect((await call(admin, "GET", `${base}?topics=user.created`)).json.length).toBeGreaterThanOrEqual(1);
    const id = all.json[0].id;
    const disabled = await call(admin, "PUT", `${base}/${id}/disable`);
    expect(disabled.json.disabled_at).not.toBeNull();
    expect((await call(admin, "PUT", `${base}/${id}/disable`)).json.disabled_at).toBe(disabled.json.disabled_at);
    expect((await call(admin, "PUT", `${base}/${id}/enable`)).json.disabled_at).toBeNull();
    expect(await call(admin, "DELETE", `${base}/${id}`)).toMatchObject({ status: 200, json: { success: true } });
    expect((await call(admin, "GET", `${base}/${id}`)).status).toBe(404);
    for (let i = n - 1; i < 20; i++) await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: `https://fill.example/${i}` } });
    const over = await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: "https://fill.example/over" } });
    expect(over).toMatchObject({ status: 400, json: { status: 400, message: "maximum number of destinations per tenant reached" } });
  });

  it("another tenant's JWT sees none of it; an id taken is a 400", async () => {
    await call(admin, "PUT", `/tenants/${tid("other")}`);
    const jwt = (await call(admin, "GET", `/tenants/${tid("other")}/token`)).json.token;
    const { json: list } = await call(admin, "GET", base);
    expect((await call(jwt, "GET", `${base}/${list[0].id}`)).status).toBe(403);
    expect((await call(admin, "GET", `/tenants/${tid("other")}/destinations/${list[0].id}`)).status).toBe(404);
    await call(admin, "PUT", `/tenants/${tid("ids")}`);
    const first = await call(admin, "POST", `/tenants/${tid("ids")}/destinations`, {
      id: `des_fixed_${run}`,
      type: "webhook",
      topics: "*",
      config: { url: "https://x.example" },
    });
    expect(first.status).toBe(201);
    expect(
      (
        await call(admin, "POST", `/tenants/${tid("ids")}/destinations`, {
          id: `des_fixed_${run}`,
          type: "webhook",
          topics: "*",
          config: { url: "https://x.example" },
        })
      ).json,
    ).toEqual({ status: 400, message: "destination already exists" });
  });
});

describe("health", () => {
  it("GET /outbound/api/v1/healthz answers without credentials; the managed form has none", async () => {
    const res = await fetch(`${BASE_URL}/outbound/api/v1/healthz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      status: "healthy",
      workers: { "http-server": { status: "healthy" }, "delivery-worker": { status: "healthy" }, "retry-scheduler": { status: "healthy" } },
    });
    expect(Number.isFinite(Date.parse(body.timestamp))).toBe(true);
    expect((await fetch(`${BASE_URL}/outbound/2025-07-01/healthz`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(404);
  });
});

describe("destination types and topics", () => {
  it("each type's schema, with the fields a form needs", async () => {
    const { json } = await call(admin, "GET", "/destination-types");
    expect(json.map((t: { type: string }) => t.type)).toEqual(OUTBOUND_TYPE_NAMES);
    const webhook = (await call(admin, "GET", "/destination-types/webhook")).json;
    expect(Object.keys(webhook).sort()).toEqual(["config_fields", "credential_fields", "description", "icon", "instructions", "label", "type"]);
    expect(webhook.icon).toMatch(/^<svg/);
    expect(webhook.config_fields[0]).toMatchObject({ key: "url", type: "text", required: true, pattern: "^https?:\\/\\/[^\\s]+$" });
    expect((await call(admin, "GET", "/destination-types/fax")).status).toBe(404);
    expect((await call(admin, "GET", "/topics")).json).toEqual([]);
  });
});

describe("configuration (managed form; own server, since settings are instance-wide)", () => {
  let server: RunningServer | undefined;
  let database: Awaited<ReturnType<typeof privateDatabase>> | undefined;
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });
  it("GET and PATCH /config: applied without a restart, null restores the default, unknown keys are 422", async () => {
    database = await privateDatabase("outcfg");
    const key = `hko_cfg_${randomBytes(12).toString("hex")}`;
    server = await startServer({ DATABASE_URL: database.url, OUTBOUND_API_KEY: key, WORKER_ENABLED: "false" });
    const at = async (form: string, method: string, path: string, body?: unknown, token = key) => {
      const res = await fetch(`${server!.url}/outbound/${form}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    };
    const managed = (method: string, body?: unknown) => at("2025-07-01", method, "/config", body);
    const before = await managed("GET");
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ TOPICS: "", MAX_DESTINATIONS_PER_TENANT: "20", DESTINATIONS_WEBHOOK_HEADER_PREFIX: "x-outbound-" });
    const patched = await managed("PATCH", { TOPICS: "order.paid,order.refunded" });
    expect(patched.json.TOPICS).toBe("order.paid,order.refunded");
    // In effect at once: the topics list and publish's validation read it.
    expect((await at("api/v1", "GET", "/topics")).json).toEqual(["order.paid", "order.refunded"]);
    await at("api/v1", "PUT", "/tenants/cfg");
    expect((await at("api/v1", "POST", "/publish", { tenant_id: "cfg", topic: "user.created", data: {} })).json).toEqual({
      status: 422,
      message: "validation error",
      data: ["topic is invalid"],
    });
    expect((await managed("PATCH", { TOPICS: null })).json.TOPICS).toBe("");
    expect((await at("api/v1", "GET", "/topics")).json).toEqual([]);
    const bad = await managed("PATCH", { NOPE: "1", MAX_RETRY_LIMIT: "many" });
    expect(bad.status).toBe(422);
    expect(bad.json.data).toEqual(["NOPE is not a supported setting", "MAX_RETRY_LIMIT must be a number from 0 to 100"]);
    expect((await at("api/v1", "GET", "/config")).status).toBe(404);
    const jwt = (await at("api/v1", "GET", "/tenants/cfg/token")).json.token;
    expect((await at("2025-07-01", "GET", "/config", undefined, jwt)).status).toBe(403);
  }, 60_000);
});

describe("destination answers keep their exact shape (docs/outbound.md#destinations-and-their-types)", () => {
  it("key order, null against {}, timestamps with milliseconds, across create, PATCH, disable, enable, list and get", async () => {
    const T = tid("shape");
    await call(admin, "PUT", `/tenants/${T}`);
    const base = `/tenants/${T}/destinations`;
    const created = await call(admin, "POST", base, {
      id: `des_shape_${run}`,
      type: "rabbitmq",
      topics: ["b.two", "a.one", "b.two"],
      config: { server_url: "localhost:5672", exchange: "orders" },
      credentials: { username: "guest", password: "pw" },
      created_at: "2020-01-02T03:04:05Z",
      updated_at: "2020-01-02T03:04:05.5+01:00",
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const keys = [
      "id",
      "tenant_id",
      "type",
      "topics",
      "filter",
      "config",
      "credentials",
      "delivery_metadata",
      "metadata",
      "created_at",
      "updated_at",
      "disabled_at",
      "target",
    ];
    expect(Object.keys(created.json)).toEqual(keys);
    expect(created.json).toEqual({
      id: `des_shape_${run}`,
      tenant_id: T,
      type: "rabbitmq",
      topics: ["b.two", "a.one"],
      filter: null,
      config: { server_url: "localhost:5672", exchange: "orders", tls: "false" },
      credentials: { username: "guest", password: "**" },
      delivery_metadata: null,
      metadata: null,
      created_at: "2020-01-02T03:04:05.000Z",
      updated_at: "2020-01-02T02:04:05.500Z",
      disabled_at: null,
      target: "localhost:5672 → orders",
    });
    expect((await call(admin, "GET", `${base}/${created.json.id}`)).json).toEqual(created.json);
    // A PATCH writes both maps (absent ones become {}), `filter: {}` is stored as null, updated_at moves on.
    const patched = await call(admin, "PATCH", `${base}/${created.json.id}`, { filter: {}, metadata: { a: "1" } });
    expect(Object.keys(patched.json)).toEqual(keys);
    expect(patched.json).toMatchObject({
      filter: null,
      delivery_metadata: {},
      metadata: { a: "1" },
      created_at: "2020-01-02T03:04:05.000Z",
      disabled_at: null,
    });
    expect(patched.json.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(patched.json.updated_at)).toBeGreaterThan(Date.parse("2021-01-01"));
    const disabled = await call(admin, "PUT", `${base}/${created.json.id}/disable`);
    expect(Object.keys(disabled.json)).toEqual(keys);
    expect(disabled.json.disabled_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const patchedWhileDisabled = await call(admin, "PATCH", `${base}/${created.json.id}`, { metadata: null });
    expect(patchedWhileDisabled.json).toMatchObject({ disabled_at: disabled.json.disabled_at, metadata: {} });
    expect((await call(admin, "PUT", `${base}/${created.json.id}/enable`)).json.disabled_at).toBeNull();
    expect((await call(admin, "PUT", `/tenants/${T}/destinations/des_none_${run}/disable`)).json).toEqual({ status: 404, message: "destination not found" });
    expect((await call(admin, "PATCH", `/tenants/${T}/destinations/des_none_${run}`, {})).json).toEqual({ status: 404, message: "destination not found" });
    expect((await call(admin, "DELETE", `/tenants/${T}/destinations/des_none_${run}`)).json).toEqual({ status: 404, message: "destination not found" });
    // Lists: oldest first; `topics` matches a listed topic or `*`; `type` filters.
    const star = await call(admin, "POST", base, { type: "webhook", topics: "*", config: { url: "https://shape.example/h" } });
    expect(star.json.topics).toEqual(["*"]);
    const list = async (q: string) => ((await call(admin, "GET", `${base}${q}`)).json as { id: string }[]).map((d) => d.id);
    expect(await list("")).toEqual([created.json.id, star.json.id]);
    expect(await list("?topics=a.one")).toEqual([created.json.id, star.json.id]);
    expect(await list("?topics=c.three")).toEqual([star.json.id]);
    expect(await list("?type=rabbitmq&topics=c.three")).toEqual([]);
    expect(await list("?type=webhook&type=rabbitmq")).toEqual([created.json.id, star.json.id]);
    expect((await call(admin, "GET", base)).json[0]).toEqual((await call(admin, "GET", `${base}/${created.json.id}`)).json);
  });
});
