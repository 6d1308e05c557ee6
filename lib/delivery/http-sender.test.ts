/**
 * The delivery engine's HTTP sender (lib/delivery/http-sender.ts) against a real local HTTP server:
 * what it sends, what it records of the answer, and how each failure is classified.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressPolicy, type Resolver } from "@/lib/delivery/address-guard";
import { closeSender, configureSender, sendHttp } from "@/lib/delivery/http-sender";

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
    if (path === "/close") return res.writeHead(200, { connection: "close" }).end("closed");
    res.writeHead(404).end("no such path");
  });
});

beforeAll(async () => {
  server.on("connection", (s: Socket) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await configureSender({});
  await closeSender();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

describe("sendHttp", () => {
  it("sends method, path, query, headers and body; records status, body and latencies", async () => {
    const before = Date.now();
    const r = await sendHttp({
      url: `${base}/ok?a=1&b=two`,
      method: "PUT",
      headers: { "content-type": "application/json", "x-custom": "v" },
      body: Buffer.from('{"k":1}'),
    });
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
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sendHttp({ url: `${base}/ok?i=${i}`, method: "POST", headers: {}, body: Buffer.from(String(i)) })),
    );
    expect(results.every((r) => r.status === 201 && r.body === "created")).toBe(true);
    const bodies = new Set(seen.filter((s) => s.url.startsWith("/ok?i=")).map((s) => s.body));
    expect(bodies.size).toBe(200);
  });
});

/** A resolver the test controls: every name resolves to what `answer` says for it (one call per connection). */
const resolverOf =
  (answer: (hostname: string) => string): Resolver =>
  (hostname, _options, callback) => {
    const address = answer(hostname);
    queueMicrotask(() => callback(null, [{ address, family: address.includes(":") ? 6 : 4 }]));
  };

describe("sendHttp – refused addresses", () => {
  afterAll(() => configureSender({}));

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/", // decimal
    "http://0251.0376.0251.0376/", // octal
    "http://0xa9fea9fe/", // hex
    "http://169.254.43518/", // short form
    "http://169.254.169.254./", // trailing dot
    "http://[::ffff:169.254.169.254]/", // IPv4-mapped
    "http://[::169.254.169.254]/", // IPv4-compatible
    "http://[64:ff9b::a9fe:a9fe]/", // NAT64
    "http://[64:ff9b::168.63.129.16]/",
    "http://[fd00:ec2::254]/latest/meta-data/", // AWS IPv6
    "http://100.100.100.200/latest/meta-data/", // Alibaba
    "http://168.63.129.16/machine?comp=goalstate", // Azure wire server
    "http://192.0.0.192/", // Oracle
    "http://169.254.0.23/", // Tencent
    "https://metadata.google.internal/computeMetadata/v1/",
    "http://metadata.tencentyun.com/latest/meta-data/",
  ])("%s is HOST_UNREACHABLE without a connection: by default, and with private networks and every CIDR allowed", async (url) => {
    // The test process has no PUBLIC_URL (localhost): private networks are allowed by default.
    const byDefault = await sendHttp({ url, method: "GET", headers: {}, body: null, timeoutMs: 1_000 });
    expect(byDefault).toMatchObject({ status: null, errorCode: "HOST_UNREACHABLE", respondedAt: null });
    expect(byDefault.body).toMatch(/cloud metadata/);
    await configureSender({ policy: addressPolicy(true, ["0.0.0.0/0", "::/0"]) });
    const r = await sendHttp({ url, method: "GET", headers: {}, body: null, timeoutMs: 1_000 });
    await configureSender({});
    expect(r).toMatchObject({ status: null, errorCode: "HOST_UNREACHABLE", respondedAt: null });
    expect(r.body).toMatch(/cloud metadata/);
  });

  it("with the settings of the test process (PUBLIC_URL loopback: private allowed), local receivers are reached", async () => {
    await configureSender({});
    expect((await sendHttp({ url: `${base}/ok`, method: "POST", headers: {}, body: null })).status).toBe(201);
  });

  it("a host name resolving to each metadata form is refused after resolution; the receiver sees nothing", async () => {
    for (const address of [
      "169.254.169.254",
      "fd00:ec2::254",
      "100.100.100.200",
      "168.63.129.16",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a9fe:a9fe",
      "2002:a9fe:a9fe::1",
      "fe80::1",
    ]) {
      await configureSender({ policy: addressPolicy(true, ["0.0.0.0/0", "::/0"]), resolve: resolverOf(() => address) });
      const r = await sendHttp({ url: `http://hooks.customer.test:${new URL(base).port}/ok`, method: "POST", headers: {}, body: null, timeoutMs: 2_000 });
      expect(r.errorCode, address).toBe("HOST_UNREACHABLE");
      expect(r.body).toContain(`hooks.customer.test resolves to ${address}`);
    }
  });

  it("private targets follow DELIVERY_ALLOW_PRIVATE_NETWORKS and DELIVERY_ALLOWED_CIDRS", async () => {
    const url = `http://hooks.customer.test:${new URL(base).port}/ok`;
    const count = seen.length;
    await configureSender({ policy: addressPolicy(false), resolve: resolverOf(() => "127.0.0.1") });
    const refused = await sendHttp({ url, method: "POST", headers: {}, body: null });
    expect(refused.errorCode).toBe("HOST_UNREACHABLE");
    expect(refused.body).toMatch(/127\.0\.0\.1 is a loopback address \(DELIVERY_ALLOW_PRIVATE_NETWORKS is off/);
    expect((await sendHttp({ url: `${base}/ok`, method: "POST", headers: {}, body: null })).errorCode).toBe("HOST_UNREACHABLE");
    expect(seen.length).toBe(count);
    await configureSender({ policy: addressPolicy(false, ["127.0.0.0/8"]), resolve: resolverOf(() => "127.0.0.1") });
    expect((await sendHttp({ url, method: "POST", headers: {}, body: null })).status).toBe(201);
    await configureSender({ policy: addressPolicy(true), resolve: resolverOf(() => "127.0.0.1") });
    expect((await sendHttp({ url, method: "POST", headers: {}, body: null })).status).toBe(201);
    expect(seen.length).toBe(count + 2);
  });

  it("DNS rebinding: a name that first resolves to the receiver and then to the metadata service is refused on the next connection", async () => {
    let calls = 0;
    await configureSender({ policy: addressPolicy(true), resolve: resolverOf(() => (calls++ === 0 ? "127.0.0.1" : "169.254.169.254")) });
    const url = `http://rebind.customer.test:${new URL(base).port}/close`;
    const first = await sendHttp({ url, method: "POST", headers: {}, body: null });
    expect(first).toMatchObject({ status: 200, body: "closed" });
    // The receiver closed the connection; the next delivery connects, and resolves, again.
    const second = await sendHttp({ url, method: "POST", headers: {}, body: null, timeoutMs: 2_000 });
    expect(second).toMatchObject({ status: null, errorCode: "HOST_UNREACHABLE" });
    expect(second.body).toContain("rebind.customer.test resolves to 169.254.169.254");
    expect(calls).toBe(2);
  });
});
