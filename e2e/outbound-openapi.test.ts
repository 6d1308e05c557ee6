/**
 * The outbound API's OpenAPI documents (docs/outbound.md): `/outbound/api/v1/openapi.json` (self-hosted) and
 * `/outbound/2025-07-01/openapi.json` (managed), served without credentials by the running server. Each
 * parses, lists every route the wrapper serves for its form (and only those), resolves its references,
 * and its request schemas accept and reject the same bodies as the API does.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOutboundKey } from "@/lib/outbound/auth";
import { OUTBOUND_ROUTES } from "@/lib/outbound/routes";
import { BASE_URL } from "./support/client";
import { outboundCall } from "./support/outbound";

const run = randomBytes(4).toString("hex");
const FORMS = { "self-hosted": "api/v1", managed: "2025-07-01" } as const;
let admin = "";
const docs: Record<string, any> = {};

/** The routes of the outbound API's endpoint list, as `METHOD /path`, on both forms. */
const COMMON = [
  "GET /tenants",
  "GET /tenants/{tenant_id}",
  "PUT /tenants/{tenant_id}",
  "DELETE /tenants/{tenant_id}",
  "GET /tenants/{tenant_id}/token",
  "GET /tenants/{tenant_id}/portal",
  "GET /tenants/{tenant_id}/destinations",
  "POST /tenants/{tenant_id}/destinations",
  "GET /tenants/{tenant_id}/destinations/{destination_id}",
  "PATCH /tenants/{tenant_id}/destinations/{destination_id}",
  "DELETE /tenants/{tenant_id}/destinations/{destination_id}",
  "PUT /tenants/{tenant_id}/destinations/{destination_id}/enable",
  "PUT /tenants/{tenant_id}/destinations/{destination_id}/disable",
  "POST /tenants/{tenant_id}/destinations/{destination_id}/transformation/test",
  "POST /tenants/{tenant_id}/destinations/{destination_id}/ordering/release",
  "GET /tenants/{tenant_id}/destinations/{destination_id}/attempts",
  "GET /tenants/{tenant_id}/destinations/{destination_id}/attempts/{attempt_id}",
  "GET /destination-types",
  "GET /destination-health",
  "GET /destination-types/{type}",
  "GET /topics",
  "GET /catalog",
  "GET /catalog/{topic}",
  "PUT /catalog/{topic}",
  "DELETE /catalog/{topic}",
  "GET /catalog/{topic}/schemas/{version}",
  "POST /redrives/plan",
  "POST /redrives",
  "GET /redrives",
  "GET /redrives/{redrive_id}",
  "POST /redrives/{redrive_id}/cancel",
  "POST /archive-replays/plan",
  "POST /archive-replays",
  "GET /archive-replays",
  "GET /archive-replays/{archive_replay_id}",
  "POST /archive-replays/{archive_replay_id}/cancel",
  "POST /publish",
  "POST /retry",
  "GET /events",
  "GET /events/{event_id}",
  "GET /metrics/events",
  "GET /metrics/attempts",
  "GET /attempts",
  "GET /attempts/{attempt_id}",
  "GET /openapi.json",
];
const EXPECTED = { "self-hosted": [...COMMON, "GET /healthz"], managed: [...COMMON, "GET /config", "PATCH /config"] };
const operations = (doc: any) => Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
const bodySchemaOf = (doc: any, method: string, path: string) => z.fromJSONSchema(doc.paths[path][method].requestBody.content["application/json"].schema);

beforeAll(async () => {
  admin = (await createOutboundKey(`openapi-${run}`)).key;
  for (const [form, base] of Object.entries(FORMS)) {
    const res = await fetch(`${BASE_URL}/outbound/${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    docs[form] = await res.json();
  }
});

describe("outbound OpenAPI documents", () => {
  it("both parse as OpenAPI 3.1 without credentials, with their own server URL and version", () => {
    expect(docs["self-hosted"]).toMatchObject({ openapi: "3.1.0", info: { version: "v1" }, servers: [{ url: expect.stringMatching(/\/outbound\/api\/v1$/) }] });
    expect(docs.managed).toMatchObject({
      openapi: "3.1.0",
      info: { version: "2025-07-01" },
      servers: [{ url: expect.stringMatching(/\/outbound\/2025-07-01$/) }],
    });
    expect(Object.keys(docs.managed.components.securitySchemes).sort()).toEqual(["adminKey", "tenantJwt"]);
  });

  it("each lists exactly the routes the wrapper serves for its form: health only self-hosted, config only managed", () => {
    for (const form of ["self-hosted", "managed"] as const) {
      expect(operations(docs[form]).sort()).toEqual([...EXPECTED[form]].sort());
      const served = OUTBOUND_ROUTES.filter((r) => !r.form || r.form === form).map((r) => `${r.method} /${r.path.replace(/:(\w+)/g, "{$1}")}`);
      expect(operations(docs[form]).sort()).toEqual(served.sort());
    }
    expect(docs["self-hosted"].paths["/healthz"].get.security).toEqual([]);
    expect(docs.managed.paths["/publish"].post.responses["429"]).toBeDefined();
    expect(docs["self-hosted"].paths["/publish"].post.responses["429"]).toBeUndefined();
  });

  it("every $ref resolves inside the document; request bodies are inline schemas", () => {
    for (const doc of Object.values(docs)) {
      const refs = new Set<string>();
      const walk = (o: unknown): void => {
        if (Array.isArray(o)) o.forEach(walk);
        else if (o && typeof o === "object")
          for (const [k, v] of Object.entries(o)) {
            if (k === "$ref" && typeof v === "string") refs.add(v);
            else walk(v);
          }
      };
      walk(doc);
      const resolve = (ref: string) =>
        ref
          .replace(/^#\//, "")
          .split("/")
          .reduce((o: any, part) => o?.[part], doc);
      expect(refs.size).toBeGreaterThan(5);
      expect([...refs].filter((r) => resolve(r) === undefined)).toEqual([]);
      for (const ops of Object.values<any>(doc.paths))
        for (const op of Object.values<any>(ops)) if (op.requestBody) expect(JSON.stringify(op.requestBody)).not.toContain("$ref");
    }
  });

  it("destination bodies carry each type's config and credentials schema", () => {
    const body = docs["self-hosted"].paths["/tenants/{tenant_id}/destinations"].post.requestBody.content["application/json"].schema;
    const variants = body.oneOf as any[];
    expect(variants.map((v) => v.properties.type.const).sort()).toEqual([
      "aws_kinesis",
      "aws_s3",
      "aws_sqs",
      "gateway",
      "gcp_pubsub",
      "kafka",
      "mqtt",
      "nats",
      "rabbitmq",
      "redis_stream",
      "standard_webhook",
      "webhook",
    ]);
    const webhook = variants.find((v) => v.properties.type.const === "webhook");
    expect(webhook.properties.config.required).toEqual(["url"]);
    expect(webhook.properties.config.additionalProperties).toBe(false);
    expect(Object.keys(webhook.properties.credentials.properties)).toEqual(expect.arrayContaining(["secret", "rotate_secret"]));
    const rabbit = variants.find((v) => v.properties.type.const === "rabbitmq");
    expect(rabbit.properties.credentials.required.sort()).toEqual(["password", "username"]);
    expect(docs["self-hosted"].components.schemas.rabbitmq_config.required).toEqual(["server_url"]);
  });

  it("request schemas accept a valid body and reject an invalid one, as the API does", async () => {
    const tenant = `oa-${run}`;
    for (const [form, base] of Object.entries(FORMS)) {
      const doc = docs[form];
      const call = (method: string, path: string, body: unknown) => outboundCall(admin, method, path, body, { form: base });
      const cases: { method: string; path: string; url: string; valid: unknown; invalid: unknown; ok: number }[] = [
        {
          method: "put",
          path: "/tenants/{tenant_id}",
          url: `/tenants/${tenant}-${form}`,
          valid: { metadata: { plan: "pro" } },
          invalid: { metadata: { plan: 1 } },
          ok: 201,
        },
        {
          method: "post",
          path: "/tenants/{tenant_id}/destinations",
          url: `/tenants/${tenant}-${form}/destinations`,
          valid: { type: "webhook", topics: ["user.created"], config: { url: "https://example.com/hook" } },
          invalid: { type: "webhook", topics: ["user.created"], config: {} },
          ok: 201,
        },
        {
          method: "post",
          path: "/tenants/{tenant_id}/destinations",
          url: `/tenants/${tenant}-${form}/destinations`,
          valid: { type: "rabbitmq", topics: "*", config: { server_url: "localhost:5672" }, credentials: { username: "u", password: "p" } },
          invalid: { type: "rabbitmq", topics: "*", config: { server_url: "localhost:5672" }, credentials: { username: "u" } },
          ok: 201,
        },
        {
          method: "post",
          path: "/publish",
          url: "/publish",
          valid: { tenant_id: `${tenant}-${form}`, topic: "user.created", data: { n: 1 } },
          invalid: { tenant_id: `${tenant}-${form}`, data: [1] },
          ok: 202,
        },
        {
          method: "post",
          path: "/retry",
          url: "/retry",
          valid: { event_id: "evt_none", destination_id: "des_none" },
          invalid: { event_id: "evt_none" },
          ok: 404,
        },
        ...(form === "managed"
          ? [{ method: "patch", path: "/config", url: "/config", valid: { MAX_DESTINATIONS_PER_TENANT: null }, invalid: { NOT_A_SETTING: "x" }, ok: 200 }]
          : []),
      ];
      for (const c of cases) {
        const schema = bodySchemaOf(doc, c.method, c.path);
        expect(schema.safeParse(c.valid).success, `${form} ${c.path} valid`).toBe(true);
        expect(schema.safeParse(c.invalid).success, `${form} ${c.path} invalid`).toBe(false);
        // The API agrees: the valid body passes validation (retry then finds no event: 404), the invalid one is a 422.
        expect((await call(c.method.toUpperCase(), c.url, c.valid)).status, `${form} ${c.url} valid`).toBe(c.ok);
        const refused = await call(c.method.toUpperCase(), c.url, c.invalid);
        expect(refused.status, `${form} ${c.url} invalid`).toBe(422);
        expect(refused.json).toMatchObject({ status: 422, message: "validation error", data: expect.any(Array) });
      }
    }
  });
});
