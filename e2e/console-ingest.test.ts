/**
 * `/e/{id}` and `/e/{id}/{path…}` (docs/console-api.md#eidpath): every
 * method, CORS, what is captured, method rejection, body size limit, byte-exact bodies, raw
 * download, unknown ids.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, db, newTestUrl, preview } from "./support/client";

const MIB = 1024 * 1024;
const REQ_ID_RE = /^req_[0-9A-Za-z]{22}$/;

/** The ingest URL on the test server (same as t.ingest_url, whose host is the server's PUBLIC_URL). */
const ingestBase = (id: string) => `${BASE_URL}/e/${id}`;

/** A request through node:http, so the path and query go on the wire exactly as written. */
function raw(
  method: string,
  path: string,
  opts: { headers?: Record<string, string | string[]>; body?: Buffer | string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(BASE_URL);
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        headers: { ...(body ? { "content-length": String(body.length) } : {}), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function storedRequests(publicId: string) {
  const { rows } = await db().query<{
    id: string;
    rejection_cause: string | null;
    verified: boolean;
    method: string;
    path: string;
    query: string;
    headers: Record<string, string>;
    body: Buffer | null;
    body_size: number;
    content_type: string | null;
  }>(
    `SELECT r.id, r.rejection_cause, r.verified, d.method, d.path, d.query, d.headers, d.body, d.body_size, d.content_type
       FROM requests r JOIN request_raw_data d ON d.request_id = r.id
      WHERE r.source_id = $1 ORDER BY r.id`,
    [`src_${publicId}`],
  );
  return rows;
}

async function storedRequest(requestId: string) {
  const { rows } = await db().query<{ source_id: string; rejection_cause: string | null; body: Buffer | null; body_size: number; method: string }>(
    `SELECT r.source_id, r.rejection_cause, d.body, d.body_size, d.method
       FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.id = $1`,
    [requestId],
  );
  return rows[0];
}

function expectCors(headers: Headers | http.IncomingHttpHeaders) {
  const get = (n: string) => (headers instanceof Headers ? headers.get(n) : ((headers[n] as string | undefined) ?? null));
  expect(get("access-control-allow-origin")).toBe("*");
  const methods = get("access-control-allow-methods") ?? "";
  for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) expect(methods).toContain(m);
}

describe("/e/{id} – methods and answers", () => {
  let t: Awaited<ReturnType<typeof newTestUrl>>;
  beforeAll(async () => {
    t = await newTestUrl({ name: "methods" });
  });

  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("%s /e/{id} → 200 SUCCESS with the stored request's id, CORS headers", async (method) => {
    const res = await fetch(ingestBase(t.id), { method, body: method === "GET" || method === "DELETE" ? undefined : `body of ${method}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expectCors(res.headers);
    const body = (await res.json()) as { status: string; message: string; request_id: string };
    expect(body.status).toBe("SUCCESS");
    expect(typeof body.message).toBe("string");
    expect(body.message.length).toBeGreaterThan(0);
    expect(body.request_id).toMatch(REQ_ID_RE);
    const stored = await storedRequest(body.request_id);
    expect(stored).toBeDefined();
    expect(stored.source_id).toBe(`src_${t.id}`);
    expect(stored.method).toBe(method);
    expect(stored.rejection_cause).toBe("NO_CONNECTION");
  });

  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("%s /e/{id}/{path…} → 200 and captured with that path", async (method) => {
    const res = await fetch(`${ingestBase(t.id)}/deep/path/${method.toLowerCase()}`, { method });
    expect(res.status).toBe(200);
    const { request_id } = (await res.json()) as { request_id: string };
    const p = await preview(t.id);
    const captured = p.requests.find((r) => r.id === request_id);
    expect(captured).toBeDefined();
    expect(captured!.verb).toBe(method);
    expect(captured!.path).toBe(`/deep/path/${method.toLowerCase()}`);
  });

  it("HEAD /e/{id} → 200 with no body, CORS headers, and captured as HEAD", async () => {
    const before = (await storedRequests(t.id)).length;
    const res = await raw("HEAD", `/e/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expectCors(res.headers);
    const after = await storedRequests(t.id);
    expect(after.length).toBe(before + 1);
    expect(after.filter((r) => r.method === "HEAD")).toHaveLength(1);
    expect(after.find((r) => r.method === "HEAD")!.rejection_cause).toBe("NO_CONNECTION");
  });

  it("OPTIONS /e/{id} (preflight) → 204 with allow-origin *, allow-methods, allow-headers echoing the request", async () => {
    const res = await raw("OPTIONS", `/e/${t.id}`, {
      headers: { origin: "https://app.example.org", "access-control-request-method": "PUT", "access-control-request-headers": "x-custom-one, content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
    expectCors(res.headers);
    expect(res.headers["access-control-allow-headers"]).toBe("x-custom-one, content-type");
  });

  it("OPTIONS /e/{id} is captured as an accepted request (answered 204, not rejected for its method)", async () => {
    const fresh = await newTestUrl({ name: "options-capture" });
    const res = await raw("OPTIONS", `/e/${fresh.id}/pre`, { headers: { "access-control-request-headers": "x-a" } });
    expect(res.status).toBe(204);
    const rows = await storedRequests(fresh.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].method).toBe("OPTIONS");
    expect(rows[0].path).toBe("/pre");
    // The preflight was answered with success, so it must not be recorded as UNSUPPORTED_HTTP_METHOD.
    expect(rows[0].rejection_cause).toBe("NO_CONNECTION");
  });
});

describe("/e/{id} – what is captured", () => {
  it("preview shows verb, path, raw query exactly as sent (repeated keys, encoded chars), headers, received_at, verified false, NO_CONNECTION", async () => {
    const t = await newTestUrl({ name: "capture" });
    const query = "a=1&a=2&b=%20space%2Fslash&c=%E2%9C%93&d=x+y&empty=&flag";
    const sentAt = Date.now();
    const res = await raw("PUT", `/e/${t.id}/orders/42?${query}`, {
      headers: { "content-type": "text/plain", "x-hookyard-test": "Value With Spaces", "x-repeated": "one" },
      body: "payload",
    });
    expect(res.status).toBe(200);
    const { request_id } = JSON.parse(res.body.toString()) as { request_id: string };
    const p = await preview(t.id);
    expect(p.requests).toHaveLength(1);
    const r = p.requests[0];
    expect(r.id).toBe(request_id);
    expect(r.verb).toBe("PUT");
    expect(r.path).toBe("/orders/42");
    expect(r.query).toBe(query);
    expect(r.headers["x-hookyard-test"]).toBe("Value With Spaces");
    expect(r.headers["content-type"]).toBe("text/plain");
    expect(r.body).toBe("payload");
    expect(r.verified).toBe(false);
    expect(r.rejection_cause).toBe("NO_CONNECTION");
    expect(r.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Math.abs(Date.parse(r.received_at) - sentAt)).toBeLessThan(60_000);
  });

  it("path with percent-encoded characters is captured exactly as sent", async () => {
    const t = await newTestUrl({});
    const res = await raw("POST", `/e/${t.id}/a%20b/c%2Fd/%E2%9C%93?q=%2F`, { body: "x" });
    expect(res.status).toBe(200);
    const [r] = (await preview(t.id)).requests;
    expect(r.path).toBe("/a%20b/c%2Fd/%E2%9C%93");
    expect(r.query).toBe("q=%2F");
  });

  it("repeated request headers are captured, joined in arrival order", async () => {
    const t = await newTestUrl({});
    const res = await raw("POST", `/e/${t.id}`, { headers: { "x-multi": ["one", "two"] }, body: "x" });
    expect(res.status).toBe(200);
    const [r] = (await preview(t.id)).requests;
    expect(r.headers["x-multi"]).toBe("one, two");
    expect(r.headers["content-length"]).toBe("1");
  });

  it("request without path or query is captured with path / and an empty query", async () => {
    const t = await newTestUrl({});
    expect((await fetch(ingestBase(t.id), { method: "POST" })).status).toBe(200);
    const [r] = (await preview(t.id)).requests;
    expect(r.path).toBe("/");
    expect(r.query).toBe("");
    expect(r.verb).toBe("POST");
  });

  it("GET /e/{id} is always captured, never treated as inspection, even with Accept: application/json", async () => {
    const t = await newTestUrl({});
    const res = await fetch(ingestBase(t.id), { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).toBe("SUCCESS");
    expect(body).not.toHaveProperty("requests");
    expect(await storedRequests(t.id)).toHaveLength(1);
  });
});

describe("/e/{id} – method outside the source's allowed methods", () => {
  let t: Awaited<ReturnType<typeof newTestUrl>>;
  beforeAll(async () => {
    t = await newTestUrl({ type: "STRIPE", name: "stripe-methods" });
  });

  it.each(["GET", "PUT", "PATCH", "DELETE"])("%s to a STRIPE test URL → 405 with Allow, captured as UNSUPPORTED_HTTP_METHOD", async (method) => {
    const res = await fetch(ingestBase(t.id), { method, body: method === "GET" || method === "DELETE" ? undefined : "x" });
    expect(res.status).toBe(405);
    const allow = res.headers.get("allow");
    expect(allow).toBeTruthy();
    expect(allow!.split(",").map((s) => s.trim())).toContain("POST");
    expect(allow!.split(",").map((s) => s.trim())).not.toContain(method);
    expectCors(res.headers);
    const body = (await res.json()) as { request_id?: string };
    const rows = await storedRequests(t.id);
    const captured = body.request_id ? rows.find((r) => r.id === body.request_id) : rows.find((r) => r.method === method);
    expect(captured).toBeDefined();
    expect(captured!.method).toBe(method);
    expect(captured!.rejection_cause).toBe("UNSUPPORTED_HTTP_METHOD");
  });

  it("POST to a STRIPE test URL → 200, captured with NO_CONNECTION", async () => {
    const res = await fetch(ingestBase(t.id), { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"charge.succeeded"}' });
    expect(res.status).toBe(200);
    const { request_id } = (await res.json()) as { request_id: string };
    const p = await preview(t.id);
    const r = p.requests.find((x) => x.id === request_id)!;
    expect(r.rejection_cause).toBe("NO_CONNECTION");
    expect(r.body).toEqual({ type: "charge.succeeded" });
  });

  it("preview of the STRIPE test URL lists the 405 requests with UNSUPPORTED_HTTP_METHOD", async () => {
    const s = await newTestUrl({ type: "STRIPE" });
    expect((await fetch(ingestBase(s.id))).status).toBe(405);
    const p = await preview(s.id);
    expect(p.type).toBe("STRIPE");
    expect(p.requests).toHaveLength(1);
    expect(p.requests[0].verb).toBe("GET");
    expect(p.requests[0].rejection_cause).toBe("UNSUPPORTED_HTTP_METHOD");
  });
});

describe("/e/{id} – body size limit", () => {
  it("POST /e/{id} with a body of exactly 10 MiB → 200, stored in full", async () => {
    const t = await newTestUrl({ name: "ten-mib" });
    const body = randomBytes(10 * MIB);
    const res = await fetch(ingestBase(t.id), { method: "POST", headers: { "content-type": "application/octet-stream" }, body });
    expect(res.status).toBe(200);
    const { request_id } = (await res.json()) as { request_id: string };
    const { rows } = await db().query<{ len: number; body_size: number; rejection_cause: string | null; same: boolean }>(
      `SELECT octet_length(d.body) AS len, d.body_size, r.rejection_cause, d.body = $2 AS same
         FROM requests r JOIN request_raw_data d ON d.request_id = r.id WHERE r.id = $1`,
      [request_id, body],
    );
    expect(rows[0]).toEqual({ len: 10 * MIB, body_size: 10 * MIB, rejection_cause: "NO_CONNECTION", same: true });
  });

  it("POST /e/{id} with a chunked (no Content-Length) body over 10 MiB → 413, captured with its size and no body", async () => {
    const t = await newTestUrl({ name: "too-large-chunked" });
    const chunk = Buffer.alloc(MIB, 0x62);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 11) return controller.close();
        sent++;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const res = await fetch(ingestBase(t.id), { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { status: string }).status).toBe("PAYLOAD_TOO_LARGE");
    const rows = await storedRequests(t.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].rejection_cause).toBe("PAYLOAD_TOO_LARGE");
    expect(rows[0].body).toBeNull();
    expect(rows[0].body_size).toBe(11 * MIB);
  });

  it("POST /e/{id} with 10 MiB + 1 byte → 413 PAYLOAD_TOO_LARGE, captured with that cause and no body", async () => {
    const t = await newTestUrl({ name: "too-large" });
    const res = await fetch(ingestBase(t.id), {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(10 * MIB + 1, 0x61),
    });
    expect(res.status).toBe(413);
    expectCors(res.headers);
    const body = (await res.json()) as { status: string; request_id?: string };
    expect(body.status).toBe("PAYLOAD_TOO_LARGE");
    const rows = await storedRequests(t.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].rejection_cause).toBe("PAYLOAD_TOO_LARGE");
    expect(rows[0].body).toBeNull();
    expect(rows[0].body_size).toBe(10 * MIB + 1);
    if (body.request_id) expect(rows[0].id).toBe(body.request_id);
    const p = await preview(t.id);
    expect(p.requests[0].rejection_cause).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("/e/{id} – bodies stored byte-exact, raw download", () => {
  let t: Awaited<ReturnType<typeof newTestUrl>>;
  beforeAll(async () => {
    t = await newTestUrl({ name: "bytes" });
  });

  async function sendAndCompare(body: Buffer, contentType: string) {
    const res = await fetch(ingestBase(t.id), { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(body) });
    expect(res.status).toBe(200);
    const { request_id } = (await res.json()) as { request_id: string };
    const stored = await storedRequest(request_id);
    expect(stored.body).not.toBeNull();
    expect(Buffer.compare(stored.body!, body)).toBe(0);
    expect(stored.body_size).toBe(body.length);

    const dl = await fetch(`${BASE_URL}/${t.id}/requests/${request_id}/raw`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("application/octet-stream");
    expect(dl.headers.get("content-disposition")).toMatch(/^attachment\b/);
    const downloaded = Buffer.from(await dl.arrayBuffer());
    expect(Buffer.compare(downloaded, body)).toBe(0);
    return request_id;
  }

  it("binary body with all 256 byte values is stored and downloaded byte-exact", async () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await sendAndCompare(Buffer.concat([all, all.reverse()]), "application/octet-stream");
  });

  it("random binary body is stored and downloaded byte-exact", async () => {
    await sendAndCompare(randomBytes(100_000), "application/octet-stream");
  });

  it("urlencoded form body is stored and downloaded byte-exact", async () => {
    const form = Buffer.from("name=J%C3%BCrgen+M%C3%BCller&tags=a&tags=b&empty=&plus=%2B&amp=%26&raw=caf\u00e9", "utf8");
    const id = await sendAndCompare(form, "application/x-www-form-urlencoded");
    const p = await preview(t.id);
    expect(p.requests.find((r) => r.id === id)!.content_type).toBe("application/x-www-form-urlencoded");
  });

  it("multipart form body (text field and binary file) is stored and downloaded byte-exact", async () => {
    const boundary = "----hookyardBoundary7MA4YWxkTrZu0gW";
    const file = randomBytes(2048);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="field"\r\n\r\nhello w\u00f6rld\r\n`, "utf8"),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    await sendAndCompare(body, `multipart/form-data; boundary=${boundary}`);
  });

  it("multipart body built by FormData is stored byte-exact", async () => {
    const fd = new FormData();
    fd.append("a", "1");
    fd.append("file", new Blob([new Uint8Array(randomBytes(512))]), "f.bin");
    const req = new Request(ingestBase(t.id), { method: "POST", body: fd });
    const sent = Buffer.from(await req.clone().arrayBuffer());
    const res = await fetch(req);
    expect(res.status).toBe(200);
    const { request_id } = (await res.json()) as { request_id: string };
    const stored = await storedRequest(request_id);
    expect(Buffer.compare(stored.body!, sent)).toBe(0);
  });

  it("GET /{id}/requests/{req}/raw of a request without body → 200 empty download", async () => {
    const res = await fetch(ingestBase(t.id), { method: "DELETE" });
    const { request_id } = (await res.json()) as { request_id: string };
    const dl = await fetch(`${BASE_URL}/${t.id}/requests/${request_id}/raw`);
    expect(dl.status).toBe(200);
    expect((await dl.arrayBuffer()).byteLength).toBe(0);
  });

  it("GET /{id}/requests/{req}/raw → 404 for an unknown request or a request of another source", async () => {
    const other = await newTestUrl({});
    const res = await fetch(ingestBase(other.id), { method: "POST", body: "secret" });
    const { request_id } = (await res.json()) as { request_id: string };
    expect((await fetch(`${BASE_URL}/${t.id}/requests/${request_id}/raw`)).status).toBe(404);
    expect((await fetch(`${BASE_URL}/${other.id}/requests/req_0000000000000000000000/raw`)).status).toBe(404);
    expect((await fetch(`${BASE_URL}/${other.id}/requests/${request_id}/raw`)).status).toBe(200);
  });
});

describe("/e/{id} – unknown ids", () => {
  const unknownId = "0123456789ABCDEFabcdef"; // 22 base62 chars, never issued

  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("%s /e/{well-formed unknown id} → 404", async (method) => {
    const res = await fetch(`${BASE_URL}/e/${unknownId}`, { method });
    expect(res.status).toBe(404);
    expectCors(res.headers);
  });

  it("POST /e/{garbage id} → 404", async () => {
    for (const id of ["nope", "src_0123456789ABCDEFabcdef", "0123456789ABCDEFabcde!", "a".repeat(200)]) {
      const res = await fetch(`${BASE_URL}/e/${encodeURIComponent(id)}`, { method: "POST", body: "x" });
      expect(res.status, id).toBe(404);
    }
  });

  it("POST /e/{unknown id}/{path} → 404", async () => {
    const res = await fetch(`${BASE_URL}/e/${unknownId}/some/path?x=1`, { method: "POST", body: "x" });
    expect(res.status).toBe(404);
  });

  it("POST /e/ with no id → 404", async () => {
    const res = await fetch(`${BASE_URL}/e/`, { method: "POST", body: "x" });
    expect(res.status).toBe(404);
  });
});
