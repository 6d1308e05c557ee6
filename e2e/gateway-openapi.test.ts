/**
 * `GET /api/2025-07-01/openapi` (docs/gateway-api.md: OpenAPI 3.1, generated from the same zod schemas
 * that validate the requests).
 */
import { describe, expect, it } from "vitest";
import { ZSourceCreate } from "@/lib/gateway/sources/schemas";
import { BASE_URL } from "./support/client";

async function doc() {
  const res = await fetch(`${BASE_URL}/api/2025-07-01/openapi`);
  expect(res.status).toBe(200);
  return await res.json();
}

describe("gateway OpenAPI", () => {
  it("GET /api/2025-07-01/openapi – OpenAPI 3.1, version 2025-07-01, server under /api/2025-07-01, no key needed", async () => {
    const d = await doc();
    expect(d.openapi).toBe("3.1.0");
    expect(d.info.version).toBe("2025-07-01");
    expect(d.servers[0].url).toBe(`${BASE_URL}/api/2025-07-01`);
    expect(Object.keys(d.components.securitySchemes).sort()).toEqual(["basic", "bearer"]);
  });

  it("GET /api/2025-07-01/openapi – every $ref resolves inside the document (rule bodies' JSON values included)", async () => {
    const d = await doc();
    const refs = new Set<string>();
    const walk = (o: unknown): void => {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === "object")
        for (const [k, v] of Object.entries(o)) {
          if (k === "$ref" && typeof v === "string") refs.add(v);
          else walk(v);
        }
    };
    walk(d);
    expect(refs.size).toBeGreaterThan(10);
    const resolve = (ref: string) =>
      ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((o: any, part) => o?.[part], d);
    expect([...refs].filter((r) => !r.startsWith("#/") || resolve(r) === undefined)).toEqual([]);
    expect(JSON.stringify(d)).not.toContain("$defs");
    expect(refs).toContain("#/components/schemas/JsonValue");
    expect(d.components.schemas.JsonValue.anyOf).toHaveLength(6);
  });

  it("GET /api/2025-07-01/openapi – every source endpoint is described, with its errors", async () => {
    const d = await doc();
    expect(Object.keys(d.paths["/sources"]).sort()).toEqual(["get", "post", "put"]);
    expect(Object.keys(d.paths["/sources/{id}"]).sort()).toEqual(["delete", "get", "put"]);
    for (const action of ["disable", "enable", "archive", "unarchive"]) expect(d.paths[`/sources/{id}/${action}`].put).toBeDefined();
    expect(d.paths["/sources"].post.responses["409"]).toEqual({ $ref: "#/components/responses/Error409" });
    expect(d.paths["/sources"].get.responses["200"].content["application/json"].schema.properties.models.items).toEqual({
      $ref: "#/components/schemas/Source",
    });
  });

  it("GET /api/2025-07-01/openapi – the five operations of each bulk family, with the BatchOperation record", async () => {
    const d = await doc();
    for (const family of ["events/retry", "events/cancel", "ignored-events/retry", "requests/retry", "requests/replay", "archived-requests/replay"]) {
      expect(Object.keys(d.paths[`/bulk/${family}`]).sort()).toEqual(["get", "post"]);
      expect(d.paths[`/bulk/${family}/plan`].get).toBeDefined();
      expect(d.paths[`/bulk/${family}/{id}`].get).toBeDefined();
      expect(d.paths[`/bulk/${family}/{id}/cancel`].post).toBeDefined();
      expect(d.paths[`/bulk/${family}`].post.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/BatchOperation" });
    }
    expect(Object.keys(d.components.schemas.BatchOperation.properties)).toContain("failed_count");
  });

  it("GET /api/2025-07-01/openapi – issues, triggers, bookmarks, notifications and the seven metrics endpoints", async () => {
    const d = await doc();
    expect(Object.keys(d.paths["/issue-triggers"]).sort()).toEqual(["get", "post", "put"]);
    expect(Object.keys(d.paths["/issues/{id}"]).sort()).toEqual(["delete", "get", "put"]);
    expect(d.paths["/bookmarks/{id}/trigger"].post).toBeDefined();
    expect(d.paths["/notifications/webhooks"].put).toBeDefined();
    for (const name of ["requests", "events", "attempts", "events-by-issue", "queue-depth", "transformations", "events-pending-timeseries"]) {
      expect(d.paths[`/metrics/${name}`].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MetricsResponse" });
    }
  });

  it("GET /api/2025-07-01/openapi – the create body is the zod schema that validates it (strict, name required, 155 max)", async () => {
    const d = await doc();
    const body = d.paths["/sources"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["name"]);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.name.maxLength).toBe(155);
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(ZSourceCreate.shape).sort());
    const source = d.components.schemas.Source;
    expect(source.required).toEqual(expect.arrayContaining(["id", "team_id", "url", "type", "authenticated", "config", "disabled_at"]));
  });

  it("GET /api/2025-07-01/openapi – every list's filters come from the table that validates them (deepObject, typed, order_by)", async () => {
    const d = await doc();
    const params = (path: string) => Object.fromEntries((d.paths[path].get.parameters as any[]).filter((p) => p.in === "query").map((p) => [p.name, p]));
    const sources = params("/sources");
    expect(Object.keys(sources)).toEqual(expect.arrayContaining(["id", "name", "type", "disabled", "disabled_at", "include", "order_by"]));
    expect(sources.disabled_at).toMatchObject({ style: "deepObject", explode: true });
    expect(JSON.stringify(sources.disabled.schema)).toContain('"true"');
    const connections = params("/connections");
    expect(Object.keys(connections)).toEqual(expect.arrayContaining(["full_name", "source_id", "destination_id", "paused_at", "disabled"]));
    expect(connections.type).toBeUndefined();
    const requests = params("/requests");
    expect(Object.keys(requests)).toEqual(
      expect.arrayContaining(["id", "source_id", "status", "rejection_cause", "verified", "ingested_at", "created_at", "include", "order_by"]),
    );
    expect(JSON.stringify(requests.status.schema)).toContain('"rejected"');
    expect(requests.order_by.schema.enum).toEqual(["created_at", "ingested_at"]);
    const transformations = Object.keys(params("/transformations"));
    expect(transformations).toEqual(expect.arrayContaining(["id", "name", "order_by", "limit", "next"]));
    expect(transformations.filter((p) => ["type", "disabled", "disabled_at"].includes(p))).toEqual([]);
  });

  it("GET /api/2024-09-01/openapi – published for 2025-07-01 only → 404", async () => {
    const res = await fetch(`${BASE_URL}/api/2024-09-01/openapi`);
    expect(res.status).toBe(404);
    expect((await res.json()).handled).toBe(true);
  });
});
