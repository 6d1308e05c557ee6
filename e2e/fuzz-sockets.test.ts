/**
 * Malformed input (docs/gateway-api.md "Input limits"), last class: a request whose body is shorter than its Content-Length,
 * or whose headers never end, must not hold a socket open. A server of this file's own runs with short
 * HTTP_REQUEST_TIMEOUT_MS / HTTP_HEADERS_TIMEOUT_MS; every surface's stalled request is cut within the
 * bound, while the long-lived responses (console `/{id}/live`, CLI `/cli/sessions/{id}/stream`) keep
 * streaming past it: only the request read is bounded.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTeam } from "@/lib/teams/bootstrap";
import { newTestUrl } from "./support/client";
import { newTeam } from "./support/gateway";
import { type RunningServer, startServer } from "./support/servers";

const REQUEST_TIMEOUT_MS = 3000;
const HEADERS_TIMEOUT_MS = 2000;
/** Node checks the timeouts every second (server.ts); generous slack for a loaded machine. */
const BOUND_MS = REQUEST_TIMEOUT_MS + 8000;
let server: RunningServer | undefined;

beforeAll(async () => {
  server = await startServer({
    DATABASE_URL: process.env.DATABASE_URL!,
    TRUST_PROXY: "true",
    WORKER_ENABLED: "false",
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

/** Writes `head` (and `body`) on a raw socket, then waits; resolves with what came back and how long until the socket closed. */
function stall(head: string, body = ""): Promise<{ ms: number; received: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const s = net.connect(server!.port, "127.0.0.1", () => s.write(head + body));
    let received = "";
    const giveUp = setTimeout(() => {
      s.destroy();
      reject(new Error(`socket still open after ${BOUND_MS} ms (received: ${JSON.stringify(received.slice(0, 200))})`));
    }, BOUND_MS);
    s.on("data", (d: Buffer) => (received += d.toString()));
    s.on("close", () => {
      clearTimeout(giveUp);
      resolve({ ms: Date.now() - started, received });
    });
    s.on("error", () => {});
  });
}

const head = (method: string, path: string, headers: Record<string, string>, contentLength: number) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}Content-Length: ${contentLength}\r\n\r\n`;

describe("stalled requests are cut off (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS)", () => {
  it("a body shorter than its Content-Length closes the socket on every surface", async () => {
    const team = await newTeam("sockets");
    const { cliKey } = await createTeam("sockets cli");
    const url = await newTestUrl({}, { baseUrl: server!.url });
    const cases = [
      head("POST", `/e/${url.id}`, { "content-type": "application/json" }, 100),
      head("POST", "/e/v1/publish", { authorization: `Bearer ${team.apiKey}`, "x-gateway-source-name": "x" }, 100),
      head("POST", "/", { "content-type": "application/json", "x-forwarded-for": "10.200.0.1" }, 100),
      head("POST", "/api/2025-07-01/sources", { authorization: `Bearer ${team.apiKey}`, "content-type": "application/json" }, 100),
      head("POST", "/cli/sessions", { authorization: `Bearer ${cliKey}`, "content-type": "application/json" }, 100),
    ];
    const results = await Promise.all(cases.map((h) => stall(h, '{"name":')));
    for (const r of results) {
      expect(r.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 500);
      // Either Node's 408 or a plain close; never a 2xx for a request that was not complete.
      expect(r.received).not.toMatch(/^HTTP\/1\.1 2/);
    }
  }, 60_000);

  it("headers that never end close the socket", async () => {
    const r = await stall("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n");
    expect(r.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 500);
  }, 60_000);
});

describe("long-lived responses are not cut", () => {
  it(`GET /{id}/live keeps streaming past the request timeout: a capture ${REQUEST_TIMEOUT_MS * 2} ms later still arrives`, async () => {
    const t = await newTestUrl({}, { baseUrl: server!.url });
    const ac = new AbortController();
    const res = await fetch(`${server!.url}/${t.id}/live`, { signal: ac.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const readUntil = async (needle: string, ms: number) => {
      const end = Date.now() + ms;
      while (!text.includes(needle)) {
        if (Date.now() > end) throw new Error(`no "${needle}" in ${ms} ms; got ${text.slice(-300)}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; got ${text.slice(-300)}`);
        text += new TextDecoder().decode(value);
      }
    };
    try {
      await readUntil("event: ready", 5000);
      await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT_MS * 2));
      const captured = await fetch(`${server!.url}/e/${t.id}`, { method: "POST", body: "after-the-timeout" });
      expect(captured.status).toBe(200);
      await readUntil("event: request", 10_000);
    } finally {
      ac.abort();
    }
  }, 60_000);

  it("GET /cli/sessions/{id}/stream stays open past the request timeout", async () => {
    const { cliKey } = await createTeam("sockets stream");
    const created = await fetch(`${server!.url}/cli/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${cliKey}`, "content-type": "application/json" },
      body: JSON.stringify({ source_name: "stream" }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const r = await new Promise<{ closedAfterMs: number | null; received: string }>((resolve) => {
      const started = Date.now();
      const s = net.connect(server!.port, "127.0.0.1", () =>
        s.write(`GET /cli/sessions/${id}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${cliKey}\r\n\r\n`),
      );
      let received = "";
      let closedAfterMs: number | null = null;
      s.on("data", (d: Buffer) => (received += d.toString()));
      s.on("close", () => (closedAfterMs = Date.now() - started));
      s.on("error", () => {});
      setTimeout(
        () => {
          resolve({ closedAfterMs, received });
          s.destroy();
        },
        REQUEST_TIMEOUT_MS * 2 + 2000,
      );
    });
    expect(r.received).toMatch(/^HTTP\/1\.1 200/);
    expect(r.received).toContain("event: ready");
    expect(r.closedAfterMs).toBeNull();
  }, 60_000);
});
