/**
 * Security headers of every surface (docs/security-headers.md; lib/http/security-headers.ts, server.ts,
 * proxy.ts) against the running servers: pages get a fresh nonce-based Content-Security-Policy whose nonce
 * is on every script of the HTML; API answers, ingestion, static files and errors get the API policy;
 * all get nosniff and a Referrer-Policy. The portal token exchange leaves no token in the next address.
 * One extra server (https PUBLIC_URL, PORTAL_FRAME_ANCESTORS) checks HSTS and the portal's frame-ancestors.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { API_CSP, HSTS } from "@/lib/http/security-headers";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL, newTestUrl, uniqueIp } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { outboundCall } from "./support/outbound";
import { privateDatabase, startServer, type RunningServer } from "./support/servers";

const run = randomBytes(4).toString("hex");
let team: TestTeam;
let admin = "";
let source: Awaited<ReturnType<typeof newTestUrl>>;

beforeAll(async () => {
  team = await newTeam(`headers-${run}`);
  admin = (await createOutboundKey(`headers-${run}`)).key;
  source = await newTestUrl({ name: `headers-${run}` });
});

afterAll(async () => {
  await closePool();
});

const get = (path: string, init: RequestInit = {}, base = BASE_URL) =>
  fetch(`${base}${path}`, { redirect: "manual", ...init, headers: { "x-forwarded-for": uniqueIp(), ...(init.headers as Record<string, string>) } });

/** The directives of a policy by name. */
function directives(csp: string | null): Map<string, string> {
  expect(csp, "Content-Security-Policy").toBeTruthy();
  return new Map(
    csp!
      .split(";")
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0], d.slice(d.indexOf(" ") + 1)] as [string, string]),
  );
}

/** Asserts an API answer's headers (the body is read so the connection is freed). */
async function expectApiHeaders(res: Response, what: string) {
  await res.arrayBuffer();
  expect(res.headers.get("content-security-policy"), what).toBe(API_CSP);
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), what).toBe("no-referrer");
  expect(res.headers.get("strict-transport-security"), `${what}: PUBLIC_URL is http`).toBeNull();
}

/**
 * Asserts a page answer: a nonce-based policy ('strict-dynamic', no 'unsafe-inline' for scripts), the
 * nonce on every <script> of the HTML, nosniff, and `referrer`. Returns the policy's directives and nonce.
 */
async function expectPage(res: Response, what: string, referrer: string) {
  const html = await res.text();
  const csp = directives(res.headers.get("content-security-policy"));
  const script = csp.get("script-src")!;
  expect(script, what).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]+=*' 'strict-dynamic'$/);
  const nonce = /'nonce-([^']+)'/.exec(script)![1];
  expect(csp.get("default-src"), what).toBe("'self'");
  expect(csp.get("object-src"), what).toBe("'none'");
  expect(csp.get("base-uri"), what).toBe("'none'");
  expect(csp.get("style-src"), what).toBe("'self' 'unsafe-inline'");
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length, `${what}: scripts in the HTML`).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag, what).toContain(`nonce="${nonce}"`);
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), what).toBe(referrer);
  return { csp, nonce, html };
}

describe("pages: a fresh nonce-based policy per request, on every script", () => {
  it("the console home page, twice: two different nonces; no one may frame it", async () => {
    const a = await expectPage(await get("/"), "GET /", "strict-origin-when-cross-origin");
    const b = await expectPage(await get("/"), "GET / again", "strict-origin-when-cross-origin");
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.csp.get("frame-ancestors")).toBe("'none'");
    expect(a.csp.has("upgrade-insecure-requests")).toBe(false);
  });

  it("the inspect page of a test URL (its JSON preview keeps the API policy)", async () => {
    const res = await get(`/${source.id}`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    const { csp } = await expectPage(res, "inspect page", "strict-origin-when-cross-origin");
    expect(csp.get("frame-ancestors")).toBe("'none'");
    const preview = await get(`/${source.id}`, { headers: { accept: "application/json" } });
    expect(preview.status).toBe(200);
    await expectApiHeaders(preview, "preview JSON");
  });

  it("the dashboard's sign-in page and an unknown page's 404", async () => {
    const signIn = await get("/dashboard/sign-in");
    expect(signIn.status).toBe(200);
    expect((await expectPage(signIn, "sign-in", "strict-origin-when-cross-origin")).csp.get("frame-ancestors")).toBe("'none'");
    const missing = await get(`/no/such/page-${run}`);
    expect(missing.status).toBe(404);
    await expectPage(missing, "404 page", "strict-origin-when-cross-origin");
  });

  it("the portal: no one may frame it without PORTAL_FRAME_ANCESTORS; no Referer leaves it", async () => {
    const res = await get("/portal");
    expect(res.status).toBe(200);
    const { csp } = await expectPage(res, "portal", "no-referrer");
    expect(csp.get("frame-ancestors")).toBe("'none'");
  });
});

describe("API answers, ingestion, static files and errors: the API policy", () => {
  it("ingestion: a captured request's answer and an unknown source's 404 keep their bodies and CORS headers", async () => {
    const res = await fetch(source.ingest_url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    await expectApiHeaders(res, "ingest answer");
    const missing = await fetch(`${BASE_URL}/e/NoSuchSource${run}`, { method: "POST", body: "x" });
    expect(missing.status).toBe(404);
    await expectApiHeaders(missing, "ingest 404");
  });

  it("the gateway API: an answer, a 401 and an unknown route", async () => {
    const ok = await api(team, "GET", "/2025-07-01/sources");
    expect(ok.status).toBe(200);
    for (const [path, status, key] of [
      ["/2025-07-01/sources", 200, team.apiKey],
      ["/2025-07-01/sources", 401, "wrong"],
      [`/2025-07-01/nothing-${run}`, 404, team.apiKey],
    ] as const) {
      const res = await get(`/api${path}`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status, path).toBe(status);
      await expectApiHeaders(res, `gateway ${status}`);
    }
    // Without a version segment server.ts rewrites the path before Next.js.
    const unversioned = await get("/api/sources", { headers: { authorization: `Bearer ${team.apiKey}` } });
    expect(unversioned.status).toBe(200);
    await expectApiHeaders(unversioned, "gateway, no version");
  });

  it("the outbound API: an answer, a 401, publish (served by server.ts) and a method the surface refuses", async () => {
    const ok = await outboundCall(admin, "GET", "/tenants");
    expect(ok.status).toBe(200);
    for (const [method, path, status, key] of [
      ["GET", "/tenants", 200, admin],
      ["GET", "/tenants", 401, "nope"],
      ["POST", "/publish", 422, admin],
    ] as const) {
      const res = await get(`/outbound/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(status);
      await expectApiHeaders(res, `outbound ${method} ${path} ${status}`);
    }
    const trace = await get("/outbound/api/v1/tenants", { method: "PROPFIND" });
    expect(trace.status).toBe(405);
    await expectApiHeaders(trace, "a refused method");
  });

  it("health, the console OpenAPI document, test URL creation", async () => {
    for (const path of ["/healthz", "/openapi.json"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      await expectApiHeaders(res, path);
    }
    const created = await get("/", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(created.status).toBe(201);
    await expectApiHeaders(created, "POST /");
  });

  it("streams and the CLI channel: a test URL's live stream and a refused CLI session (both written by server.ts directly)", async () => {
    const abort = new AbortController();
    const live = await fetch(`${BASE_URL}/${source.id}/live`, { signal: abort.signal });
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(live.headers.get("content-security-policy")).toBe(API_CSP);
    expect(live.headers.get("x-content-type-options")).toBe("nosniff");
    abort.abort();
    await live.body?.cancel().catch(() => {});
    const cli = await get("/cli/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(cli.status).toBe(401);
    await expectApiHeaders(cli, "CLI 401");
  });

  it("static files: a built script, a stylesheet and the favicon", async () => {
    const html = await (await get("/")).text();
    const js = /src="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/_next\/static\/[^"]+\.css)"/.exec(html)?.[1];
    expect(js && css, "the page links its built files").toBeTruthy();
    for (const path of [js!, css!, "/favicon.svg"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      await expectApiHeaders(res, path);
    }
    const missing = await get(`/_next/static/chunks/missing-${run}.js`);
    expect(missing.status).toBe(404);
    await expectApiHeaders(missing, "a missing static file");
  });
});

describe("the portal token exchange", () => {
  it("the token leaves the address: the exchange's page goes to /portal with its script allowed by the nonce, never a Referer", async () => {
    expect((await outboundCall(admin, "PUT", `/tenants/headers-${run}`)).status).toBe(201);
    const redirectUrl = (await outboundCall(admin, "GET", `/tenants/headers-${run}/portal`)).json.redirect_url as string;
    const token = new URL(redirectUrl).searchParams.get("token")!;
    const first = await get(new URL(redirectUrl).pathname + new URL(redirectUrl).search);
    expect(first.status).toBe(307);
    expect(first.headers.get("referrer-policy")).toBe("no-referrer");
    const enter = await get(first.headers.get("location")!);
    expect(enter.status).toBe(200);
    expect(enter.headers.getSetCookie().some((c) => c.startsWith("hy_portal=") && c.includes(token))).toBe(true);
    const { html, nonce, csp } = await expectPage(enter, "the exchange's page", "no-referrer");
    expect(csp.get("frame-ancestors")).toBe("'none'");
    expect(html).toContain(`<script nonce="${nonce}">location.replace("/portal")</script>`);
    expect(html).toContain('<meta http-equiv="refresh" content="0;url=/portal">');
    expect(html).not.toContain(token);
  });
});

describe("an https PUBLIC_URL and PORTAL_FRAME_ANCESTORS (a server of its own)", () => {
  let server: RunningServer;
  let database: Awaited<ReturnType<typeof privateDatabase>>;
  const ancestors = "https://app.example.com, https://*.acme.test";

  beforeAll(async () => {
    database = await privateDatabase("headers");
    server = await startServer({
      DATABASE_URL: database.url,
      PUBLIC_URL: "https://hooks.example.test",
      PORTAL_FRAME_ANCESTORS: ancestors,
      WORKER_ENABLED: "false",
      LOG_LEVEL: "warn",
    });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("HSTS on pages, API answers and static files; only the portal may be framed, by the listed origins", async () => {
    const portal = await get("/portal", {}, server.url);
    const home = await get("/", {}, server.url);
    const health = await get("/healthz", {}, server.url);
    const favicon = await get("/favicon.svg", {}, server.url);
    for (const res of [portal, home, health, favicon]) expect(res.headers.get("strict-transport-security"), res.url).toBe(HSTS);
    expect(directives(portal.headers.get("content-security-policy")).get("frame-ancestors")).toBe("https://app.example.com https://*.acme.test");
    const homeCsp = directives(home.headers.get("content-security-policy"));
    expect(homeCsp.get("frame-ancestors")).toBe("'none'");
    expect(homeCsp.has("upgrade-insecure-requests")).toBe(true);
    expect(health.headers.get("content-security-policy")).toBe(API_CSP);
    await Promise.all([portal, home, health, favicon].map((r) => r.arrayBuffer()));
  });
});
