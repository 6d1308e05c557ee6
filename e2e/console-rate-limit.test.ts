/**
 * Rate limits (docs/console-api.md#limits, docs/console-api.md#errors): 60 creates and 10 `GET /new` per
 * minute per client IP, per session when the cookie is replayed, counted in PostgreSQL across
 * processes; ingestion is not limited.
 *
 * The tests of this file run one after another. Some use HOOKYARD_URL_NO_PROXY without cookie: that
 * server ignores X-Forwarded-For, so they share the bucket of 127.0.0.1, which no other test file uses.
 * Windows are fixed calendar minutes: each test first waits until the current minute has room for it.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL, BASE_URL_NO_PROXY, createTestUrl, db, newTestUrl, uniqueIp } from "./support/client";

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Waits, if needed, so that at least `seconds` remain in the current fixed one-minute window. */
async function windowWithRoom(seconds: number): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - seconds * 1000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
}

async function expect429(res: Response) {
  const text = await res.text();
  expect(res.status, text).toBe(429);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: unknown; message: unknown; retry_after: unknown };
  expect(typeof body.error).toBe("string");
  expect((body.error as string).length).toBeGreaterThan(0);
  expect(typeof body.message).toBe("string");
  expect((body.message as string).length).toBeGreaterThan(0);
  expect(Number.isInteger(body.retry_after)).toBe(true);
  expect(body.retry_after as number).toBeGreaterThanOrEqual(1);
  expect(body.retry_after as number).toBeLessThanOrEqual(60);

  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBe(body.retry_after);
  expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  const reset = res.headers.get("x-ratelimit-reset");
  expect(reset).toMatch(ISO_RE);
  const resetAt = Date.parse(reset!);
  expect(resetAt).toBeGreaterThan(Date.now() - 1000);
  expect(resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
  // Retry-After points at the same moment as X-RateLimit-Reset (whole seconds, rounded up).
  expect(Math.abs(Date.now() + Number(retryAfter) * 1000 - resetAt)).toBeLessThanOrEqual(2000);
  // A refused create sets no cookie and names no resource.
  expect(res.headers.getSetCookie()).toEqual([]);
  expect(res.headers.get("location")).toBeNull();
  return body;
}

describe("POST / – 60 per minute per client IP", () => {
  it("POST / – 60 creates from one IP succeed with X-RateLimit-Remaining counting down; the 61st → 429 with its headers", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    for (let i = 1; i <= 60; i++) {
      const res = await createTestUrl({}, { ip });
      expect(res.status, `create #${i}`).toBe(201);
      expect(res.headers.get("x-ratelimit-remaining"), `create #${i}`).toBe(String(60 - i));
      const reset = res.headers.get("x-ratelimit-reset");
      expect(reset).toMatch(ISO_RE);
      await res.arrayBuffer();
    }
    await expect429(await createTestUrl({}, { ip }));
    // Still refused: the limit holds for the rest of the window.
    await expect429(await createTestUrl({ name: "again" }, { ip }));
    // Another client IP has a bucket of its own.
    const other = await createTestUrl({}, { ip: uniqueIp() });
    expect(other.status).toBe(201);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("59");
  });

  it("POST / – a refused create stores nothing", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    const results = await Promise.all(Array.from({ length: 61 }, () => createTestUrl({ name: `flood-${ip}` }, { ip })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    await Promise.all(results.map((r) => r.arrayBuffer()));
    const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM sources WHERE name = $1", [`flood-${ip}`]);
    expect(rows[0].n).toBe(60);
  });
});

describe("POST / – per session when the cookie is replayed", () => {
  it("POST / – a replayed session has its own bucket of 60, separate from its IP's", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    const first = await newTestUrl({}, { ip }); // counted against the IP (no cookie yet)
    for (let i = 1; i <= 60; i++) {
      const res = await createTestUrl({}, { ip, cookie: first.cookie });
      expect(res.status, `create #${i}`).toBe(201);
      expect(res.headers.get("x-ratelimit-remaining"), `create #${i}`).toBe(String(60 - i));
      expect(res.headers.getSetCookie()).toEqual([]);
      await res.arrayBuffer();
    }
    await expect429(await createTestUrl({}, { ip, cookie: first.cookie }));
    // The session is limited whatever IP it comes from.
    await expect429(await createTestUrl({}, { ip: uniqueIp(), cookie: first.cookie }));
    // The IP itself used 1 of its 60: without the cookie it can still create.
    const noCookie = await createTestUrl({}, { ip });
    expect(noCookie.status).toBe(201);
    expect(noCookie.headers.get("x-ratelimit-remaining")).toBe("58");
  });

  it("POST / – an exhausted IP can still create with a live session cookie", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    const first = await newTestUrl({}, { ip });
    for (let i = 2; i <= 60; i++) {
      const res = await createTestUrl({}, { ip });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
    }
    await expect429(await createTestUrl({}, { ip }));
    const withCookie = await createTestUrl({}, { ip, cookie: first.cookie });
    expect(withCookie.status).toBe(201);
    expect(withCookie.headers.get("x-ratelimit-remaining")).toBe("59");
  });

  it("POST / – counted in Postgres across processes: one session alternating between both servers is refused at the 61st", async () => {
    await windowWithRoom(12);
    const first = await newTestUrl({}, { ip: uniqueIp() });
    for (let i = 1; i <= 60; i++) {
      const baseUrl = i % 2 ? BASE_URL_NO_PROXY : BASE_URL;
      const res = await createTestUrl({}, { baseUrl, cookie: first.cookie });
      expect(res.status, `create #${i} on ${baseUrl}`).toBe(201);
      expect(res.headers.get("x-ratelimit-remaining"), `create #${i}`).toBe(String(60 - i));
      await res.arrayBuffer();
    }
    await expect429(await createTestUrl({}, { baseUrl: BASE_URL_NO_PROXY, cookie: first.cookie }));
    await expect429(await createTestUrl({}, { baseUrl: BASE_URL, cookie: first.cookie }));
  });
});

describe("server without trust proxy", () => {
  it("POST / – X-Forwarded-Proto https is ignored without trust proxy (no Secure cookie)", async () => {
    const res = await createTestUrl({}, { baseUrl: BASE_URL_NO_PROXY, headers: { "x-forwarded-proto": "https" } });
    expect(res.status).toBe(201);
    const cookie = res.headers.getSetCookie()[0];
    expect(cookie).toMatch(/^hookyard_session=/);
    expect(cookie.split(";").map((s) => s.trim().toLowerCase())).not.toContain("secure");
  });

  it("POST / – without trust proxy X-Forwarded-For is ignored: different values share one bucket", async () => {
    await windowWithRoom(12);
    const first = await createTestUrl({}, { baseUrl: BASE_URL_NO_PROXY, ip: uniqueIp() });
    expect(first.status).toBe(201);
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    expect(remaining).toBeLessThan(60);
    for (let left = remaining - 1; left >= 0; left--) {
      const res = await createTestUrl({}, { baseUrl: BASE_URL_NO_PROXY, ip: uniqueIp() });
      expect(res.status).toBe(201);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(left));
      await res.arrayBuffer();
    }
    // 60 in this window from "different" clients: all one client, 127.0.0.1.
    await expect429(await createTestUrl({}, { baseUrl: BASE_URL_NO_PROXY, ip: uniqueIp() }));
  });
});

describe("GET /new – 10 per minute", () => {
  it("GET /new – the 11th in a minute from one IP → 429 with Retry-After and X-RateLimit headers", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    for (let i = 1; i <= 10; i++) {
      const res = await fetch(`${BASE_URL}/new`, { headers: { "x-forwarded-for": ip, accept: "text/html" } });
      await res.arrayBuffer();
      expect(res.status, `GET /new #${i}`).not.toBe(429);
      expect(res.status, `GET /new #${i}`).toBeLessThan(500);
    }
    await expect429(await fetch(`${BASE_URL}/new`, { headers: { "x-forwarded-for": ip, accept: "text/html" } }));
    await expect429(await fetch(`${BASE_URL}/new?type=STRIPE`, { headers: { "x-forwarded-for": ip, accept: "text/html" } }));
    // The create limit is a separate bucket.
    const create = await createTestUrl({}, { ip });
    expect(create.status).toBe(201);
    expect(create.headers.get("x-ratelimit-remaining")).toBe("59");
    // Another IP is not affected.
    const other = await fetch(`${BASE_URL}/new`, { headers: { "x-forwarded-for": uniqueIp(), accept: "text/html" } });
    await other.arrayBuffer();
    expect(other.status).not.toBe(429);
  });

  it("GET /new → 200 HTML", async () => {
    const res = await fetch(`${BASE_URL}/new`, { headers: { "x-forwarded-for": uniqueIp(), accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("GET /new?type=UNKNOWN → 200 (an unknown type is never an error)", async () => {
    for (const type of ["NOT_A_TYPE", "lower", "X".repeat(200)]) {
      const res = await fetch(`${BASE_URL}/new?type=${type}`, { headers: { "x-forwarded-for": uniqueIp(), accept: "text/html" } });
      await res.arrayBuffer();
      expect(res.status, type).toBe(200);
    }
  });
});

describe("ingestion is not rate limited", () => {
  it("150 requests to one /e/{id} from one IP all → 200, and they do not count against creates", async () => {
    await windowWithRoom(12);
    const ip = uniqueIp();
    const t = await newTestUrl({ name: "unlimited" }, { ip });
    const statuses: number[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(`${BASE_URL}/e/${t.id}/n/${batch * 10 + i}`, { method: "POST", headers: { "x-forwarded-for": ip }, body: String(batch * 10 + i) }).then(
            async (r) => {
              await r.arrayBuffer();
              return r.status;
            },
          ),
        ),
      );
      statuses.push(...results);
    }
    expect(statuses).toHaveLength(150);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM requests WHERE source_id = $1", [`src_${t.id}`]);
    expect(rows[0].n).toBe(150);
    const create = await createTestUrl({}, { ip });
    expect(create.status).toBe(201);
    expect(create.headers.get("x-ratelimit-remaining")).toBe("58");
  });
});
