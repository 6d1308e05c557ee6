/**
 * Renaming and deleting a test URL (docs/console-api.md "Renaming and deleting a test URL"):
 * `PATCH /{id}` and `DELETE /{id}`, only with the session cookie of the workspace that created it.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL, BASE_URL_NO_PROXY, newTestUrl, preview, uniqueIp } from "./support/client";

const call = (method: string, id: string, cookie: string | undefined, body?: unknown) =>
  fetch(`${BASE_URL}/${id}`, {
    method,
    headers: { "content-type": "application/json", "x-forwarded-for": uniqueIp(), ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

describe("PATCH /{id} renames a test URL", () => {
  it("→ 200 {id, name} (trimmed) and the preview shows the new name", async () => {
    const t = await newTestUrl({ name: "before" }, { ip: uniqueIp() });
    const res = await call("PATCH", t.id, t.cookie, { name: "  after rename " });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: `src_${t.id}`, name: "after rename" });
    expect((await preview(t.id)).name).toBe("after rename");
  });

  it("bad input → 422 with the field named; nothing changes", async () => {
    const t = await newTestUrl({ name: "keep" }, { ip: uniqueIp() });
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(156) }, { name: 5 }, { name: "ok", extra: 1 }, "{not json"]) {
      const res = await call("PATCH", t.id, t.cookie, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const err = await res.json();
      expect(err.code).toBe("UNPROCESSABLE_ENTITY");
      expect(err.data.length).toBeGreaterThan(0);
    }
    expect((await preview(t.id)).name).toBe("keep");
  });

  it("a name another test URL of the workspace has → 409 CONFLICT", async () => {
    const a = await newTestUrl({ name: "taken" }, { ip: uniqueIp() });
    const b = await newTestUrl({ name: "other" }, { ip: uniqueIp(), cookie: a.cookie });
    const res = await call("PATCH", b.id, a.cookie, { name: "taken" });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("CONFLICT");
    expect((await preview(b.id)).name).toBe("other");
  });

  it("unknown id → 404; without or with another workspace's cookie → 403", async () => {
    const t = await newTestUrl({ name: "mine" }, { ip: uniqueIp() });
    const other = await newTestUrl({}, { ip: uniqueIp() });
    expect((await call("PATCH", "0000000000000000000000", t.cookie, { name: "x" })).status).toBe(404);
    expect((await call("PATCH", t.id, undefined, { name: "x" })).status).toBe(403);
    const foreign = await call("PATCH", t.id, other.cookie, { name: "x" });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).code).toBe("FORBIDDEN");
    expect((await preview(t.id)).name).toBe("mine");
  });
});

describe("DELETE /{id} deletes a test URL", () => {
  it("→ 204; then the preview and the ingest URL answer 404, and a second delete 404", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    expect((await fetch(t.ingest_url, { method: "POST", body: "x" })).status).toBe(200);
    const res = await call("DELETE", t.id, t.cookie);
    expect(res.status).toBe(204);
    expect((await fetch(`${BASE_URL}/${t.id}`, { headers: { accept: "application/json" } })).status).toBe(404);
    expect((await fetch(t.ingest_url, { method: "POST", body: "x" })).status).toBe(404);
    expect((await call("DELETE", t.id, t.cookie)).status).toBe(404);
  });

  it("another server process that still has the test URL cached answers its ingest URL 404 at once, never 500", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    // The second server (its own process and source cache) reads the source now and keeps it for a second.
    const other = t.ingest_url.replace(new URL(t.ingest_url).origin, BASE_URL_NO_PROXY);
    expect((await fetch(other, { method: "POST", body: "x" })).status).toBe(200);
    expect((await call("DELETE", t.id, t.cookie)).status).toBe(204);
    const res = await fetch(other, { method: "POST", body: "x" });
    expect(res.status).toBe(404);
    expect((await res.json()).status).toBe("NOT_FOUND");
  });

  it("unknown id → 404; without or with another workspace's cookie → 403 and nothing is deleted", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const other = await newTestUrl({}, { ip: uniqueIp() });
    expect((await call("DELETE", "0000000000000000000000", t.cookie)).status).toBe(404);
    expect((await call("DELETE", t.id, undefined)).status).toBe(403);
    expect((await call("DELETE", t.id, other.cookie)).status).toBe(403);
    expect((await preview(t.id)).id).toBe(`src_${t.id}`);
  });
});

describe("other methods on /{id}", () => {
  it("PUT and POST /{id} → 405 with Allow naming PATCH and DELETE", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    for (const m of ["PUT", "POST"]) {
      const res = await call(m, t.id, t.cookie, { name: "x" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, PATCH, DELETE");
    }
  });
});

describe("GET /openapi.json documents rename and delete", () => {
  it("PATCH and DELETE /{id} with their error rows", async () => {
    const doc = await (await fetch(`${BASE_URL}/openapi.json`)).json();
    const item = doc.paths["/{id}"];
    expect(Object.keys(item.patch.responses)).toEqual(expect.arrayContaining(["200", "403", "404", "409", "422"]));
    expect(item.patch.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/RenameTestUrlRequest");
    expect(doc.components.schemas.RenameTestUrlRequest.properties.name.maxLength).toBe(155);
    expect(Object.keys(item.delete.responses)).toEqual(expect.arrayContaining(["204", "403", "404"]));
  });
});
