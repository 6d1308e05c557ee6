/**
 * Ingestion and list behaviours of the gateway (docs/gateway-api.md#content-types-at-ingestion): ingestion's UNSUPPORTED_CONTENT_TYPE and
 * UNPARSABLE_JSON rejections (team sources only; console test URLs still capture anything), and the
 * version lifecycle: `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers on deprecated versions,
 * and 410 for versions past their sunset when GATEWAY_ENFORCE_VERSION_SUNSET is set (own server).
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { deprecationOf, lifecycleHeaders, sunsetOf } from "@/lib/gateway/versions/lifecycle";
import { newTestUrl } from "./support/client";
import { api, newTeam } from "./support/gateway";
import { connectionTo, eventsOf, requestRow, send } from "./support/pipeline";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

describe("content types at ingestion", () => {
  it.each([
    ["application/octet-stream", "\u0001\u0002", 415, "UNSUPPORTED_CONTENT_TYPE"],
    ["image/png", "png", 415, "UNSUPPORTED_CONTENT_TYPE"],
    ["application/json", "{not json", 400, "UNPARSABLE_JSON"],
    ["application/vnd.api+json; charset=utf-8", "[1,", 400, "UNPARSABLE_JSON"],
  ])("%s with %j is rejected as %s and kept for inspection", async (type, body, status, cause) => {
    const team = await newTeam("content");
    const conn = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/none" } } });
    const res = await send(conn.source.url, body, { headers: { "content-type": type } });
    expect(res.status).toBe(status);
    expect(JSON.parse(res.text)).toMatchObject({ status: cause, request_id: res.requestId });
    expect((await requestRow(res.requestId)).rejection_cause).toBe(cause);
    const listed = await api(team, "GET", `/2025-07-01/requests?rejection_cause=${cause}`);
    expect(listed.json.models.map((r: { id: string }) => r.id)).toEqual([res.requestId]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await eventsOf(res.requestId)).toEqual([]);
  });

  it.each([
    ["application/json", '{"ok":true}'],
    ["application/cloudevents+json", '{"specversion":"1.0"}'],
    ["text/plain; charset=utf-8", "hello"],
    ["application/x-www-form-urlencoded", "a=1&b=2"],
    ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'],
    ["application/xml", "<a/>"],
    ["application/x-ndjson", '{"a":1}\n{"a":2}\n'],
  ])("%s is accepted", async (type, body) => {
    const team = await newTeam("content-ok");
    const conn = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/none" } } });
    const res = await send(conn.source.url, body, { headers: { "content-type": type } });
    expect(res.status, res.text).toBe(200);
    expect((await requestRow(res.requestId)).rejection_cause).toBeNull();
  });

  it("a body without a content type, and console test URLs with any content, are captured", async () => {
    const team = await newTeam("content-none");
    const conn = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/none" } } });
    const res = await fetch(conn.source.url, { method: "POST", body: new Uint8Array([1, 2, 3]) });
    expect(res.status).toBe(200);
    const { ingest_url: ingestUrl } = await newTestUrl();
    const consoleRes = await fetch(ingestUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(consoleRes.status).toBe(200);
    const octet = await fetch(ingestUrl, { method: "POST", headers: { "content-type": "application/octet-stream" }, body: new Uint8Array([0, 1]) });
    expect(octet.status).toBe(200);
  });
});

describe("version lifecycle", () => {
  it("each version sunsets a year after its date and is deprecated by the next one", () => {
    expect(new Date(sunsetOf("2024-09-01")).toISOString()).toBe("2025-09-01T00:00:00.000Z");
    expect(new Date(deprecationOf("2024-09-01", Date.UTC(2026, 0, 1))!).toISOString()).toBe("2025-01-01T00:00:00.000Z");
    expect(deprecationOf("2025-07-01", Date.UTC(2026, 0, 1))).toBeNull();
    expect(lifecycleHeaders("2025-07-01", Date.UTC(2026, 0, 1))).toEqual({});
    expect(lifecycleHeaders("2025-07-01", Date.UTC(2026, 10, 23))).toEqual({
      deprecation: `@${Date.UTC(2026, 6, 1) / 1000}`,
      sunset: "Wed, 01 Jul 2026 00:00:00 GMT",
    });
  });

  it("answers of a deprecated version carry Deprecation and Sunset, and keep serving by default", async () => {
    const team = await newTeam("versions");
    const old = await api(team, "GET", "/2024-09-01/sources");
    expect(old.status).toBe(200);
    expect(old.headers.get("deprecation")).toBe(`@${Date.UTC(2025, 0, 1) / 1000}`);
    expect(old.headers.get("sunset")).toBe("Mon, 01 Sep 2025 00:00:00 GMT");
    const none = await api(team, "GET", "/sources");
    expect(none.headers.get("sunset")).toBe("Mon, 01 Sep 2025 00:00:00 GMT");
    const mid = await api(team, "GET", "/2025-01-01/sources");
    expect(mid.headers.get("deprecation")).toBe(`@${Date.UTC(2025, 6, 1) / 1000}`);
  });

  describe("with GATEWAY_ENFORCE_VERSION_SUNSET", () => {
    let server: RunningServer | undefined;
    let database: Awaited<ReturnType<typeof privateDatabase>> | undefined;
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });
    it("a version past its sunset answers 410 with the gateway error body", async () => {
      database = await privateDatabase("sunset");
      const key = `hky_sunset_${randomBytes(12).toString("hex")}`;
      server = await startServer({ DATABASE_URL: database.url, GATEWAY_API_KEY: key, GATEWAY_ENFORCE_VERSION_SUNSET: "true", WORKER_ENABLED: "false" });
      const res = await fetch(`${server.url}/api/2024-09-01/sources`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(410);
      expect(await res.json()).toMatchObject({ handled: true, status: 410, code: "GONE", data: { version: "2024-09-01", sunset: "2025-09-01T00:00:00.000Z" } });
      expect(res.headers.get("sunset")).toBe("Mon, 01 Sep 2025 00:00:00 GMT");
    }, 60_000);
  });
});

describe("content filters on the event and request lists (the reference's filter syntax, run in PostgreSQL)", () => {
  const V = "/2025-07-01";
  const ids: Record<string, string> = {};
  let team: Awaited<ReturnType<typeof newTeam>>;
  let sourceId = "";
  const q = (v: unknown) => encodeURIComponent(JSON.stringify(v));
  const requestsWhere = async (filter: string) => {
    const { status, json } = await api(team, "GET", `${V}/requests?source_id=${sourceId}&${filter}`);
    expect(status, JSON.stringify(json)).toBe(200);
    return json.models.map((r: { id: string }) => Object.keys(ids).find((k) => ids[k] === r.id)).sort();
  };

  it("body, headers, path, parsed_query and search_term select the right requests and events", async () => {
    team = await newTeam("filters");
    const conn = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/none" } } });
    sourceId = conn.source.id;
    ids.order = (
      await send(
        `${conn.source.url}/orders/1?x=1&tag=a&tag=b`,
        { type: "order.created", amount: 150, tags: ["vip", "eu"], note: "caf\u00e9 au lait" },
        { headers: { "x-topic": "order.created" } },
      )
    ).requestId;
    ids.refund = (await send(`${conn.source.url}/refunds?x=2`, { type: "refund.created", amount: 20 }, { headers: { "x-topic": "refund" } })).requestId;
    ids.text = (await send(conn.source.url, "hello world needle", { headers: { "content-type": "text/plain" } })).requestId;

    expect(await requestsWhere(`body=${q({ type: "order.created" })}`)).toEqual(["order"]);
    expect(await requestsWhere(`body=${q({ amount: { $gte: 100 } })}`)).toEqual(["order"]);
    expect(await requestsWhere(`body=${q({ amount: "20" })}`)).toEqual(["refund"]);
    expect(await requestsWhere(`body=${q({ tags: "vip" })}`)).toEqual(["order"]);
    expect(await requestsWhere(`body=${q({ tags: ["vip", "eu"] })}`)).toEqual(["order"]);
    expect(await requestsWhere(`body=${q({ tags: ["vip", "us"] })}`)).toEqual([]);
    expect(await requestsWhere(`body=${q({ $or: [{ type: "refund.created" }, { amount: { $gt: 100 } }] })}`)).toEqual(["order", "refund"]);
    expect(await requestsWhere(`body=${q({ type: { $startsWith: "refund." } })}`)).toEqual(["refund"]);
    expect(await requestsWhere(`body=${q({ missing: { $exist: false }, type: { $in: ["refund.created", "x"] } })}`)).toEqual(["refund"]);
    expect(await requestsWhere(`body=${q({ $not: { type: "order.created" } })}`)).toEqual(["refund"]);
    expect(await requestsWhere(`body=${q({ note: { $endsWith: "lait" } })}`)).toEqual(["order"]);
    expect(await requestsWhere(`headers=${q({ "x-topic": "refund" })}`)).toEqual(["refund"]);
    expect(await requestsWhere(`headers[x-topic]=order.created`)).toEqual(["order"]);
    expect(await requestsWhere(`path=/refunds`)).toEqual(["refund"]);
    expect(await requestsWhere(`path=${q({ $startsWith: "/orders" })}`)).toEqual(["order"]);
    expect(await requestsWhere(`parsed_query=${q({ tag: ["a", "b"] })}`)).toEqual(["order"]);
    expect(await requestsWhere(`parsed_query[x]=2`)).toEqual(["refund"]);
    expect(await requestsWhere(`search_term=needle`)).toEqual(["text"]);
    expect(await requestsWhere(`search_term=REFUND`)).toEqual(["refund"]);

    const events = async (filter: string) =>
      (await api(team, "GET", `${V}/events?webhook_id=${conn.id}&${filter}`)).json.models.map((e: { request_id: string }) => e.request_id);
    await new Promise((r) => setTimeout(r, 500));
    expect(await events(`body=${q({ type: "order.created" })}`)).toEqual([ids.order]);
    expect(await events(`search_term=needle`)).toEqual([ids.text]);
    expect(await events(`path=/refunds`)).toEqual([ids.refund]);
  }, 60_000);

  it.each([
    ["$ref", `body=${encodeURIComponent(JSON.stringify({ a: { $ref: "b" } }))}`, "body"],
    ["an unknown operator", `body=${encodeURIComponent(JSON.stringify({ a: { $bogus: 1 } }))}`, "body"],
    ["invalid JSON nested too deep", `headers=${encodeURIComponent("[".repeat(100) + "]".repeat(100))}`, "headers"],
    ["an array form", `path[]=a`, "path"],
  ])("%s is a 400 naming the filter", async (_name, filter, field) => {
    const { status, json } = await api(team, "GET", `${V}/requests?${filter}`);
    expect(status, JSON.stringify(json)).toBe(400);
    expect(json.data.field).toBe(field);
  });

  it("bulk operations take the same filters", async () => {
    const plan = await api(team, "GET", `${V}/bulk/requests/retry/plan?query=${q({ source_id: [sourceId], body: { type: "order.created" } })}`);
    expect(plan.json).toEqual({ estimated_count: 1, estimated_batch: 1 });
    const bad = await api(team, "POST", `${V}/bulk/requests/retry`, { query: { body: { a: { $bogus: 1 } } } });
    expect(bad.status).toBe(422);
    expect(bad.json.data.field).toBe("query.body");
  });
});
