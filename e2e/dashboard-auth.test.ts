/**
 * Dashboard sign-in and its API access (docs/dashboard.md#signing-in; lib/dashboard): next-auth credentials with one
 * generic error, per-IP and per-account rate limits, sign-out, one-time sign-in links, anonymous visitors
 * refused on every page and on the APIs behind them, the session cookie as a credential of its user's
 * team only (gateway) and as admin (outbound), and the CSRF rule for cookie-authenticated unsafe methods.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createSignInToken, deleteUser } from "@/lib/dashboard/users";
import { BASE_URL, db, uniqueIp } from "./support/client";
import { AUTH, mergeCookies, newUser, sessionOnly, signInHttp } from "./support/dashboard";
import { api, newTeam, type TestTeam } from "./support/gateway";

const V = "/2025-07-01";
const PAGES = ["/dashboard", "/dashboard/events", "/dashboard/requests", "/dashboard/attempts", "/dashboard/bulk"];
let teamA: TestTeam;
let teamB: TestTeam;
let userA: { id: string; email: string; password: string };
let cookieA: string;
let sourceA: string;
let sourceB: string;

/** Calls the gateway API with a cookie instead of a key. */
async function withCookie(cookie: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return api(null, method, path, body, { cookie, ...headers });
}

beforeAll(async () => {
  teamA = await newTeam("dashboard A");
  teamB = await newTeam("dashboard B");
  sourceA = (await api(teamA, "POST", `${V}/sources`, { name: "a-source" })).json.id;
  sourceB = (await api(teamB, "POST", `${V}/sources`, { name: "b-source" })).json.id;
  userA = await newUser(teamA.teamId);
  const signed = await signInHttp(userA.email, userA.password);
  expect(signed.error).toBeNull();
  cookieA = sessionOnly(signed.cookie);
  expect(cookieA).toMatch(/^hookyard\.dashboard-session=/);
});

describe("anonymous visitors are refused", () => {
  it.each(PAGES)("%s redirects to the sign-in page", async (page) => {
    const res = await fetch(`${BASE_URL}${page}`, { redirect: "manual" });
    expect([303, 307, 308]).toContain(res.status);
    expect(new URL(res.headers.get("location")!, BASE_URL).pathname).toBe("/dashboard/sign-in");
  });

  it.each([
    ["GET", "/dashboard/api/auth/nope"],
    ["POST", "/dashboard/api/auth/nope"],
    ["POST", "/dashboard/api/auth/callback/nope"],
    ["POST", "/dashboard/api/auth/callback/credentials"],
    ["GET", "/dashboard/api/auth/signin"],
    ["GET", "/dashboard/api/elsewhere"],
    ["GET", "/dashboard/sign-in/link"],
  ])("%s %s answers without a server error", async (method, path) => {
    const res = await fetch(`${BASE_URL}${path}`, {
      method,
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: method === "POST" ? "a=1" : undefined,
    });
    expect(res.status).toBeLessThan(500);
  });

  it("a callbackUrl next-auth cannot use is a 400 in the dashboard API's body, never its 500; a garbled callback-url cookie is ignored", async () => {
    for (const bad of ["constructor", "javascript:alert(1)", "//", "http//x"]) {
      const res = await fetch(`${AUTH}/session?callbackUrl=${encodeURIComponent(bad)}`);
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(await res.json()).toEqual({ status: 400, message: "callbackUrl must be a path on this site (/…) or an http(s) URL" });
    }
    expect((await fetch(`${AUTH}/session?callbackUrl=${encodeURIComponent("/dashboard/events")}`)).status).toBe(200);
    const cookie = await fetch(`${AUTH}/session`, { headers: { cookie: "next-auth.callback-url=constructor" } });
    expect(cookie.status).toBe(200);
    expect(await cookie.json()).toEqual({});
  });

  it("the sign-in page itself is served", async () => {
    const res = await fetch(`${BASE_URL}/dashboard/sign-in`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Sign in to the dashboard");
  });

  it("the gateway and outbound APIs answer 401 without a key or session, and with a forged session cookie", async () => {
    expect((await api(null, "GET", `${V}/events`)).status).toBe(401);
    expect((await api(null, "GET", `${V}/metrics/events?date_range[start]=2026-01-01&date_range[end]=2026-01-02&measures[]=count`)).status).toBe(401);
    expect((await withCookie("hookyard.dashboard-session=forged.jwt.value", "GET", `${V}/events`)).status).toBe(401);
    expect((await fetch(`${BASE_URL}/outbound/api/v1/tenants`)).status).toBe(401);
  });
});

describe("sign-in", () => {
  it("wrong password and unknown email get the same generic error and no session", async () => {
    const wrong = await signInHttp(userA.email, "not-the-password");
    const unknown = await signInHttp("nobody@example.test", "whatever-password");
    expect(wrong.status).toBe(401);
    expect(wrong.error).toBe("CredentialsSignin");
    expect(unknown.status).toBe(401);
    expect(unknown.error).toBe("CredentialsSignin");
    expect(sessionOnly(wrong.cookie)).toBe("");
  });

  it("is rate limited per client IP (10 per 15 minutes), even for right credentials afterwards", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) expect((await signInHttp(`x${i}@example.test`, "wrong-password", ip)).error).toBe("CredentialsSignin");
    const limited = await signInHttp(userA.email, userA.password, ip);
    expect(limited.error).toBe("RateLimited");
    expect(sessionOnly(limited.cookie)).toBe("");
    // Another client still signs in.
    expect((await signInHttp(userA.email, userA.password)).error).toBeNull();
  }, 60_000); // eleven scrypt hashes at N = 2^17 (docs/dashboard.md "Signing in")

  it("is rate limited per account across client IPs", async () => {
    const victim = await newUser(teamA.teamId);
    for (let i = 0; i < 10; i++) expect((await signInHttp(victim.email, "wrong-password", uniqueIp())).error).toBe("CredentialsSignin");
    expect((await signInHttp(victim.email, victim.password, uniqueIp())).error).toBe("RateLimited");
  }, 60_000);

  it("the session shows the user; sign-out ends it", async () => {
    const user = await newUser(teamA.teamId);
    const { cookie } = await signInHttp(user.email, user.password);
    const session = await (await fetch(`${AUTH}/session`, { headers: { cookie } })).json();
    expect(session.user).toMatchObject({ email: user.email, teamId: teamA.teamId });
    const page = await fetch(`${BASE_URL}/dashboard`, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    const csrf = await fetch(`${AUTH}/csrf`, { headers: { cookie } });
    const { csrfToken } = await csrf.json();
    const out = await fetch(`${AUTH}/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: mergeCookies(cookie, csrf), "content-type": "application/x-www-form-urlencoded", origin: BASE_URL },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    const after = mergeCookies(cookie, out);
    expect(sessionOnly(after)).toBe("");
    expect((await fetch(`${BASE_URL}/dashboard`, { headers: { cookie: after }, redirect: "manual" })).status).toBe(307);
  });

  it("a deleted user's session stops working at once", async () => {
    const user = await newUser(teamA.teamId);
    const cookie = sessionOnly((await signInHttp(user.email, user.password)).cookie);
    expect((await withCookie(cookie, "GET", `${V}/sources`)).status).toBe(200);
    expect(await deleteUser(user.email)).toBe(true);
    expect((await withCookie(cookie, "GET", `${V}/sources`)).status).toBe(401);
    expect((await fetch(`${BASE_URL}/dashboard`, { headers: { cookie }, redirect: "manual" })).status).toBe(307);
  });

  it("a one-time sign-in link sets the password and signs in once", async () => {
    const user = await newUser(teamA.teamId);
    const token = await createSignInToken(user.id);
    const first = await signInHttp("", "", uniqueIp(), "link", { token, password: "a-brand-new-password" });
    expect(first.error).toBeNull();
    expect(sessionOnly(first.cookie)).not.toBe("");
    const again = await signInHttp("", "", uniqueIp(), "link", { token, password: "another-new-password" });
    expect(again.error).toBe("CredentialsSignin");
    expect((await signInHttp(user.email, "a-brand-new-password")).error).toBeNull();
    expect((await signInHttp(user.email, user.password)).error).toBe("CredentialsSignin");
  });
});

describe("the session as an API credential", () => {
  it("sees its own team's data and never another team's", async () => {
    const list = await withCookie(cookieA, "GET", `${V}/sources?limit=250`);
    expect(list.status).toBe(200);
    const ids = list.json.models.map((s: { id: string }) => s.id);
    expect(ids).toContain(sourceA);
    expect(ids).not.toContain(sourceB);
    expect((await withCookie(cookieA, "GET", `${V}/sources/${sourceB}`)).status).toBe(404);
  });

  it("unsafe methods need the dashboard's own origin (CSRF)", async () => {
    const body = { name: `csrf-${Date.now()}` };
    expect((await withCookie(cookieA, "POST", `${V}/sources`, body, { origin: "https://evil.example" })).status).toBe(403);
    expect((await withCookie(cookieA, "POST", `${V}/sources`, body)).status).toBe(403);
    const { rowCount } = await db().query("SELECT 1 FROM sources WHERE name = $1", [body.name]);
    expect(rowCount).toBe(0);
    const made = await withCookie(cookieA, "POST", `${V}/sources`, body, { origin: new URL(BASE_URL).origin });
    expect(made.status).toBe(200);
    expect(made.json.team_id ?? teamA.teamId).toBe(teamA.teamId);
    const { rows } = await db().query("SELECT team_id FROM sources WHERE id = $1", [made.json.id]);
    expect(rows[0].team_id).toBe(teamA.teamId);
  });

  it("is an admin credential of the outbound API (same CSRF rule)", async () => {
    const res = await fetch(`${BASE_URL}/outbound/api/v1/tenants/dash-tenant-${Date.now()}`, {
      method: "PUT",
      headers: { cookie: cookieA, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    const ok = await fetch(`${BASE_URL}/outbound/api/v1/tenants/dash-tenant-${Date.now()}`, {
      method: "PUT",
      headers: { cookie: cookieA, origin: new URL(BASE_URL).origin },
    });
    expect([200, 201]).toContain(ok.status);
  });
});
