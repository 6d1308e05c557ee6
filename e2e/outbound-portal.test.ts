/**
 * The portal's cookie session on the outbound API (docs/portal.md#how-it-is-built; lib/portal/portal.ts, the auth
 * step of lib/outbound/http.ts) against the running server: the token exchange (`/portal?token=` →
 * `/portal/enter` → httpOnly SameSite=Strict cookie), a tenant cookie answered exactly like the same JWT
 * in `Authorization` on the tenant-isolation and admin-only matrix, an admin key in the cookie refused,
 * and the CSRF guard on unsafe cookie requests.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey, tenantToken } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { newUser, sessionOnly, signInHttp } from "./support/dashboard";
import { newTeam } from "./support/gateway";

const run = randomBytes(4).toString("hex");
const A = `cookie-a-${run}`;
const B = `cookie-b-${run}`;
let admin = "";
let jwtA = "";
let destinationB = "";

type Cred = { header?: string; cookie?: string; csrf?: boolean; origin?: string };
async function call(cred: Cred, method: string, path: string, body?: unknown) {
  const res = await fetch(`${BASE_URL}/outbound/api/v1${path}`, {
    method,
    headers: {
      ...(cred.header ? { authorization: `Bearer ${cred.header}` } : {}),
      ...(cred.cookie ? { cookie: `other=1; hy_portal=${cred.cookie}` } : {}),
      ...(cred.csrf ? { "x-hookyard-portal": "1" } : {}),
      ...(cred.origin ? { origin: cred.origin } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  admin = (await createOutboundKey(`cookie-test-${run}`)).key;
  for (const t of [A, B]) expect((await call({ header: admin }, "PUT", `/tenants/${t}`)).status).toBe(201);
  jwtA = (await call({ header: admin }, "GET", `/tenants/${A}/token`)).json.token;
  const d = await call({ header: admin }, "POST", `/tenants/${B}/destinations`, { type: "webhook", topics: "*", config: { url: "https://example.com/b" } });
  expect(d.status).toBe(201);
  destinationB = d.json.id;
});

afterAll(async () => {
  await closePool();
});

describe("token exchange", () => {
  it("/portal?token= goes to the exchange, which sets the httpOnly SameSite=Strict cookie and leaves the token out of the next address", async () => {
    const url = (await call({ header: admin }, "GET", `/tenants/${A}/portal?theme=dark`)).json.redirect_url as string;
    const first = await fetch(url, { redirect: "manual" });
    expect(first.status).toBe(307);
    const enter = new URL(first.headers.get("location")!, BASE_URL);
    expect(enter.pathname).toBe("/portal/enter");
    const res = await fetch(enter, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toContain("no-store");
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith("hy_portal="))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toMatch(/Secure/i); // PUBLIC_URL is http here
    expect(cookies.find((c) => c.startsWith("hy_portal_theme="))).toMatch(/^hy_portal_theme=dark;/);
    const html = await res.text();
    expect(html).toContain('location.replace("/portal")');
    expect(html).not.toContain(new URL(url).searchParams.get("token")!);
  });

  it("a bad or expired token goes to the signed-out page with the reason and clears the cookie", async () => {
    const bad = await fetch(`${BASE_URL}/portal/enter?token=not-a-token-at-all-xxxxx`, { redirect: "manual" });
    expect(bad.status).toBe(303);
    expect(bad.headers.get("location")).toBe("/portal/signed-out?reason=invalid");
    expect(bad.headers.getSetCookie().find((c) => c.startsWith("hy_portal="))).toMatch(/Max-Age=0/);
    const expired = await fetch(`${BASE_URL}/portal/enter?token=${await tenantToken(A, Date.now() - 25 * 3600_000)}`, { redirect: "manual" });
    expect(expired.headers.get("location")).toBe("/portal/signed-out?reason=expired");
    const page = await fetch(`${BASE_URL}/portal/signed-out?reason=expired`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("This portal link has expired");
  });
});

describe("the cookie on the API", () => {
  it("answers exactly like the same JWT in Authorization: own tenant 200, another tenant 403, its objects 404, admin-only 403", async () => {
    const cases: [string, string][] = [
      ["GET", `/tenants/${A}`],
      ["GET", `/tenants/${A}/destinations`],
      ["GET", `/tenants/${B}`],
      ["GET", `/tenants/${B}/destinations`],
      ["GET", `/tenants/${B}/destinations/${destinationB}`],
      ["GET", `/tenants/${A}/destinations/${destinationB}`],
      ["GET", `/tenants/${A}/token`],
      ["GET", `/tenants/${A}/portal`],
      ["GET", `/attempts?tenant_id=${B}`],
      ["GET", `/events?tenant_id=${B}`],
      ["GET", "/tenants"],
      ["GET", "/destination-types"],
    ];
    const expected = [200, 200, 403, 403, 403, 404, 403, 403, 403, 403, 200, 200];
    const byHeader = await Promise.all(cases.map(([m, p]) => call({ header: jwtA }, m, p)));
    const byCookie = await Promise.all(cases.map(([m, p]) => call({ cookie: jwtA }, m, p)));
    expect(byHeader.map((r) => r.status)).toEqual(expected);
    expect(byCookie.map((r) => r.status)).toEqual(expected);
    expect(byCookie.map((r) => r.json)).toEqual(byHeader.map((r) => r.json));
    // Unsafe admin-only and cross-tenant requests, with the CSRF header.
    expect((await call({ cookie: jwtA, csrf: true }, "POST", "/publish", { tenant_id: A, topic: "t", data: {} })).status).toBe(403);
    expect((await call({ cookie: jwtA, csrf: true }, "DELETE", `/tenants/${B}/destinations/${destinationB}`)).status).toBe(403);
    expect((await call({ cookie: jwtA, csrf: true }, "PUT", `/tenants/${B}/destinations/${destinationB}/disable`)).status).toBe(403);
    expect((await call({ header: admin }, "GET", `/tenants/${B}/destinations/${destinationB}`)).json.disabled_at).toBeNull();
  });

  it("only a tenant JWT counts in the cookie (an admin key there is 401); a bad or expired one is 401; Authorization wins over the cookie", async () => {
    expect((await call({ cookie: admin }, "GET", "/tenants")).status).toBe(401);
    expect((await call({ cookie: "garbage.garbage.garbage" }, "GET", "/tenants")).status).toBe(401);
    expect((await call({ cookie: await tenantToken(A, Date.now() - 25 * 3600_000) }, "GET", `/tenants/${A}`)).status).toBe(401);
    expect((await call({}, "GET", "/tenants")).status).toBe(401);
    // With an Authorization header the cookie is ignored.
    expect((await call({ header: "not-a-key-at-all-xxxx", cookie: jwtA }, "GET", `/tenants/${A}`)).status).toBe(401);
    expect((await call({ header: admin, cookie: jwtA }, "GET", `/tenants/${B}`)).status).toBe(200);
  });

  it("unsafe requests on the cookie need the portal's CSRF header and a same-origin Origin; a JWT in Authorization does not", async () => {
    const body = { type: "webhook", topics: "*", config: { url: "https://example.com/a" } };
    const refused = await call({ cookie: jwtA }, "POST", `/tenants/${A}/destinations`, body);
    expect(refused).toEqual({ status: 403, json: { status: 403, message: "cross-site request refused" } });
    expect((await call({ cookie: jwtA, csrf: true, origin: "https://evil.example" }, "POST", `/tenants/${A}/destinations`, body)).status).toBe(403);
    expect((await call({ header: admin }, "GET", `/tenants/${A}/destinations`)).json).toEqual([]);
    const ok = await call({ cookie: jwtA, csrf: true, origin: new URL(BASE_URL).origin }, "POST", `/tenants/${A}/destinations`, body);
    expect(ok.status).toBe(201);
    expect((await call({ cookie: jwtA, csrf: true }, "PUT", `/tenants/${A}/destinations/${ok.json.id}/disable`)).json.disabled_at).not.toBeNull();
    expect((await call({ header: jwtA }, "DELETE", `/tenants/${A}/destinations/${ok.json.id}`)).status).toBe(200);
  });

  it("a browser signed in to the dashboard and holding a tenant's portal cookie: the portal's requests (x-hookyard-portal) stay that tenant's, the dashboard's are admin", async () => {
    const team = await newTeam("portal and dashboard");
    const user = await newUser(team.teamId);
    const signedIn = await signInHttp(user.email, user.password);
    expect(signedIn.error).toBeNull();
    const both = `${sessionOnly(signedIn.cookie)}; hy_portal=${jwtA}`;
    const get = async (path: string, portal: boolean) =>
      (await fetch(`${BASE_URL}/outbound/api/v1${path}`, { headers: { cookie: both, ...(portal ? { "x-hookyard-portal": "1" } : {}) } })).status;
    expect(await get(`/tenants/${B}`, true)).toBe(403);
    expect(await get(`/tenants/${B}/destinations/${destinationB}`, true)).toBe(403);
    expect(await get(`/tenants/${A}`, true)).toBe(200);
    const portalList = await fetch(`${BASE_URL}/outbound/api/v1/tenants?limit=100`, { headers: { cookie: both, "x-hookyard-portal": "1" } });
    expect(((await portalList.json()) as { models: { id: string }[] }).models.map((t) => t.id)).toEqual([A]);
    expect(await get(`/tenants/${B}`, false)).toBe(200);
    expect(await get(`/tenants/${A}/token`, false)).toBe(200);
  });
});
