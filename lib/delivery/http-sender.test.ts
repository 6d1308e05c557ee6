/**
 * The delivery engine's HTTP sender (lib/delivery/http-sender.ts) against a real local HTTP server:
 * what it sends, what it records of the answer, and how each failure is classified.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSender, sendHttp } from "@/lib/delivery/http-sender";

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
const seen: Seen[] = [];
let base = "";
const sockets = new Set<Socket>();
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    const path = new URL(req.url!, "http://x").pathname;
    if (path === "/ok") return res.writeHead(201, { "content-type": "text/plain" }).end("created");
    if (path === "/big") return res.writeHead(200).end("x".repeat(100 * 1024));
    if (path === "/redirect") return res.writeHead(302, { location: "/ok" }).end("moved");
    if (path === "/silent") return; // never answers
    if (path === "/dribble") {
      // Headers at once, then a byte every 100 ms: never idle long, never done.
      res.writeHead(200);
      const t = setInterval(() => res.write("."), 100);
      res.on("close", () => clearInterval(t));
      return;
    }
    if (path === "/reset") return req.socket.destroy();
    res.writeHead(404).end("no such path");
  });
});

beforeAll(async () => {
  server.on("connection", (s: Socket) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeSender();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

describe("sendHttp", () => {
  it("sends method, path, query, headers and body; records status, body and latencies", async () => {
    const before = Date.now();
    const r = await sendHttp({ url: `${base}/ok?a=1&b=two`, method: "PUT", headers: { "content-type": "application/json", "x-custom": "v" }, body: Buffer.from('{"k":1}') });
    expect(r).toMatchObject({ status: 201, body: "created", errorCode: null });
    expect(r.responseLatency).toBeGreaterThanOrEqual(0);
    expect(r.deliveryLatency).toBeGreaterThanOrEqual(r.responseLatency!);
    expect(r.deliveredAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(r.respondedAt!.getTime()).toBeGreaterThanOrEqual(r.deliveredAt.getTime());
    const s = seen.at(-1)!;
    expect(s).toMatchObject({ method: "PUT", url: "/ok?a=1&b=two", body: '{"k":1}' });
    expect(s.headers).toMatchObject({ "content-type": "application/json", "x-custom": "v", "content-length": "7" });
  });

  it("GET and HEAD carry no body", async () => {
    const r = await sendHttp({ url: `${base}/ok`, method: "GET", headers: {}, body: Buffer.from("ignored") });
    expect(r.status).toBe(201);
    expect(seen.at(-1)).toMatchObject({ method: "GET", body: "" });
    const h = await sendHttp({ url: `${base}/ok`, method: "HEAD", headers: {}, body: Buffer.from("ignored") });
    expect(h).toMatchObject({ status: 201, body: "" });
  });

  it("keeps at most DELIVERY_RESPONSE_MAX_BYTES of the answer (64 KiB by default)", async () => {
    const r = await sendHttp({ url: `${base}/big`, method: "POST", headers: {}, body: null });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(64 * 1024);
  });

  it("does not follow redirects: a 3xx is the answer", async () => {
    const count = seen.length;
    const r = await sendHttp({ url: `${base}/redirect`, method: "POST", headers: {}, body: null });
    expect(r).toMatchObject({ status: 302, body: "moved", errorCode: null });
    expect(seen.length).toBe(count + 1);
  });

  it("an answer that does not come within the timeout is TIMEOUT", async () => {
    const r = await sendHttp({ url: `${base}/silent`, method: "POST", headers: {}, body: null, timeoutMs: 300 });
    expect(r).toMatchObject({ status: null, errorCode: "TIMEOUT", responseLatency: null, respondedAt: null });
    expect(r.deliveryLatency).toBeGreaterThanOrEqual(290);
    expect(r.deliveryLatency).toBeLessThan(2000);
  });

  it("the timeout bounds the whole exchange: a body that never ends is TIMEOUT", async () => {
    const r = await sendHttp({ url: `${base}/dribble`, method: "POST", headers: {}, body: null, timeoutMs: 400 });
    expect(r).toMatchObject({ status: null, errorCode: "TIMEOUT" });
    expect(r.deliveryLatency).toBeLessThan(2000);
  });

  it("classifies failures without an answer: reset, refused, invalid URL, refused address, bad header", async () => {
    expect((await sendHttp({ url: `${base}/reset`, method: "POST", headers: {}, body: null })).errorCode).toBe("SOCKET_CLOSED");
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await sendHttp({ url: `http://127.0.0.1:${port}/`, method: "POST", headers: {}, body: null })).errorCode).toBe("CONNECTION_REFUSED");
    expect((await sendHttp({ url: "not a url", method: "POST", headers: {}, body: null })).errorCode).toBe("INVALID_URL");
    expect((await sendHttp({ url: "ftp://example.com/", method: "POST", headers: {}, body: null })).errorCode).toBe("INVALID_URL");
    const metadata = await sendHttp({ url: "http://169.254.169.254/latest/meta-data", method: "GET", headers: {}, body: null });
    expect(metadata.errorCode).toBe("HOST_UNREACHABLE");
    const bad = await sendHttp({ url: `${base}/ok`, method: "POST", headers: { "x-bad": "line\nbreak" }, body: null });
    expect(bad).toMatchObject({ status: null, errorCode: "INVALID_CHARACTER" });
  });

  it("many deliveries at once all complete, each with its own answer", async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => sendHttp({ url: `${base}/ok?i=${i}`, method: "POST", headers: {}, body: Buffer.from(String(i)) })));
    expect(results.every((r) => r.status === 201 && r.body === "created")).toBe(true);
    const bodies = new Set(seen.filter((s) => s.url.startsWith("/ok?i=")).map((s) => s.body));
    expect(bodies.size).toBe(200);
  });
});
