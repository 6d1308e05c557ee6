/**
 * Issue 15 §1 "Prototype pollution" and "Malformed input", at the parser level: the query parser
 * (gateway API queries, captured queries and form bodies), header parsing, JSON input checks and the
 * request-line guard server.ts applies before routing. Object.prototype must stay untouched.
 */
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayError } from "@/lib/http/errors";
import { checkJsonInput, JSON_MAX_DEPTH, JsonInputError, parseJsonInput } from "@/lib/http/json-input";
import { headersOf } from "@/lib/http/node";
import { parseJsonParam, parseQuery, QUERY_MAX_DEPTH, QUERY_MAX_PARAMS } from "@/lib/http/query";
import { checkRequestLine } from "@/lib/http/request-line";
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
  it.each(POLLUTING)("parseQuery(%s) leaves Object.prototype untouched, in lenient and strict mode", (raw) => {
    parseQuery(new URLSearchParams(raw));
    expectCleanPrototype();
    parseQuery(new URLSearchParams(raw), { strict: true });
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
    expect(parsed.toString).toBeUndefined();
    expect(parsed.hasOwnProperty).toBeUndefined();
  });

  it("a key named like an Object.prototype method is an ordinary key", () => {
    expect(JSON.parse(JSON.stringify(parseQuery(new URLSearchParams("toString=1&valueOf[a]=2&hasOwnProperty=3"))))).toEqual({ toString: "1", valueOf: { a: "2" }, hasOwnProperty: "3" });
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
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).status).toBe(400);
    }
  });

  it("lenient (captured queries and forms): 3,000 levels never throw; the rest of the key stays one literal key", () => {
    const parsed = parseQuery(new URLSearchParams(deep(3000)));
    let node: unknown = parsed.a;
    let depth = 1;
    while (node && typeof node === "object" && !Array.isArray(node)) {
      const keys = Object.keys(node);
      expect(keys).toHaveLength(1);
      node = (node as Record<string, unknown>)[keys[0]!];
      depth++;
    }
    expect(depth).toBe(QUERY_MAX_DEPTH + 1);
  });

  it(`strict: more than ${QUERY_MAX_PARAMS} parameters → 400; lenient keeps the first ${QUERY_MAX_PARAMS}`, () => {
    const many = Array.from({ length: QUERY_MAX_PARAMS + 5 }, (_, i) => `k${i}=1`).join("&");
    expect(() => parseQuery(new URLSearchParams(many), { strict: true })).toThrow(GatewayError);
    expect(Object.keys(parseQuery(new URLSearchParams(many)))).toHaveLength(QUERY_MAX_PARAMS);
  });

  it("strict: U+0000 in a key or value → 400 (it would reach PostgreSQL); lenient keeps it", () => {
    expect(() => parseQuery(new URLSearchParams("name=a%00b"), { strict: true })).toThrow(GatewayError);
    expect(() => parseQuery(new URLSearchParams("na%00me=ab"), { strict: true })).toThrow(GatewayError);
    expect(parseQuery(new URLSearchParams("name=a%00b")).name).toBe("a\u0000b");
  });

  it("parseJsonParam: JSON nested past the limit, or with forbidden keys → 400", () => {
    const nested = encodeURIComponent(`${"[".repeat(10_000)}${"]".repeat(10_000)}`);
    expect(() => parseJsonParam(parseQuery(new URLSearchParams(`body=${nested}`)), "body")).toThrow(GatewayError);
    expect(() => parseJsonParam(parseQuery(new URLSearchParams(`body=${encodeURIComponent('{"__proto__":{"x":1}}')}`)), "body")).toThrow(GatewayError);
  });
});

describe("checkJsonInput", () => {
  const refused = (text: string) => {
    try {
      parseJsonInput(text);
    } catch (e) {
      expect(e).toBeInstanceOf(JsonInputError);
      return (e as JsonInputError).message;
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
    for (const [m, u] of [["GET", "/"], ["POST", "/"], ["GET", "/api/2025-07-01/sources?name=%E2%82%AC"], ["OPTIONS", "/api/sources"], ["GET", "/abc/live"], ["TRACE", "/e/src_1/%FF"], ["PROPFIND", "/e/x"]] as const) {
      expect(status(m, u)).toBeNull();
    }
  });
});
