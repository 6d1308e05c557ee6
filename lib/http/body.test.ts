/**
 * The one body reader (lib/http/body.ts) over a real Node HTTP server and fetch `Request`s: bodies up
 * to the limit are kept byte-exact; past it they are dropped but still counted (ingestion) or, declared
 * too large, not read at all (the APIs).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BodyRead, readBody, readRequestBody } from "@/lib/http/body";
import { readNodeRequest } from "@/lib/http/node";

const MAX = 1000;
let base = "";
const server = createServer((req: IncomingMessage, res) => {
  const countAll = req.url !== "/api";
  readBody(req, { maxBytes: MAX, declaredLength: req.headers["content-length"], countAll }).then(
    (read) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ size: read.size, tooLarge: read.tooLarge, body: read.body.toString("base64") }));
    },
    () => res.destroy(),
  );
});
beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sends `body` in chunks of 300 bytes without a Content-Length (chunked), or with one (`declared`). */
async function send(path: string, body: Buffer, chunked: boolean) {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < body.length; i += 300) c.enqueue(body.subarray(i, i + 300));
      c.close();
    },
  });
  const res = await fetch(`${base}${path}`, { method: "POST", body: chunked ? stream : body, ...(chunked ? { duplex: "half" } : {}) } as RequestInit);
  const out = (await res.json()) as { size: number; tooLarge: boolean; body: string };
  return { ...out, body: Buffer.from(out.body, "base64") };
}

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 256));

describe("readBody on a Node request", () => {
  it("keeps a body up to the limit byte-exact, from several chunks or one", async () => {
    for (const chunked of [true, false]) {
      const got = await send("/ingest", bytes(MAX), chunked);
      expect([got.size, got.tooLarge, got.body.equals(bytes(MAX))]).toEqual([MAX, false, true]);
    }
  });

  it("ingestion: a body past the limit is dropped, every byte still counted (by counting and by Content-Length)", async () => {
    for (const chunked of [true, false]) {
      const got = await send("/ingest", bytes(MAX + 1), chunked);
      expect([got.size, got.tooLarge, got.body.length]).toEqual([MAX + 1, true, 0]);
    }
  });

  it("the APIs: a counted body past the limit is too large; a declared one is not read", async () => {
    const counted = await send("/api", bytes(2500), true);
    expect([counted.size, counted.tooLarge, counted.body.length]).toEqual([2500, true, 0]);
    const declared = await send("/api", bytes(2500), false);
    expect([declared.size, declared.tooLarge, declared.body.length]).toEqual([2500, true, 0]);
  });

  it("readNodeRequest takes its body from it", async () => {
    const s = createServer((req, res) => {
      void readNodeRequest(req, { maxBodyBytes: 4, trustProxy: 0 }).then((r) => res.end(JSON.stringify([r.body.toString(), r.bodySize, r.bodyTooLarge])));
    }).listen(0, "127.0.0.1");
    await once(s, "listening");
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
    expect(await (await fetch(url, { method: "POST", body: "abcd" })).json()).toEqual(["abcd", 4, false]);
    expect(await (await fetch(url, { method: "POST", body: "abcde" })).json()).toEqual(["", 5, true]);
    s.close();
  });
});

describe("readRequestBody on a fetch Request (Next.js route handlers)", () => {
  const request = (body: BodyInit | null, headers: Record<string, string> = {}) =>
    new Request("http://x/", { method: body === null ? "GET" : "POST", body, headers });
  const plain = (r: BodyRead) => [r.body.toString(), r.size, r.tooLarge];

  it("keeps a body up to the limit; none is empty", async () => {
    expect(plain(await readRequestBody(request("héllo"), { maxBytes: 6, countAll: false }))).toEqual(["héllo", 6, false]);
    expect(plain(await readRequestBody(request(null), { maxBytes: 6, countAll: true }))).toEqual(["", 0, false]);
  });

  it("a body past the limit is dropped and counted", async () => {
    expect(plain(await readRequestBody(request("1234567"), { maxBytes: 6, countAll: true }))).toEqual(["", 7, true]);
    expect(plain(await readRequestBody(request("1234567"), { maxBytes: 6, countAll: false }))).toEqual(["", 7, true]);
  });

  it("the APIs do not read a body whose declared length is over the limit; ingestion reads it to count it", async () => {
    const api = request("12", { "content-length": "99" });
    expect(plain(await readRequestBody(api, { maxBytes: 6, countAll: false }))).toEqual(["", 99, true]);
    expect(api.bodyUsed).toBe(false);
    const ingest = request("12", { "content-length": "99" });
    expect(plain(await readRequestBody(ingest, { maxBytes: 6, countAll: true }))).toEqual(["", 2, true]);
  });
});
