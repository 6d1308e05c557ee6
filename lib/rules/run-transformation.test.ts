import { describe, expect, it } from "vitest";
import { MAX_CONSOLE_LINES, runTransformation, type TransformRequest } from "@/lib/rules/run-transformation";

const request: TransformRequest = { headers: { "content-type": "application/json" }, body: { a: 1 }, path: "/orders", query: "x=1", parsed_query: { x: "1" } };

async function fatal(code: string, extra: Partial<Parameters<typeof runTransformation>[0]> = {}) {
  const r = await runTransformation({ code, request, ...extra });
  expect(r.ok).toBe(false);
  expect(r.logLevel).toBe("fatal");
  if (r.ok) throw new Error("expected a failure");
  expect(r.console.at(-1)).toEqual({ type: "error", message: r.error });
  return r;
}

describe("runTransformation", () => {
  it("runs the transform handler on the request and context; the returned request is the result", async () => {
    const r = await runTransformation({
      code: `addHandler("transform", (req, ctx) => { req.headers["x-conn"] = ctx.connection.name; req.body.b = req.body.a + 1; req.path = "/v2" + req.path; return req; });`,
      request,
      context: { connection: { name: "shop" } },
    });
    expect(r).toEqual({
      ok: true,
      request: {
        headers: { "content-type": "application/json", "x-conn": "shop" },
        body: { a: 1, b: 2 },
        path: "/v2/orders",
        query: "x=1",
        parsed_query: { x: "1" },
      },
      console: [],
      logLevel: "info",
    });
  });

  it("process.env holds the env; a bare `env` is not defined", async () => {
    const r = await runTransformation({
      code: `addHandler("transform", (req) => ({ ...req, headers: { token: process.env.TOKEN, missing: String(process.env.NOPE) } }))`,
      env: { TOKEN: "t0k" },
      request,
    });
    expect(r.ok && r.request.headers).toEqual({ token: "t0k", missing: "undefined" });
    const bare = await fatal(`addHandler("transform", (req) => { req.headers.t = env.TOKEN; return req; })`, { env: { TOKEN: "t" } });
    expect(bare.error).toMatch(/^ReferenceError: 'env' is not defined/);
  });

  it("console.log/info/warn/error/debug are captured in order, objects as JSON; the log level is the highest used", async () => {
    const r = await runTransformation({
      code: `addHandler("transform", (r) => { console.debug("d"); console.log("n", 1, { k: [true] }); console.info("i"); console.warn("w"); return r; })`,
      request,
    });
    expect(r.console).toEqual([
      { type: "debug", message: "d" },
      { type: "log", message: 'n 1 {"k":[true]}' },
      { type: "info", message: "i" },
      { type: "warn", message: "w" },
    ]);
    expect(r.logLevel).toBe("warn");
    expect((await runTransformation({ code: `addHandler("transform", (r) => { console.error("e"); return r; })`, request })).logLevel).toBe("error");
    expect((await runTransformation({ code: `addHandler("transform", (r) => { console.debug("e"); return r; })`, request })).logLevel).toBe("info");
  });

  it("console output is capped at MAX_CONSOLE_LINES lines", async () => {
    const r = await runTransformation({ code: `addHandler("transform", (r) => { for (let i = 0; i < 1000; i++) console.log(i); return r; })`, request });
    expect(r.console).toHaveLength(MAX_CONSOLE_LINES);
    expect(r.console.at(-1)!.message).toMatch(/cut/);
  });

  it("fields the handler leaves out keep their input value; non-string header values are JSON", async () => {
    const r = await runTransformation({ code: `addHandler("transform", (r) => ({ body: "replaced", headers: { n: 5 } }))`, request });
    expect(r.ok && r.request).toEqual({ headers: { n: "5" }, body: "replaced", path: "/orders", query: "x=1", parsed_query: { x: "1" } });
  });

  it("a throw → fatal with the error and its stack; console lines before it are kept", async () => {
    const r = await fatal(`console.info("before"); addHandler("transform", () => { throw new TypeError("bad input"); })`);
    expect(r.console[0]).toEqual({ type: "info", message: "before" });
    expect(r.error).toMatch(/^TypeError: bad input\n\s+at .*transformation\.js/);
  });

  it("a thrown non-Error is reported too", async () => {
    expect((await fatal(`addHandler("transform", () => { throw "plain"; })`)).error).toBe("Uncaught plain");
  });

  it.each([
    ["null", "null"],
    ["undefined", "undefined"],
    ["false", "false"],
    ["0", "0"],
    ["a string", '"text"'],
    ["an array", "[1]"],
  ])("returning %s → fatal (must return a request object)", async (_label, value) => {
    expect((await fatal(`addHandler("transform", () => ${value})`)).error).toContain("must return a request object");
  });

  it("an async handler → fatal", async () => {
    expect((await fatal(`addHandler("transform", async (r) => r)`)).error).toContain("Promise");
  });

  it("require, fetch, setTimeout and import are not available", async () => {
    expect((await fatal(`const fs = require("fs"); addHandler("transform", (r) => r)`)).error).toMatch(/^ReferenceError: 'require' is not defined/);
    expect((await fatal(`addHandler("transform", (r) => { fetch("http://example.com"); return r; })`)).error).toMatch(
      /^ReferenceError: 'fetch' is not defined/,
    );
    expect((await fatal(`setTimeout(() => {}, 1); addHandler("transform", (r) => r)`)).error).toMatch(/^ReferenceError: 'setTimeout' is not defined/);
    expect((await fatal(`import fs from "fs"; addHandler("transform", (r) => r)`)).error).toMatch(/^SyntaxError/);
  });

  it("no addHandler call, another handler name, or a syntax error → fatal", async () => {
    expect((await fatal(`const x = 1;`)).error).toContain("never called addHandler");
    expect((await fatal(`addHandler("filter", (r) => r)`)).error).toContain('only the "transform" handler');
    expect((await fatal(`addHandler("transform", (r) => {`)).error).toMatch(/^SyntaxError/);
  });

  it("an endless loop is stopped by the time limit (top level or in the handler)", async () => {
    for (const code of [`addHandler("transform", (r) => { while (true) {} })`, `while (true) {}`]) {
      const started = Date.now();
      const r = await fatal(code);
      expect(r.error).toBe("Timeout: the transformation ran longer than 1000 ms");
      expect(Date.now() - started).toBeLessThan(2500);
    }
  });

  it("a memory bomb is stopped by the memory limit, not the time limit", async () => {
    for (const code of [
      `addHandler("transform", (r) => { const a = []; while (true) a.push(new Array(1e4).fill(a.length)); })`,
      `addHandler("transform", (r) => { const a = []; while (true) a.push("x".repeat(1e5) + a.length); })`,
      `addHandler("transform", (r) => { r.body = "x".repeat(20 * 1024 * 1024); return r; })`,
    ]) {
      const r = await fatal(code);
      expect(r.error).toBe(`Out of memory: the transformation used more than ${5 * 1024 * 1024} bytes`);
    }
  });

  it("deep recursion is stopped", async () => {
    expect((await fatal(`const f = (n) => f(n + 1) + 1; addHandler("transform", (r) => { f(0); return r; })`)).error).toMatch(/stack overflow|RangeError/i);
  });

  it("runs share nothing: globals set by one run are gone in the next, and the sandbox keeps working after failures", async () => {
    await runTransformation({ code: `globalThis.leak = 1; addHandler("transform", (r) => r)`, request });
    const r = await runTransformation({ code: `addHandler("transform", (r) => ({ ...r, body: typeof leak }))`, request });
    expect(r.ok && r.request.body).toBe("undefined");
  });

  it("a circular result → fatal", async () => {
    expect((await fatal(`addHandler("transform", (r) => { r.body = {}; r.body.self = r.body; return r; })`)).error).toMatch(/^TypeError/);
  });
});
