/**
 * The dashboard session as the server reads it (issue 14; lib/dashboard/auth.ts signs users in): the auth
 * secret, the session cookie, the signed-in user of a request, and the CSRF rule for cookie-authenticated
 * API calls. Free of next-auth's providers, so server.ts's own paths can import it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decode } from "next-auth/jwt";
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";

let secret: string | undefined;
/** AUTH_SECRET, or a random secret created once in `{DATA_DIR}/auth-secret` (mode 600). */
export function authSecret(): string {
  if (secret) return secret;
  const config = getConfig();
  if (config.dashboard.authSecret) return (secret = config.dashboard.authSecret);
  const file = path.join(config.dataDir, "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return (secret = readFileSync(file, "utf8").trim());
}

export const secure = () => getConfig().publicUrl.startsWith("https:");
/** Name of the session cookie (`__Secure-` over https). */
export const sessionCookieName = () => `${secure() ? "__Secure-" : ""}hookyard.dashboard-session`;

export type SessionUser = { id: string; email: string; teamId: string };

/** The user of this id with its team, or null when it was deleted. */
export async function dashboardUser(id: string): Promise<SessionUser | null> {
  const { rows } = await getPool().query<{ id: string; email: string; team_id: string }>("SELECT id, email, team_id FROM dashboard_users WHERE id = $1", [id]);
  return rows[0] ? { id: rows[0].id, email: rows[0].email, teamId: rows[0].team_id } : null;
}

/** Value of cookie `name` in a Cookie header, or null. */
function cookieValue(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/**
 * The signed-in dashboard user of a request's Cookie header (the session JWT, checked and decrypted with
 * the auth secret, and the user still existing), or null. Never throws.
 */
export async function userFromCookieHeader(header: string | null | undefined): Promise<SessionUser | null> {
  const token = cookieValue(header, sessionCookieName());
  if (!token) return null;
  try {
    const jwt = await decode({ token, secret: authSecret() });
    return jwt?.sub ? await dashboardUser(jwt.sub) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a cookie-authenticated request with this method may proceed (CSRF, issue 14): safe methods
 * always; others only with an `Origin` (or, without one, a `Referer`) of PUBLIC_URL's origin — a form or
 * script on another site cannot forge that.
 */
export function sameOriginForUnsafe(method: string, origin: string | null | undefined, referer: string | null | undefined): boolean {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return true;
  const expected = new URL(getConfig().publicUrl).origin;
  if (origin) return origin === expected;
  if (!referer) return false;
  try {
    return new URL(referer).origin === expected;
  } catch {
    return false;
  }
}

/**
 * The dashboard session as a credential of the API wrappers (lib/http/gateway.ts, lib/http/outbound.ts;
 * issue 14): the signed-in user (its team's data), "cross-site" for an unsafe method whose Origin is not
 * PUBLIC_URL's (answer 403), or null without a valid session (answer 401). `header` reads a request header.
 */
export async function sessionCredential(method: string, header: (name: string) => string | null | undefined): Promise<SessionUser | "cross-site" | null> {
  const user = await userFromCookieHeader(header("cookie"));
  if (!user) return null;
  return sameOriginForUnsafe(method, header("origin"), header("referer")) ? user : "cross-site";
}
