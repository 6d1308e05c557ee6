/**
 * The console session cookie (docs/console-api.md#workspaces-and-the-session-cookie):
 * attributes, domain scoping, reuse without sliding expiry, unknown and expired cookies.
 * Every request carries its own X-Forwarded-For so the rate limits of other files never interfere.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { BASE_URL, createTestUrl, db, newTestUrl, uniqueIp } from "./support/client";

const DAY_MS = 24 * 60 * 60 * 1000;

/** POST / through node:http, which (unlike fetch) lets a test choose the Host header. */
function rawCreate(headers: Record<string, string>, body = "{}"): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(BASE_URL);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: "/",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "x-forwarded-for": uniqueIp(), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Attributes of a Set-Cookie value: name=value first, then lower-cased attribute names. */
function parseSetCookie(value: string) {
  const [pair, ...attrs] = value.split(";").map((s) => s.trim());
  const eq = pair.indexOf("=");
  const map = new Map<string, string | true>();
  for (const a of attrs) {
    const i = a.indexOf("=");
    map.set((i === -1 ? a : a.slice(0, i)).toLowerCase(), i === -1 ? true : a.slice(i + 1));
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attrs: map };
}

function onlySetCookie(headers: http.IncomingHttpHeaders): string {
  const list = headers["set-cookie"] ?? [];
  expect(list).toHaveLength(1);
  return list[0];
}

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

async function sessionRow(token: string) {
  const { rows } = await db().query<{ id: string; team_id: string; expires_at: Date }>(
    "SELECT id, team_id, expires_at FROM console_sessions WHERE token_hash = $1",
    [tokenHash(token)],
  );
  return rows[0];
}

describe("session cookie attributes", () => {
  it("POST / – first create without cookie sets hookyard_session HttpOnly, SameSite=Strict, Path=/, Expires in 90 days", async () => {
    const before = Date.now();
    const res = await createTestUrl({ name: "cookie-attrs" });
    expect(res.status).toBe(201);
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    const c = parseSetCookie(setCookies[0]);
    expect(c.name).toBe("hookyard_session");
    expect(c.value.length).toBeGreaterThanOrEqual(32);
    expect(c.attrs.get("httponly")).toBe(true);
    expect(String(c.attrs.get("samesite")).toLowerCase()).toBe("strict");
    expect(c.attrs.get("path")).toBe("/");
    const expires = Date.parse(String(c.attrs.get("expires")));
    expect(Number.isNaN(expires)).toBe(false);
    expect(Math.abs(expires - (before + 90 * DAY_MS))).toBeLessThan(60_000);
    if (c.attrs.has("max-age")) {
      expect(Math.abs(Number(c.attrs.get("max-age")) - 90 * 24 * 3600)).toBeLessThan(60);
    }
    // Served over plain http by a host that is an IP address: neither Secure nor Domain.
    expect(c.attrs.has("secure")).toBe(false);
    expect(c.attrs.has("domain")).toBe(false);
    // The stored session expires when the cookie does.
    const row = await sessionRow(c.value);
    expect(row).toBeDefined();
    expect(Math.abs(row.expires_at.getTime() - expires)).toBeLessThan(1000);
  });

  it("POST / – Host 127.0.0.1 → cookie without Domain", async () => {
    const url = new URL(BASE_URL);
    const res = await rawCreate({ host: `127.0.0.1:${url.port}` });
    expect(res.status).toBe(201);
    expect(parseSetCookie(onlySetCookie(res.headers)).attrs.has("domain")).toBe(false);
  });

  it("POST / – Host localhost → cookie without Domain", async () => {
    const url = new URL(BASE_URL);
    const res = await rawCreate({ host: `localhost:${url.port}` });
    expect(res.status).toBe(201);
    expect(parseSetCookie(onlySetCookie(res.headers)).attrs.has("domain")).toBe(false);
  });

  it("POST / – Host console.example.com → cookie scoped to the parent domain example.com", async () => {
    const res = await rawCreate({ host: "console.example.com" });
    expect(res.status).toBe(201);
    const c = parseSetCookie(onlySetCookie(res.headers));
    expect(c.attrs.get("domain")).toBe("example.com");
    expect(c.attrs.get("httponly")).toBe(true);
    expect(String(c.attrs.get("samesite")).toLowerCase()).toBe("strict");
  });

  it("POST / – Host console.example.com:8443 (with port) → Domain=example.com", async () => {
    const res = await rawCreate({ host: "console.example.com:8443" });
    expect(res.status).toBe(201);
    expect(parseSetCookie(onlySetCookie(res.headers)).attrs.get("domain")).toBe("example.com");
  });

  it("POST / – X-Forwarded-Proto https on the trust-proxy server → Secure cookie", async () => {
    const res = await rawCreate({ "x-forwarded-proto": "https" });
    expect(res.status).toBe(201);
    const c = parseSetCookie(onlySetCookie(res.headers));
    expect(c.attrs.get("secure")).toBe(true);
  });
});

describe("session cookie reuse", () => {
  it("POST / – replayed cookie creates in the same workspace, sets no new cookie, and the expiry never slides", async () => {
    const first = await createTestUrl({ name: "reuse" });
    expect(first.status).toBe(201);
    const cookie = first.headers.getSetCookie()[0].split(";")[0];
    const token = cookie.slice("hookyard_session=".length);
    const firstBody = (await first.json()) as { cli_key: string };
    const before = await sessionRow(token);
    expect(before).toBeDefined();

    await new Promise((r) => setTimeout(r, 1100)); // a sliding expiry would now move by > 1 s
    for (let i = 0; i < 3; i++) {
      const res = await createTestUrl({ name: "reuse" }, { cookie });
      expect(res.status).toBe(201);
      expect(res.headers.getSetCookie()).toEqual([]);
      const body = (await res.json()) as { cli_key: string; name: string };
      expect(body.cli_key).toBe(firstBody.cli_key);
      expect(body.name).toBe(`reuse-${i + 2}`);
    }
    const after = await sessionRow(token);
    expect(after.expires_at.getTime()).toBe(before.expires_at.getTime());
    expect(after.id).toBe(before.id);
    const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM sources WHERE team_id = $1", [before.team_id]);
    expect(rows[0].n).toBe(4);
  });

  it("POST / – cookie among other cookies is still recognised", async () => {
    const first = await newTestUrl({});
    const res = await createTestUrl({}, { cookie: `theme=dark; ${first.cookie}; other=1` });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(((await res.json()) as { cli_key: string }).cli_key).toBe(first.cli_key);
  });

  it("POST / – unknown cookie starts a new workspace with a new cookie", async () => {
    const first = await newTestUrl({});
    const res = await createTestUrl({}, { cookie: "hookyard_session=this-token-was-never-issued-by-hookyard-000000" });
    expect(res.status).toBe(201);
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    expect(setCookies[0]).toMatch(/^hookyard_session=/);
    expect(setCookies[0]).not.toContain("this-token-was-never-issued");
    const body = (await res.json()) as { cli_key: string; name: string };
    expect(body.cli_key).not.toBe(first.cli_key);
    expect(body.name).toBe("Source");
  });

  it("POST / – expired cookie starts a new workspace with a new cookie", async () => {
    const first = await newTestUrl({ name: "expiring" });
    const token = first.cookie!.slice("hookyard_session=".length);
    const updated = await db().query("UPDATE console_sessions SET expires_at = now() - interval '1 minute' WHERE token_hash = $1", [tokenHash(token)]);
    expect(updated.rowCount).toBe(1);

    const res = await createTestUrl({ name: "expiring" }, { cookie: first.cookie });
    expect(res.status).toBe(201);
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    const fresh = parseSetCookie(setCookies[0]);
    expect(fresh.name).toBe("hookyard_session");
    expect(fresh.value).not.toBe(token);
    const body = (await res.json()) as { cli_key: string; name: string };
    expect(body.cli_key).not.toBe(first.cli_key);
    expect(body.name).toBe("expiring"); // new workspace: no suffix
    const row = await sessionRow(fresh.value);
    expect(row.expires_at.getTime()).toBeGreaterThan(Date.now() + 89 * DAY_MS);
  });
});
