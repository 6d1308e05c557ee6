import { describe, expect, it } from "vitest";
import { runTransformation, type TransformRequest } from "@/lib/gateway/transformations/run-transformation";

const request: TransformRequest = { headers: { "content-type": "application/json" }, body: { a: 1 }, path: "/orders", query: "x=1", parsed_query: { x: "1" } };

describe("runTransformation", () => {
  it("runs the transform handler on the request, with process.env and captured console", async () => {
    const r = await runTransformation({
      code: `addHandler("transform", (req, ctx) => { console.log("seen", req.body.a); req.headers["x-env"] = process.env.TOKEN; req.body.b = ctx.n + 1; return req; });`,
      env: { TOKEN: "t0k" },
      request,
      context: { n: 41 },
    });
    expect(r).toEqual({
      ok: true,
      request: { headers: { "content-type": "application/json", "x-env": "t0k" }, body: { a: 1, b: 42 }, path: "/orders", query: "x=1", parsed_query: { x: "1" } },
      console: [{ type: "log", message: "seen 1" }],
      logLevel: "info",
    });
  });

  it("the highest console level used is the log level", async () => {
    const r = await runTransformation({ code: `addHandler("transform", (r) => { console.debug("d"); console.warn("w"); return r; })`, request });
    expect(r.logLevel).toBe("warn");
  });

  it.each([
    ["a throw", `addHandler("transform", () => { throw new TypeError("bad input"); })`, "TypeError: bad input"],
    ["require", `const fs = require("fs"); addHandler("transform", (r) => r)`, "ReferenceError"],
    ["a falsy result", `addHandler("transform", () => null)`, "must return a request object"],
    ["no handler", `const x = 1;`, "never called addHandler"],
    ["a syntax error", `addHandler("transform", (r) => {`, "SyntaxError"],
  ])("%s → fatal with the error in console, console lines before it kept", async (_label, code, expected) => {
    const r = await runTransformation({ code: `console.info("before"); ${code}`, request });
    expect(r.ok).toBe(false);
    expect(r.logLevel).toBe("fatal");
    if (!r.ok) expect(r.error).toContain(expected);
    expect(r.console.at(-1)!.type).toBe("error");
    if (!expected.startsWith("SyntaxError")) expect(r.console[0]).toEqual({ type: "info", message: "before" });
  });

  it("an endless loop is stopped by the time limit", async () => {
    const started = Date.now();
    const r = await runTransformation({ code: `addHandler("transform", (r) => { while (true) {} })`, request });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("Timeout");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("a memory bomb is stopped (by the memory limit, or else the time limit)", async () => {
    const r = await runTransformation({ code: `addHandler("transform", (r) => { const a = []; while (true) a.push("x".repeat(1e5)); })`, request });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/memory|Timeout/i);
  });
});
