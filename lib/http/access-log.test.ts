import { EventEmitter } from "node:events";
import type http from "node:http";
import { describe, expect, it } from "vitest";
import { accessLogger, requestIdOf } from "@/lib/http/access-log";
import { createRootLogger, replaceRootLogger } from "@/lib/log";

/** Runs one request through the access logger (JSON lines kept in memory); returns the parsed line. */
function logOne(url: string, headers: Record<string, string>, finished = true): Record<string, unknown> {
  const lines: string[] = [];
  replaceRootLogger(createRootLogger({ level: "info", format: "json", destination: { write: (l: string) => void lines.push(l) } }));
  const observe = accessLogger((p) => p.replace(/^\/e\/([^/]+)/, "/e/:id"));
  const req = { url, method: "POST", headers } as unknown as http.IncomingMessage;
  const res = Object.assign(new EventEmitter(), { statusCode: 201, writableFinished: finished }) as unknown as http.ServerResponse;
  observe(req, res);
  res.emit("close");
  expect(lines).toHaveLength(1);
  expect(lines[0].endsWith("\n")).toBe(true);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

describe("access log", () => {
  it("writes one JSON line per request: method, path without query, status, duration, request id, trace id", () => {
    const trace = "0af7651916cd43dd8448eb211c80319c";
    const line = logOne("/e/secretid/a%22b\\c\u00e9?token=abc", { "x-request-id": "lb-123", traceparent: `00-${trace}-b7ad6b7169203331-01` });
    expect(line).toMatchObject({
      level: "info",
      scope: "http",
      method: "POST",
      path: "/e/:id/a%22b\\c\u00e9",
      status: 201,
      request_id: "lb-123",
      trace_id: trace,
    });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.msg).toBe(`POST /e/:id/a%22b\\c\u00e9 201 ${String(line.duration_ms)} ms`);
    expect(JSON.stringify(line)).not.toContain("token");
    expect(line.aborted).toBeUndefined();
  });

  it("marks a request whose connection closed before its answer ended; no trace id without one", () => {
    const line = logOne("/healthz", {}, false);
    expect(line).toMatchObject({ path: "/healthz", aborted: true });
    expect(line.trace_id).toBeUndefined();
    expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps a usable x-request-id and replaces one that could forge a line", () => {
    expect(requestIdOf("abc-123_x.y:z")).toBe("abc-123_x.y:z");
    for (const bad of ['a"b', "a\nb", "a b", "x".repeat(129), "", undefined, ["a", "b"]]) expect(requestIdOf(bad)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
