/**
 * Dashboard test helpers: users made straight through the domain functions (each test file its own
 * team and users), and a sign-in over HTTP exactly as the browser does it (next-auth's CSRF token, then
 * the credentials callback), returning the cookies to send.
 */
import { randomBytes } from "node:crypto";
import { createUser } from "@/lib/dashboard/users";
import { BASE_URL, uniqueIp } from "./client";

export const AUTH = `${BASE_URL}/dashboard/api/auth`;

/**
 * A new user of `teamId` with a random email; returns the email and password. An operator unless
 * `operator: false` (a member, who sees its team only: docs/operations.md "Teams and users").
 */
export async function newUser(
  teamId: string,
  password = `pw-${randomBytes(8).toString("hex")}`,
  { operator = true } = {},
): Promise<{ id: string; email: string; password: string }> {
  const email = `op-${randomBytes(5).toString("hex")}@example.test`;
  const user = await createUser(email, password, teamId, { operator });
  return { id: user.id, email, password };
}

/** Cookies of Set-Cookie headers as one Cookie header (later ones win). */
export function mergeCookies(cookie: string, res: Response): string {
  const jar = new Map(cookie ? cookie.split("; ").map((c) => [c.slice(0, c.indexOf("=")), c.slice(c.indexOf("=") + 1)] as const) : []);
  for (const set of res.headers.getSetCookie()) {
    const pair = set.split(";")[0];
    const name = pair.slice(0, pair.indexOf("="));
    const value = pair.slice(pair.indexOf("=") + 1);
    if (value === "" || /max-age=0/i.test(set)) jar.delete(name);
    else jar.set(name, value);
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/**
 * Signs in through next-auth's endpoints from client `ip` (X-Forwarded-For; the test server trusts it).
 * Returns the answer's status, its `error` (null on success) and the cookies (with the session on success).
 */
export async function signInHttp(
  email: string,
  password: string,
  ip = uniqueIp(),
  provider = "credentials",
  fields?: Record<string, string>,
): Promise<{ status: number; error: string | null; cookie: string }> {
  const csrf = await fetch(`${AUTH}/csrf`, { headers: { "x-forwarded-for": ip } });
  let cookie = mergeCookies("", csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${AUTH}/callback/${provider}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-forwarded-for": ip, origin: BASE_URL },
    body: new URLSearchParams({ ...(fields ?? { email, password }), csrfToken, json: "true" }),
  });
  cookie = mergeCookies(cookie, res);
  const body = (await res.json().catch(() => ({}))) as { url?: string };
  return { status: res.status, error: body.url ? new URL(body.url).searchParams.get("error") : `no url (HTTP ${res.status})`, cookie };
}

/** The session cookie alone (what the API wrappers read). */
export const sessionOnly = (cookie: string) =>
  cookie
    .split("; ")
    .filter((c) => c.startsWith("hookyard.dashboard-session="))
    .join("; ");
