/**
 * The event catalog and publish validation (docs/outbound.md "Event catalog") against the running server:
 * a topic's description, schema and example set with the admin key; invalid, oversized and too deep
 * schemas refused with a 422 naming the reason (never a 500); versions counted up only when the schema
 * changes; publish with `off` (accepted, unchecked), `warn` (accepted, warnings on the event, counted in
 * metrics) and `enforce` (422 with JSON pointers and messages, nothing written); and a tenant seeing only
 * the topics it can subscribe to.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { metricsText } from "@/lib/observability/metrics";
import { checkEvent, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, refreshCatalog } from "@/lib/outbound/catalog";
import { db } from "./support/client";
import { outboundCall as call } from "./support/outbound";
import { eventually } from "./support/receiver";

let admin = "";
const run = randomBytes(4).toString("hex");
const topic = `order.paid.${run}`;
const tenant = `catalog-${run}`;
const schema = {
  type: "object",
  required: ["order_id", "amount"],
  properties: { order_id: { type: "string", description: "Our order id" }, amount: { type: "integer", minimum: 0 } },
  additionalProperties: false,
};

beforeAll(async () => {
  admin = (await createOutboundKey(`catalog-${run}`)).key;
  await call(admin, "PUT", `/tenants/${tenant}`);
});

/** Publishes `data` on `topic`; the catalog reaches the publish path within its 2 s cache, so this retries until `expected` is answered. */
async function publishUntil(data: unknown, expected: number) {
  return eventually(
    async () => {
      const r = await call(admin, "POST", "/publish", { tenant_id: tenant, topic, data });
      return r.status === expected ? r : null;
    },
    10_000,
    200,
  );
}

/** This process's `hookyard_schema_validations_total` for `outcome` (the test runs checkEvent itself: the server's /metrics needs METRICS_TOKEN). */
const schemaCounter = async (outcome: string) => {
  const text = (await metricsText()).body;
  const line = text.split("\n").find((l) => l.startsWith(`hookyard_schema_validations_total{product="outbound",outcome="${outcome}"}`));
  return Number(line?.split(" ").at(-1) ?? 0);
};

describe("the catalog through the operator API", () => {
  it("refuses bad schemas and examples with a 422 naming the reason, and a tenant JWT with a 403", async () => {
    const bad = [
      { schema: { type: "nope" } },
      { schema: { type: "object", unknownKeyword: true } },
      { schema: { type: "string", format: "no-such-format" } },
      { schema: { $ref: "https://example.com/remote.json" } },
      { schema: { $schema: "http://json-schema.org/draft-07/schema#" } },
      { schema: { type: "object", properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: "string" }])) } },
      { schema: JSON.parse(`${'{"items":'.repeat(MAX_SCHEMA_DEPTH + 1)}{}${"}".repeat(MAX_SCHEMA_DEPTH + 1)}`) },
      { schema, example: { order_id: 1 } },
      { validation: "enforce" },
      { validation: "always" },
    ];
    for (const body of bad) {
      const r = await call(admin, "PUT", `/catalog/${topic}`, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(r.json).toMatchObject({ status: 422, message: "validation error" });
      expect(r.json.data.length).toBeGreaterThan(0);
    }
    const sizes = await call(admin, "PUT", `/catalog/${topic}`, bad[5]);
    expect(sizes.json.data).toEqual([`schema: larger than ${MAX_SCHEMA_BYTES} bytes`]);
    const example = await call(admin, "PUT", `/catalog/${topic}`, bad[7]);
    expect(example.json.data).toEqual(expect.arrayContaining(["example/order_id: must be string", "example: must have required property 'amount'"]));
    // Nothing was written by any of them.
    expect((await call(admin, "GET", `/catalog/${topic}`)).status).toBe(404);
    const jwt = (await call(admin, "GET", `/tenants/${tenant}/token`)).json.token;
    expect((await call(jwt, "PUT", `/catalog/${topic}`, { description: "x" })).status).toBe(403);
  });

  it("creates (201) and updates (200) an entry; a changed schema is the next version, the same one keeps its version", async () => {
    const created = await call(admin, "PUT", `/catalog/${topic}`, { description: "An order was paid", schema, example: { order_id: "o_1", amount: 5 } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      topic,
      description: "An order was paid",
      validation: "off",
      schema_version: 1,
      schema,
      example: { order_id: "o_1", amount: 5 },
    });
    const same = await call(admin, "PUT", `/catalog/${topic}`, { schema: JSON.parse(JSON.stringify(schema)), validation: "warn" });
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ schema_version: 1, validation: "warn", description: "An order was paid" });
    const v2 = { ...schema, properties: { ...schema.properties, note: { type: "string" } } };
    const changed = await call(admin, "PUT", `/catalog/${topic}`, { schema: v2 });
    expect(changed.json.schema_version).toBe(2);
    await call(admin, "PUT", `/catalog/${topic}`, { schema });
    expect((await call(admin, "GET", `/catalog/${topic}`)).json).toMatchObject({ schema_version: 3, schema, validation: "warn" });
    expect((await call(admin, "GET", `/catalog/${topic}/schemas/2`)).json).toMatchObject({ topic, version: 2, schema: v2 });
    expect((await call(admin, "GET", `/catalog/${topic}/schemas/9`)).status).toBe(404);
  });
});

describe("publish validation", () => {
  it("warn: accepted, the failures recorded on the event with the version, and counted", async () => {
    await call(admin, "PUT", `/catalog/${topic}`, { validation: "warn" });
    // Publishes until the event was checked: the server's catalog cache may be re-read after a concurrent
    // test file's change to the shared server's settings (the fuzz test sends PATCH /config).
    const event = await eventually(
      async () => {
        const r = await publishUntil({ order_id: 7, amount: -1, extra: true }, 202);
        const e = await eventually(async () => {
          const got = await call(admin, "GET", `/events/${r.json.id}`);
          return got.status === 200 ? got.json : null;
        });
        return e.schema_version === 3 ? e : null;
      },
      20_000,
      500,
    );
    expect(event.schema_version).toBe(3);
    expect(event.schema_warnings).toEqual(
      expect.arrayContaining(["/data/order_id: must be string", "/data/amount: must be >= 0", "/data: must NOT have additional properties (extra)"]),
    );
    // The same check in this process: its warning is counted in the metrics.
    await refreshCatalog(true);
    const before = await schemaCounter("warned");
    expect(checkEvent(topic, { order_id: 7, amount: 1 })).toEqual({ version: 3, warnings: ["/data/order_id: must be string"] });
    expect(await schemaCounter("warned")).toBe(before + 1);
    // A valid one is checked too: the version, no warnings.
    const ok = await call(admin, "POST", "/publish", { tenant_id: tenant, topic, data: { order_id: "o_2", amount: 3 } });
    const okEvent = (await call(admin, "GET", `/events/${ok.json.id}`)).json;
    expect(okEvent.schema_version).toBe(3);
    expect(okEvent.schema_warnings).toBeUndefined();
  });

  it("enforce: 422 with the failing pointers and messages, nothing written; a valid event is accepted", async () => {
    await call(admin, "PUT", `/catalog/${topic}`, { validation: "enforce" });
    await publishUntil({ order_id: 7 }, 422);
    const id = `evt_bad_${run}`;
    const refused = await call(admin, "POST", "/publish", { id, tenant_id: tenant, topic, data: { order_id: 7 } });
    expect(refused.json).toEqual({
      status: 422,
      message: "validation error",
      data: ["/data: must have required property 'amount'", "/data/order_id: must be string"],
    });
    expect((await db().query("SELECT count(*)::int AS n FROM outbound_events WHERE id = $1", [id])).rows[0].n).toBe(0);
    const ok = await call(admin, "POST", "/publish", { tenant_id: tenant, topic, data: { order_id: "o_3", amount: 1 } });
    expect(ok.status).toBe(202);
  });

  it("off: accepted without a check; another topic is never checked", async () => {
    await call(admin, "PUT", `/catalog/${topic}`, { validation: "off" });
    const r = await publishUntil({ order_id: 7 }, 202);
    const event = (await call(admin, "GET", `/events/${r.json.id}`)).json;
    expect(event.schema_version).toBeUndefined();
    expect(event.schema_warnings).toBeUndefined();
    const other = await call(admin, "POST", "/publish", { tenant_id: tenant, topic: `other.${run}`, data: { anything: 1 } });
    expect(other.status).toBe(202);
  });
});

describe("what a tenant sees", () => {
  it("a tenant JWT reads the catalog (topics it can subscribe to); the admin's DELETE removes an entry", async () => {
    const jwt = (await call(admin, "GET", `/tenants/${tenant}/token`)).json.token;
    const list = await call(jwt, "GET", "/catalog");
    expect(list.status).toBe(200);
    expect(list.json.models.find((t: { topic: string }) => t.topic === topic)).toMatchObject({ description: "An order was paid", schema_version: 3 });
    expect((await call(jwt, "GET", `/catalog/${topic}`)).status).toBe(200);
    expect((await call(jwt, "DELETE", `/catalog/${topic}`)).status).toBe(403);
    expect((await call(admin, "DELETE", `/catalog/${topic}`)).json).toEqual({ success: true });
    expect((await call(jwt, "GET", `/catalog/${topic}`)).status).toBe(404);
  });
});
