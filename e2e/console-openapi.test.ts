/**
 * `GET /openapi.json` (docs/console-api.md): the machine-readable description.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, newTestUrl } from "./support/client";

type Doc = Record<string, any>;

describe("GET /openapi.json", () => {
  let doc: Doc;
  let res: Response;
  beforeAll(async () => {
    res = await fetch(`${BASE_URL}/openapi.json`);
    doc = (await res.json()) as Doc;
  });

  it("GET /openapi.json → 200 JSON, openapi 3.1.0, info.version 0.1.0", () => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.1.0");
    expect(typeof doc.info.title).toBe("string");
  });

  it("GET /openapi.json – POST / documents 201, 422 and 429 (with the rate-limit headers)", () => {
    const post = doc.paths["/"]?.post;
    expect(post).toBeDefined();
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["201", "422", "429"]));
    expect(post.responses["201"].headers).toHaveProperty("Location");
    expect(Object.keys(post.responses["429"].headers)).toEqual(expect.arrayContaining(["Retry-After", "X-RateLimit-Remaining", "X-RateLimit-Reset"]));
    expect(post.responses["201"].content["application/json"].schema.$ref).toBe("#/components/schemas/TestUrl");
    expect(post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/CreateTestUrlRequest");
  });

  it("GET /openapi.json – GET /{id} is documented with its id path parameter", () => {
    const get = doc.paths["/{id}"]?.get;
    expect(get).toBeDefined();
    expect(get.responses).toHaveProperty("200");
    expect(get.responses).toHaveProperty("404");
    expect(get.parameters.find((p: Doc) => p.name === "id" && p.in === "path")).toBeDefined();
  });

  it("GET /openapi.json – TestUrl requires all six properties", () => {
    const testUrl = doc.components.schemas.TestUrl;
    expect(testUrl).toBeDefined();
    const six = ["ingest_url", "inspect_url", "type", "name", "cli_key", "cmd_hint"];
    expect([...testUrl.required].sort()).toEqual([...six].sort());
    for (const p of six) expect(testUrl.properties[p].type).toBe("string");
    expect(testUrl.properties.ingest_url.format).toBe("uri");
    expect(testUrl.properties.inspect_url.format).toBe("uri");
  });

  it("GET /openapi.json – CreateTestUrlRequest allows no other properties, type ≤ 64, name ≤ 155, both optional", () => {
    const req = doc.components.schemas.CreateTestUrlRequest;
    expect(req).toBeDefined();
    expect(req.additionalProperties).toBe(false);
    expect(req.properties.type.type).toBe("string");
    expect(req.properties.type.maxLength).toBe(64);
    expect(req.properties.name.type).toBe("string");
    expect(req.properties.name.maxLength).toBe(155);
    expect(req.required ?? []).toEqual([]);
  });

  it("GET /openapi.json – error schemas match the documented bodies", () => {
    const err = doc.components.schemas.ConsoleError;
    expect([...err.required].sort()).toEqual(["code", "data", "status"]);
    expect(err.properties.data.type).toBe("array");
    expect(err.properties.data.items.type).toBe("string");
    const rl = doc.components.schemas.RateLimitError;
    expect([...rl.required].sort()).toEqual(["error", "message", "retry_after"]);
    expect(rl.properties.retry_after.type).toBe("integer");
  });

  it("GET /openapi.json – every $ref resolves to a component schema", () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        for (const [k, x] of Object.entries(v)) {
          if (k === "$ref" && typeof x === "string") refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas).toHaveProperty(ref.split("/").pop()!);
    }
  });

  it("GET /openapi.json – CapturedRequest is a component with no required field; SourcePreview lists it", () => {
    const captured = doc.components.schemas.CapturedRequest;
    expect(captured).toBeDefined();
    expect(captured.required ?? []).toEqual([]);
    expect(Object.keys(captured.properties)).toEqual(
      expect.arrayContaining(["id", "verb", "received_at", "path", "query", "headers", "body", "verified", "rejection_cause"]),
    );
    const preview = doc.components.schemas.SourcePreview;
    expect([...preview.required].sort()).toEqual(["id", "ingest_url", "name", "requests", "type"]);
    expect(preview.properties.requests.items.$ref).toBe("#/components/schemas/CapturedRequest");
  });

  it("GET /openapi.json – components are plain schemas: no pseudo-components, no $id with a fragment", () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Doc>)) {
      expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(name.startsWith("__")).toBe(false);
      if (typeof schema.$id === "string") expect(schema.$id).not.toContain("#");
    }
  });

  it("GET /openapi.json – a real create answer has exactly the TestUrl properties", async () => {
    const t = await newTestUrl({});
    const { id: _id, cookie: _cookie, ...body } = t;
    expect(Object.keys(body).sort()).toEqual(Object.keys(doc.components.schemas.TestUrl.properties).sort());
  });
});
