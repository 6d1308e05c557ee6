/**
 * `GET /{id}` (JSON preview and HTML page) and `GET /{id}/live` (server-sent events)
 * (docs/console-api.md#source-preview-get-id-accept-applicationjson, docs/console-api.md#endpoints).
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { BASE_URL, BASE_URL_NO_PROXY, db, newTestUrl, preview } from "./support/client";

const UNKNOWN_ID = "0123456789ABCDEFabcdef"; // 22 base62 chars, never issued

const send = async (id: string, body: string | Buffer, contentType = "text/plain", base = BASE_URL) => {
  const res = await fetch(`${base}/e/${id}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { request_id: string }).request_id;
};

async function requestCount(id: string): Promise<number> {
  const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM requests WHERE source_id = $1", [`src_${id}`]);
  return rows[0].n;
}

describe("GET /{id} – JSON preview", () => {
  it("GET /{id} with Accept: application/json → preview with id src_<id>, ingest_url, type, name, requests", async () => {
    const t = await newTestUrl({ type: "GITHUB", name: "preview-shape" });
    const res = await fetch(`${BASE_URL}/${t.id}`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const p = (await res.json()) as Record<string, unknown>;
    expect(p.id).toBe(`src_${t.id}`);
    expect(p.ingest_url).toBe(t.ingest_url);
    expect(p.type).toBe("GITHUB");
    expect(p.name).toBe("preview-shape");
    expect(p.requests).toEqual([]);
    // The workspace is not part of the public preview.
    expect(p).not.toHaveProperty("team_id");
  });

  it("GET /{id} – requests are listed newest first", async () => {
    const t = await newTestUrl({ name: "order" });
    const ids = [await send(t.id, "first"), await send(t.id, "second"), await send(t.id, "third")];
    const p = await preview(t.id);
    expect(p.requests.map((r) => r.id)).toEqual([...ids].reverse());
    expect(p.requests.map((r) => r.body)).toEqual(["third", "second", "first"]);
    const times = p.requests.map((r) => Date.parse(r.received_at));
    expect(times[0]).toBeGreaterThanOrEqual(times[1]);
    expect(times[1]).toBeGreaterThanOrEqual(times[2]);
  });

  it("GET /{id} – JSON body previews as an object", async () => {
    const t = await newTestUrl({});
    await send(t.id, JSON.stringify({ event: "order.paid", amount: 1250, nested: { ok: true, list: [1, "two"] } }), "application/json");
    const [r] = (await preview(t.id)).requests;
    expect(r.body).toEqual({ event: "order.paid", amount: 1250, nested: { ok: true, list: [1, "two"] } });
    expect(r.body_encoding).toBe("json");
    expect(r.body_truncated).toBe(false);
  });

  it("GET /{id} – text body previews as a string", async () => {
    const t = await newTestUrl({});
    await send(t.id, "plain text with ümlauts ✓");
    const [r] = (await preview(t.id)).requests;
    expect(r.body).toBe("plain text with ümlauts ✓");
    expect(r.body_encoding).toBe("text");
    expect(r.body_truncated).toBe(false);
  });

  it("GET /{id} – binary body previews as base64 with body_encoding base64", async () => {
    const t = await newTestUrl({});
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x81, 0xc3, 0x28, 0x00, 0x01, 0x9f, 0x92, 0x96]);
    await send(t.id, bytes, "application/octet-stream");
    const [r] = (await preview(t.id)).requests;
    expect(r.body_encoding).toBe("base64");
    expect(r.body).toBe(bytes.toString("base64"));
    expect(Buffer.from(r.body as string, "base64").equals(bytes)).toBe(true);
    expect(r.body_truncated).toBe(false);
  });

  it("GET /{id} – a body over 64 KiB previews truncated (body_truncated true)", async () => {
    const t = await newTestUrl({});
    const big = "x".repeat(64 * 1024 + 100);
    await send(t.id, big);
    const [r] = (await preview(t.id)).requests;
    expect(r.body_truncated).toBe(true);
    expect(typeof r.body).toBe("string");
    expect((r.body as string).length).toBeLessThanOrEqual(64 * 1024);
    expect((r.body as string).length).toBeGreaterThan(0);
    expect(r.body_size).toBe(64 * 1024 + 100);
  });

  it("GET /{id} – a JSON body over 64 KiB is truncated text, not parsed", async () => {
    const t = await newTestUrl({});
    const big = JSON.stringify({ data: "y".repeat(70_000) });
    await send(t.id, big, "application/json");
    const [r] = (await preview(t.id)).requests;
    expect(r.body_truncated).toBe(true);
    expect(typeof r.body).toBe("string");
    expect(big.startsWith(r.body as string)).toBe(true);
  });

  it("GET /{id} – a request without body previews body null", async () => {
    const t = await newTestUrl({});
    expect((await fetch(`${BASE_URL}/e/${t.id}`)).status).toBe(200);
    const [r] = (await preview(t.id)).requests;
    expect(r.body).toBeNull();
    expect(r.body_truncated).toBe(false);
  });

  it("GET /{id} is never captured: the request count does not change after GETs (JSON and HTML)", async () => {
    const t = await newTestUrl({});
    await send(t.id, "one");
    expect(await requestCount(t.id)).toBe(1);
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${BASE_URL}/${t.id}`, { headers: { accept: "application/json" } })).status).toBe(200);
    }
    await fetch(`${BASE_URL}/${t.id}`).then((r) => r.arrayBuffer());
    await fetch(`${BASE_URL}/${t.id}`, { headers: { accept: "text/html" } }).then((r) => r.arrayBuffer());
    expect(await requestCount(t.id)).toBe(1);
    expect((await preview(t.id)).requests).toHaveLength(1);
  });

  it("GET /{id} – a request captured by the other server process shows up in the preview", async () => {
    const t = await newTestUrl({});
    const id = await send(t.id, "via-b", "text/plain", BASE_URL_NO_PROXY);
    const p = await preview(t.id);
    expect(p.requests.map((r) => r.id)).toEqual([id]);
  });

  it("GET /{id} (JSON) with a well-formed unknown id → 404 JSON", async () => {
    const res = await fetch(`${BASE_URL}/${UNKNOWN_ID}`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { code: string; status: number; data: string[] };
    expect(body.status).toBe(404);
    expect(body.code).toBe("NOT_FOUND");
    expect(Array.isArray(body.data)).toBe(true);
  });

  it("GET /{id} (JSON) with a garbage id → 404", async () => {
    const res = await fetch(`${BASE_URL}/not-an-id`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(404);
  });
});

describe("GET /{id} – HTML", () => {
  it("GET /{id} without Accept → 200 HTML (the console app deep-linked to the source)", async () => {
    const t = await newTestUrl({});
    // node:http sends no Accept header at all (fetch would add "*/*").
    const url = new URL(`${BASE_URL}/${t.id}`);
    const res = await new Promise<{ status: number; contentType: string | undefined; body: string }>((resolve, reject) => {
      http
        .get({ host: url.hostname, port: url.port, path: url.pathname }, (r) => {
          let body = "";
          r.setEncoding("utf8");
          r.on("data", (c: string) => (body += c));
          r.on("end", () => resolve({ status: r.statusCode!, contentType: r.headers["content-type"], body }));
        })
        .on("error", reject);
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  it("GET /{id} with Accept: text/html (browser) → 200 HTML", async () => {
    const t = await newTestUrl({});
    const res = await fetch(`${BASE_URL}/${t.id}`, { headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("GET /{id} (HTML) with an unknown id → 404", async () => {
    const res = await fetch(`${BASE_URL}/${UNKNOWN_ID}`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("GET / → 200 HTML console application", async () => {
    const res = await fetch(`${BASE_URL}/`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });
});

/** Reads an SSE stream and resolves when an event of `name` has arrived (rejects after `ms`). */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: { event: string; data: string }[] = [];
  async function next(name: string, ms: number): Promise<{ event: string; data: string }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const idx = events.findIndex((e) => e.event === name);
      if (idx !== -1) return events.splice(0, idx + 1)[idx];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no "${name}" event within ${ms} ms; got: ${JSON.stringify(events)} / ${JSON.stringify(buffer)}`);
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<"timeout">((r) => {
          timer = setTimeout(() => r("timeout"), left);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === "timeout") continue;
      if (chunk.done) throw new Error(`stream ended before "${name}"`);
      buffer += decoder.decode(chunk.value, { stream: true });
      let sep: number;
      while ((sep = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, sep);
        buffer = buffer.slice(sep + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trim());
        }
        if (data.length || event !== "message") events.push({ event, data: data.join("\n") });
      }
    }
  }
  return { next, cancel: () => reader.cancel().catch(() => {}) };
}

describe("GET /{id}/live – server-sent events", () => {
  it("GET /{id}/live → text/event-stream, first event ready, then request within a second of a capture", async () => {
    const t = await newTestUrl({ name: "live" });
    const ac = new AbortController();
    const res = await fetch(`${BASE_URL}/${t.id}/live`, { signal: ac.signal });
    try {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const sse = sseReader(res.body!);
      const ready = await sse.next("ready", 2000);
      expect(ready.event).toBe("ready");
      await send(t.id, "live-one");
      const sentAt = Date.now();
      const ev = await sse.next("request", 1000);
      expect(Date.now() - sentAt).toBeLessThan(1000);
      expect(JSON.parse(ev.data)).toMatchObject({ source_id: `src_${t.id}` });
      await sse.cancel();
    } finally {
      ac.abort();
    }
  });

  it("GET /{id}/live – the first event is ready", async () => {
    const t = await newTestUrl({});
    const ac = new AbortController();
    const res = await fetch(`${BASE_URL}/${t.id}/live`, { signal: ac.signal });
    try {
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const firstBlock = text.slice(0, text.indexOf("\n\n"));
      const firstEvent = firstBlock.split("\n").find((l) => l.startsWith("event:"));
      expect(firstEvent).toBe("event: ready");
      await reader.cancel().catch(() => {});
    } finally {
      ac.abort();
    }
  });

  it("GET /{id}/live – a request captured by the other server process arrives as an event", async () => {
    const t = await newTestUrl({});
    const ac = new AbortController();
    const res = await fetch(`${BASE_URL}/${t.id}/live`, { signal: ac.signal });
    try {
      const sse = sseReader(res.body!);
      await sse.next("ready", 2000);
      await send(t.id, "cross-process", "text/plain", BASE_URL_NO_PROXY);
      const ev = await sse.next("request", 1000);
      expect(JSON.parse(ev.data)).toMatchObject({ source_id: `src_${t.id}` });
      await sse.cancel();
    } finally {
      ac.abort();
    }
  });

  it("GET /{id}/live – requests to another source produce no event", async () => {
    const t = await newTestUrl({});
    const other = await newTestUrl({});
    const ac = new AbortController();
    const res = await fetch(`${BASE_URL}/${t.id}/live`, { signal: ac.signal });
    try {
      const sse = sseReader(res.body!);
      await sse.next("ready", 2000);
      await send(other.id, "elsewhere");
      await expect(sse.next("request", 500)).rejects.toThrow(/no "request" event/);
      await sse.cancel();
    } finally {
      ac.abort();
    }
  });

  it("GET /{id}/live with an unknown id → 404", async () => {
    const res = await fetch(`${BASE_URL}/${UNKNOWN_ID}/live`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const garbage = await fetch(`${BASE_URL}/nope/live`);
    expect(garbage.status).toBe(404);
    await garbage.arrayBuffer();
  });
});

describe('GET /{id}/live – the event carries the new request (docs/console-api.md "Live updates")', () => {
  it("each `request` event holds its request exactly as the preview lists it, so a viewer fetches nothing", async () => {
    const t = await newTestUrl({ name: "live-rows" });
    const ac = new AbortController();
    const res = await fetch(`${BASE_URL}/${t.id}/live`, { signal: ac.signal });
    try {
      const sse = sseReader(res.body!);
      await sse.next("ready", 2000);
      const first = await send(t.id, '{"order":1}', "application/json");
      const second = await send(t.id, "two", "text/plain", BASE_URL_NO_PROXY);
      const events = [JSON.parse((await sse.next("request", 5000)).data), JSON.parse((await sse.next("request", 5000)).data)];
      const listed = (await preview(t.id)).requests;
      expect(listed.map((r) => r.id)).toEqual([second, first]);
      // Each event: the source id (as before) and the row, equal to the preview's row of that request.
      const byId = new Map(events.map((e: { request: { id: string } }) => [e.request.id, e]));
      for (const row of listed) expect(byId.get(row.id)).toEqual({ source_id: `src_${t.id}`, request: row });
      expect(byId.get(first)?.request).toMatchObject({ verb: "POST", body: { order: 1 }, body_encoding: "json" });
      await sse.cancel();
    } finally {
      ac.abort();
    }
  });
});

describe('GET /{id} – paging past the newest 100 and search (docs/console-api.md "Source preview")', () => {
  const previewOf = async (id: string, query: string) => {
    const res = await fetch(`${BASE_URL}/${id}?${query}`, { headers: { accept: "application/json" } });
    return { status: res.status, body: (await res.json()) as { requests: { id: string; path: string }[]; code?: string; data?: string[] } };
  };

  it("?before=<request id> gives the requests older than it, newest first; 105 requests are 100 + 5", async () => {
    const t = await newTestUrl({ name: "paging" });
    const ids: string[] = [];
    for (let n = 0; n < 105; n += 15) ids.push(...(await Promise.all(Array.from({ length: Math.min(15, 105 - n) }, (_, k) => send(t.id, `n=${n + k}`)))));
    const newest = (await preview(t.id)).requests.map((r) => r.id as string);
    expect(newest).toHaveLength(100);
    const older = await previewOf(t.id, `before=${newest[99]}`);
    expect(older.status).toBe(200);
    expect(older.body.requests).toHaveLength(5);
    // Together: every request once, in the preview's order.
    const all = [...newest, ...older.body.requests.map((r) => r.id)];
    expect(new Set(all)).toEqual(new Set(ids));
    expect((await previewOf(t.id, `before=${older.body.requests[4].id}`)).body.requests).toEqual([]);
    // A cursor of another test URL (or none at all) shows nothing of either.
    const other = await newTestUrl({});
    const foreign = await send(other.id, "x");
    expect((await previewOf(t.id, `before=${foreign}`)).body.requests).toEqual([]);
  });

  it("?q= finds requests by path, query, header or body text (the body byte for byte); bad search text → 422", async () => {
    const t = await newTestUrl({ name: "search" });
    const byPath = await fetch(`${BASE_URL}/e/${t.id}/orders/Paid?x=1`, { method: "POST", body: "a" });
    const byHeader = await fetch(`${BASE_URL}/e/${t.id}/h`, { method: "POST", headers: { "x-trace": "needle-42" }, body: "b" });
    const byBody = await send(t.id, '{"customer":"cus_NEEDLE_7"}', "application/json");
    await send(t.id, "nothing to see");
    const idOf = async (r: Response) => ((await r.json()) as { request_id: string }).request_id;
    const [pathId, headerId] = [await idOf(byPath), await idOf(byHeader)];
    const found = async (q: string) => (await previewOf(t.id, `q=${encodeURIComponent(q)}`)).body.requests.map((r) => r.id);
    expect(await found("orders/paid")).toEqual([pathId]);
    expect(await found("NEEDLE-42")).toEqual([headerId]);
    expect(await found("cus_NEEDLE_7")).toEqual([byBody]);
    expect(await found("cus_needle_7")).toEqual([]);
    // `%` and `_` are text, not patterns.
    expect(await found("%")).toEqual([]);
    const long = await previewOf(t.id, `q=${"x".repeat(201)}`);
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({ code: "UNPROCESSABLE_ENTITY", status: 422 });
    expect((await previewOf(t.id, "q=")).status).toBe(422);
  });
});

describe('GET /{id} – compressed by Accept-Encoding (docs/console-api.md "Compression")', () => {
  /** The raw answer of GET /{id} with `acceptEncoding` (node:http does not decode it). */
  const raw = (id: string, acceptEncoding?: string) =>
    new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const headers: Record<string, string> = { accept: "application/json" };
      if (acceptEncoding) headers["accept-encoding"] = acceptEncoding;
      http
        .get(`${BASE_URL}/${id}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on("error", reject);
    });

  it("br, gzip or none: the same JSON, fewer bytes", async () => {
    const zlib = await import("node:zlib");
    const t = await newTestUrl({ name: "compressed" });
    await send(t.id, JSON.stringify({ pad: "abc".repeat(5000) }), "application/json");
    const plain = await raw(t.id);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const br = await raw(t.id, "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(plain.body.toString());
    expect(br.body.length).toBeLessThan(plain.body.length / 5);
    const gz = await raw(t.id, "gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).toString()).toBe(plain.body.toString());
    expect((await raw(t.id, "br;q=0, identity")).headers["content-encoding"]).toBeUndefined();
  });
});
