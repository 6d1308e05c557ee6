/**
 * Prototype pollution and malformed input (docs/gateway-api.md "Input limits"), at the parser level: the query parser
 * (gateway API queries, captured queries and form bodies), header parsing, JSON input checks and the
 * request-line guard server.ts applies before routing. Object.prototype must stay untouched.
 */
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { checkJsonInput, JSON_MAX_DEPTH, parseJsonInput } from "@/lib/http/json-input";
import { headersOf } from "@/lib/http/node";
import { parseJsonParam, parseQuery, QUERY_MAX_DEPTH, QUERY_MAX_PARAMS } from "@/lib/http/query";
import { checkRequestLine, pageMethodRefusal } from "@/lib/http/request-line";
import { cursorDate, cursorText } from "@/lib/http/cursor";
import { checkQueryEncoding, parseApiQuery } from "@/lib/http/query";
import { checkRequest, type MetricsTable } from "@/lib/metrics/query";
import { decodeCursor as decodeOutboundCursor } from "@/lib/outbound/params";
import { DISABLE_ACTIONS } from "@/lib/gateway/team-resources";

const POLLUTING = [
  "__proto__[x]=1",
  "__proto__[]=1",
  "__proto__=1",
  "constructor[prototype][x]=1",
  "a[__proto__][x]=1",
  "a[constructor][prototype][x]=1",
  "a[b][__proto__][x]=1",
  "prototype[x]=1",
];

/** Fails when anything was added to Object.prototype (and removes it, so one failure does not cascade). */
function expectCleanPrototype() {
  const added = Object.getOwnPropertyNames(Object.prototype).filter((k) => !BASELINE.has(k));
  for (const k of added) delete (Object.prototype as Record<string, unknown>)[k];
  expect(added).toEqual([]);
  expect(({} as Record<string, unknown>).x).toBeUndefined();
}
const BASELINE = new Set(Object.getOwnPropertyNames(Object.prototype));
afterEach(expectCleanPrototype);

describe("parseQuery – prototype pollution", () => {
  it.each(POLLUTING)("parseQuery(%s) leaves Object.prototype untouched in lenient mode; strict mode (the APIs) refuses it with 400", (raw) => {
    parseQuery(new URLSearchParams(raw));
    expectCleanPrototype();
    expect(() => parseQuery(new URLSearchParams(raw), { strict: true })).toThrow(expect.objectContaining({ status: 400 }));
    expectCleanPrototype();
  });

  it("drops __proto__, constructor and prototype keys at every level and keeps the others", () => {
    const parsed = parseQuery(new URLSearchParams(`${POLLUTING.join("&")}&a[ok]=1&name=n`));
    expect(JSON.parse(JSON.stringify(parsed))).toEqual({ a: { ok: "1" }, name: "n" });
  });

  it("builds null-prototype objects, so inherited names are absent", () => {
    const parsed = parseQuery(new URLSearchParams("a[b]=1"));
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.getPrototypeOf(parsed.a)).toBeNull();
    expect(Reflect.get(parsed, "toString")).toBeUndefined();
    expect(Reflect.get(parsed, "hasOwnProperty")).toBeUndefined();
  });

  it("a key named like an Object.prototype method is an ordinary key", () => {
    expect(JSON.parse(JSON.stringify(parseQuery(new URLSearchParams("toString=1&valueOf[a]=2&hasOwnProperty=3"))))).toEqual({
      toString: "1",
      valueOf: { a: "2" },
      hasOwnProperty: "3",
    });
  });
});

describe("parseQuery – limits", () => {
  const deep = (levels: number) => `a${"[b]".repeat(levels)}=1`;

  it(`strict: more than ${QUERY_MAX_DEPTH} bracket levels → 400; exactly ${QUERY_MAX_DEPTH} parse`, () => {
    expect(() => parseQuery(new URLSearchParams(deep(QUERY_MAX_DEPTH)), { strict: true })).not.toThrow();
    for (const levels of [QUERY_MAX_DEPTH + 1, 3000]) {
      const err = (() => {
        try {
          parseQuery(new URLSearchParams(deep(levels)), { strict: true });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
    }
  });

  it("lenient (captured queries and forms): 3,000 levels never throw; the rest of the key stays one literal key", () => {
    const parsed = parseQuery(new URLSearchParams(deep(3000)));
    let node: unknown = parsed.a;
    let depth = 1;
    while (node && typeof node === "object" && !Array.isArray(node)) {
      const keys = Object.keys(node);
      expect(keys).toHaveLength(1);
      node = (node as Record<string, unknown>)[keys[0]];
      depth++;
    }
    expect(depth).toBe(QUERY_MAX_DEPTH + 1);
  });

  it(`strict: more than ${QUERY_MAX_PARAMS} parameters → 400; lenient keeps the first ${QUERY_MAX_PARAMS}`, () => {
    const many = Array.from({ length: QUERY_MAX_PARAMS + 5 }, (_, i) => `k${i}=1`).join("&");
    expect(() => parseQuery(new URLSearchParams(many), { strict: true })).toThrow(AppError);
    expect(Object.keys(parseQuery(new URLSearchParams(many)))).toHaveLength(QUERY_MAX_PARAMS);
  });

  it("strict: U+0000 in a key or value → 400 (it would reach PostgreSQL); lenient keeps it", () => {
    expect(() => parseQuery(new URLSearchParams("name=a%00b"), { strict: true })).toThrow(AppError);
    expect(() => parseQuery(new URLSearchParams("na%00me=ab"), { strict: true })).toThrow(AppError);
    expect(parseQuery(new URLSearchParams("name=a%00b")).name).toBe("a\u0000b");
  });

  it("parseJsonParam: JSON nested past the limit, or with forbidden keys → 400", () => {
    const nested = encodeURIComponent(`${"[".repeat(10_000)}${"]".repeat(10_000)}`);
    expect(() => parseJsonParam(parseQuery(new URLSearchParams(`body=${nested}`)), "body")).toThrow(AppError);
    expect(() => parseJsonParam(parseQuery(new URLSearchParams(`body=${encodeURIComponent('{"__proto__":{"x":1}}')}`)), "body")).toThrow(AppError);
  });
});

describe("checkJsonInput", () => {
  const refused = (text: string) => {
    try {
      parseJsonInput(text);
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      return (e as AppError).message;
    }
    return null;
  };

  it(`nesting: ${JSON_MAX_DEPTH} levels pass, ${JSON_MAX_DEPTH + 1} and 10,000 (objects or arrays) are refused without a stack overflow`, () => {
    expect(refused(`${"[".repeat(JSON_MAX_DEPTH)}${"]".repeat(JSON_MAX_DEPTH)}`)).toBeNull();
    expect(refused(`${"[".repeat(JSON_MAX_DEPTH + 1)}${"]".repeat(JSON_MAX_DEPTH + 1)}`)).toMatch(/deeper than 64/);
    expect(refused(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`)).toMatch(/deeper than 64/);
    expect(refused(`{"rules":[{"type":"filter","body":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}]}`)).toMatch(/deeper/);
  });

  it("U+0000 and lone surrogates in strings or keys are refused with the field named", () => {
    expect(refused('{"name":"a\\u0000"}')).toMatch(/^name: .*U\+0000/);
    expect(refused('{"a":{"b":["x","\\ud800"]}}')).toMatch(/^a\.b\.1: /);
    expect(refused('{"a":"\\udc00x"}')).toMatch(/^a: /);
    expect(refused('{"k\\u0000":1}')).toMatch(/keys must not/);
    expect(refused('"\\ud83d\\ude00 ok"')).toBeNull(); // a surrogate pair is fine
  });

  it("__proto__, constructor and prototype keys are refused at any depth; Object.prototype stays clean", () => {
    expect(refused('{"__proto__":{"x":1}}')).toMatch(/__proto__/);
    expect(refused('{"a":[{"constructor":{"prototype":{"x":1}}}]}')).toMatch(/constructor/);
    expect(refused('{"a":{"prototype":1}}')).toMatch(/prototype/);
    expect(() => checkJsonInput({ fine: [1, "two", null, { three: true }] })).not.toThrow();
  });
});

describe("headersOf", () => {
  it("header names such as __proto__ and constructor are own keys of a null-prototype object", () => {
    const req = new IncomingMessage(new Socket());
    req.rawHeaders = ["__proto__", "x", "Constructor", "c", "Accept", "a", "accept", "b"];
    const h = headersOf(req);
    expect(Object.getPrototypeOf(h)).toBeNull();
    expect(h.__proto__).toBe("x");
    expect(h.constructor).toBe("c");
    expect(h.accept).toBe("a, b");
  });
});

describe("action lookups", () => {
  it("DISABLE_ACTIONS finds nothing for constructor, __proto__, toString", () => {
    for (const k of ["constructor", "__proto__", "toString", "hasOwnProperty"]) expect(DISABLE_ACTIONS[k]).toBeUndefined();
    expect(DISABLE_ACTIONS.disable).toBe(true);
  });
});

describe("checkRequestLine", () => {
  const status = (method: string, url: string) => checkRequestLine(method, url)?.status ?? null;
  const body = (method: string, url: string) => JSON.parse(String(checkRequestLine(method, url)!.body));

  it("invalid UTF-8 percent-encoding or U+0000 in a path → 404 in the surface's error body", () => {
    expect(body("GET", "/api/2025-07-01/events/%FF")).toMatchObject({ handled: true, status: 404, code: "NOT_FOUND" });
    expect(body("GET", "/api/events/%ED%A0%80")).toMatchObject({ handled: true, status: 404 });
    expect(body("GET", "/%FF")).toEqual({ code: "NOT_FOUND", status: 404, data: ["The path is not valid UTF-8 percent-encoding"] });
    expect(body("GET", "/abc/requests/%C0%80/raw")).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(body("GET", "/cli/sessions/%FF/stream")).toMatchObject({ error: "NOT_FOUND" });
    expect(body("GET", "/api/2025-07-01/sources/src_%00")).toMatchObject({ handled: true, status: 404 });
    expect(status("GET", "/abc%00")).toBe(404);
  });

  it("unexpected methods → 405 with Allow; OPTIONS * and other non-path targets → 400", () => {
    const r = checkRequestLine("TRACE", "/api/2025-07-01/sources")!;
    expect(r.status).toBe(405);
    expect(r.headers?.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    expect(JSON.parse(String(r.body))).toMatchObject({ handled: true, status: 405, code: "METHOD_NOT_ALLOWED" });
    expect(body("TRACE", "/")).toMatchObject({ code: "METHOD_NOT_ALLOWED", status: 405 });
    expect(body("PROPFIND", "/cli/sessions")).toMatchObject({ error: "METHOD_NOT_ALLOWED" });
    expect(status("OPTIONS", "*")).toBe(400);
    expect(status("GET", "http://example.com/")).toBe(400);
  });

  it("ordinary requests and every ingestion request pass", () => {
    for (const [m, u] of [
      ["GET", "/"],
      ["POST", "/"],
      ["GET", "/api/2025-07-01/sources?name=%E2%82%AC"],
      ["OPTIONS", "/api/sources"],
      ["GET", "/abc/live"],
      ["TRACE", "/e/src_1/%FF"],
      ["PROPFIND", "/e/x"],
    ] as const) {
      expect(status(m, u)).toBeNull();
    }
  });
});

describe("request-line errors in each surface's body", () => {
  const answer = (method: string, url: string) => {
    const r = checkRequestLine(method, url)!;
    return { status: r.status, body: JSON.parse(String(r.body)) };
  };

  it("the outbound API, the portal and the dashboard (pages and API) answer {status, message}", () => {
    for (const root of [
      "/outbound/api/v1/tenants",
      "/outbound/2025-07-01/tenants",
      "/outbound",
      "/portal/destinations",
      "/dashboard/api/auth",
      "/dashboard/events",
    ]) {
      for (const bad of ["%FF", "a%00b", "%ED%A0%80", "%C0%80"]) {
        expect(answer("GET", `${root}/${bad}`), `${root}/${bad}`).toEqual({ status: 404, body: { status: 404, message: expect.any(String) } });
      }
      expect(answer("TRACE", root), `TRACE ${root}`).toEqual({ status: 405, body: { status: 405, message: "TRACE is not supported" } });
    }
  });

  it("a page's unsupported method: 405 in the body of its surface", () => {
    expect(JSON.parse(String(pageMethodRefusal("POST", "/portal")!.body))).toEqual({ status: 405, message: "POST is not supported here" });
    expect(JSON.parse(String(pageMethodRefusal("DELETE", "/dashboard/events")!.body))).toEqual({ status: 405, message: "DELETE is not supported here" });
    expect(JSON.parse(String(pageMethodRefusal("POST", "/new")!.body))).toMatchObject({ code: "METHOD_NOT_ALLOWED", status: 405 });
    expect(pageMethodRefusal("GET", "/portal")).toBeNull();
  });

  it("a query that is not UTF-8 on the gateway or outbound API → 400 in its body; pages and ingestion pass", () => {
    expect(answer("GET", "/outbound/api/v1/events?tenant_id=%FF")).toEqual({ status: 400, body: { status: 400, message: expect.any(String) } });
    expect(answer("GET", "/api/2025-07-01/sources?name=%ED%A0%80")).toMatchObject({ status: 400, body: { handled: true, status: 400 } });
    expect(checkRequestLine("GET", "/outbound/api/v1/events?q=100%&topic=%E2%82%AC")).toBeNull();
    expect(checkRequestLine("GET", "/portal?x=%FF")).toBeNull();
    expect(checkRequestLine("POST", "/e/src_1?x=%FF")).toBeNull();
  });

  it("paths that only start like a surface stay the console's", () => {
    expect(answer("GET", "/outboundx/%FF").body).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(answer("GET", "/portals/%FF").body).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});

describe("API query strings (parseApiQuery)", () => {
  const url = (search: string) => new URL(`http://h/x?${search}`);
  const refused = (search: string) => {
    try {
      parseApiQuery(url(search));
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      return (err as AppError).status;
    }
    return null;
  };

  it("U+0000, unpaired surrogates and bytes that are not UTF-8 in a key or value → 400", () => {
    for (const s of [
      "tenant_id=%00",
      "event_id=a%00b",
      "id[]=x&id[]=%00",
      "type=%FF",
      "topic=%C0%80",
      "id=%ED%A0%80",
      "a%FF=1",
      "filters[%00]=x",
      "time[gte]=%E2%82",
    ])
      expect(refused(s), s).toBe(400);
  });

  it("well-formed values pass, a lone % stays literal, and + is a space", () => {
    expect(refused("name=%E2%82%AC&q=100%&r=%%41&s=a+b")).toBeNull();
    expect(parseApiQuery(url("name=%E2%82%AC&q=100%&s=a+b"))).toMatchObject({ name: "€", q: "100%", s: "a b" });
    expect(() => checkQueryEncoding("?x=%F0%9F%98%80")).not.toThrow();
  });
});

describe("cursor fields (every cursor codec)", () => {
  it("cursorText refuses U+0000, unpaired surrogates, non-strings and oversized values", () => {
    for (const v of ["a\u0000", "\ud800", 1, null, undefined, "x".repeat(1025)]) expect(cursorText(v), String(v)).toBe(false);
    expect(cursorText("evt_1")).toBe(true);
  });

  it("cursorDate: an instant PostgreSQL takes (years 1–9999), else null", () => {
    for (const v of [
      "-271821-04-20T00:00:00.000Z",
      "+275760-09-13T00:00:00.000Z",
      "+010000-01-01T00:00:00.000Z",
      "0000-01-01T00:00:00Z",
      "nope",
      "2026-01-01\u0000",
      5,
    ])
      expect(cursorDate(v), String(v)).toBeNull();
    expect(cursorDate("2026-01-31T12:00:00.000Z")?.toISOString()).toBe("2026-01-31T12:00:00.000Z");
  });

  it("outbound cursors: forged ones are the outbound 400 `invalid cursor`", () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    for (const c of [
      { t: "2026-01-01T00:00:00Z", i: "a\u0000b" },
      { t: "-271821-04-20T00:00:00.000Z", i: "x" },
      { t: "+275760-09-13T00:00:00.000Z", i: "x" },
      { t: "2026-01-01T00:00:00Z", i: "\udc00" },
      { t: "2026-01-01T00:00:00Z" },
      null,
      [],
      "x",
    ]) {
      expect(() => decodeOutboundCursor(enc(c)), JSON.stringify(c)).toThrow(expect.objectContaining({ status: 400, message: "invalid cursor" }));
    }
    expect(decodeOutboundCursor(enc({ t: "2026-01-01T00:00:00.000Z", i: "evt_1" }))).toEqual({ time: new Date("2026-01-01T00:00:00.000Z"), id: "evt_1" });
  });
});

describe("metrics names are own properties only", () => {
  const table: MetricsTable = {
    kind: "events",
    from: "t x",
    time: "x.time",
    scope: [],
    measures: { count: { sql: "count(*)", empty: 0 } },
    dimensions: { topic: "x.topic" },
    filters: { topic: "x.topic" },
  };
  const req = (over: Partial<Parameters<typeof checkRequest>[1]>) => ({
    start: new Date(0),
    end: new Date(1000),
    granularity: null,
    measures: ["count"],
    dimensions: [],
    filters: {},
    ...over,
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])("%s as a measure, a dimension or a filter → AppError", (name) => {
    expect(() => checkRequest(table, req({ measures: [name] }))).toThrow(AppError);
    expect(() => checkRequest(table, req({ dimensions: [name] }))).toThrow(AppError);
    expect(() => checkRequest(table, req({ filters: { [name]: ["x"] } }))).toThrow(AppError);
  });
});
