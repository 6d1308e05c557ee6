/**
 * The dashboard session as the server reads it (docs/dashboard.md#signing-in; lib/dashboard/auth.ts signs users in): the auth
 * secret, the session cookie, the server-side session rows (docs/dashboard.md "Signing in": sign-out and
 * password changes end sessions on the server, not only in the browser), the signed-in user of a request,
 * and the CSRF rule for cookie-authenticated API calls. Free of next-auth's providers, so server.ts's own
 * paths can import it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decode } from "next-auth/jwt";
import { getConfig } from "@/lib/config";
import { derivedSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { readCookie } from "@/lib/http/cookies";
import { createToken } from "@/lib/ids";

let secret: string | undefined;
/**
 * The secret that signs session cookies (docs/dashboard.md "Signing in"): AUTH_SECRET when set; else, with
 * SECRET_KEY set, one derived from it (the same on every process sharing that key, so any web process
 * reads any other's sessions); else (one machine, embedded database) a random secret created once in
 * `{DATA_DIR}/auth-secret` (mode 600).
 */
export function authSecret(): string {
  if (secret) return secret;
  const config = getConfig();
  if (config.dashboard.authSecret) return (secret = config.dashboard.authSecret);
  if (config.secretKey) return (secret = derivedSecret("dashboard session cookies"));
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

/** The signed-in user: its team's data is what it sees; `operator`: docs/operations.md "Teams and users". */
export type SessionUser = { id: string; email: string; teamId: string; operator: boolean };

/** Session lifetime, seconds (7 days; next-auth renews the cookie while it is used). */
export const SESSION_SECONDS = 7 * 24 * 3600;
/**
 * A session row outlives the JWTs issued for it: each time next-auth issues one (valid SESSION_SECONDS), a
 * row expiring sooner than that is moved to SESSION_SECONDS + this margin, so it is written at most once a day.
 */
const ROW_MARGIN_SECONDS = 24 * 3600;

/**
 * Starts a server-side session of the user (docs/dashboard.md "Signing in": a `dashboard_sessions` row that
 * the session JWT names as `sid`) and drops the user's expired ones. Returns the session id.
 */
export async function startDashboardSession(userId: string): Promise<string> {
  const id = createToken(24);
  await getPool().query(
    `WITH gone AS (DELETE FROM dashboard_sessions WHERE user_id = $2 AND expires_at <= now())
     INSERT INTO dashboard_sessions (id, user_id, expires_at, created_at) VALUES ($1, $2, now() + make_interval(secs => $3), now())`,
    [id, userId, SESSION_SECONDS + ROW_MARGIN_SECONDS],
  );
  return id;
}

/** Keeps session `sid` alive past a JWT issued now (a no-op for an ended session, or one renewed within a day). */
export async function renewDashboardSession(sid: string): Promise<void> {
  await getPool().query(
    "UPDATE dashboard_sessions SET expires_at = now() + make_interval(secs => $2) WHERE id = $1 AND expires_at > now() AND expires_at < now() + make_interval(secs => $3)",
    [sid, SESSION_SECONDS + ROW_MARGIN_SECONDS, SESSION_SECONDS],
  );
}

/** Ends session `sid` (sign-out): every copy of its cookie stops working at once. */
export async function endDashboardSession(sid: string): Promise<void> {
  await getPool().query("DELETE FROM dashboard_sessions WHERE id = $1", [sid]);
}

/**
 * The user of a session JWT's claims (`sub`, `sid`) with its team, or null when the session was ended
 * (sign-out, password change or reset), expired, or its user deleted. Never throws on odd claims.
 */
export async function sessionUser(claims: { sub?: unknown; sid?: unknown } | null | undefined): Promise<SessionUser | null> {
  const { sub, sid } = claims ?? {};
  if (typeof sub !== "string" || typeof sid !== "string" || !sub || !sid || sid.length > 100 || sub.length > 100) return null;
  const { rows } = await getPool().query<{ id: string; email: string; team_id: string; operator: boolean }>(
    `SELECT u.id, u.email, u.team_id, u.operator FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
      WHERE s.id = $1 AND s.user_id = $2 AND s.expires_at > now()`,
    [sid, sub],
  );
  return rows[0] ? { id: rows[0].id, email: rows[0].email, teamId: rows[0].team_id, operator: rows[0].operator } : null;
}

/**
 * The signed-in dashboard user of a request's Cookie header (lib/http/cookies.ts reads it; the session JWT
 * is checked and decrypted with the auth secret, and its session must still exist: {@link sessionUser}),
 * or null. Never throws.
 */
export async function userFromCookieHeader(header: string | null | undefined): Promise<SessionUser | null> {
  const token = readCookie(header, sessionCookieName());
  if (!token) return null;
  try {
    return await sessionUser(await decode({ token, secret: authSecret() }));
  } catch {
    return null;
  }
}

/**
 * Whether a cookie-authenticated request with this method may proceed (CSRF, docs/dashboard.md#the-api-behind-the-pages): safe methods
 * always; others only with an `Origin` (or, without one, a `Referer`) of PUBLIC_URL's origin — a form or
 * script on another site cannot forge that.
 */
function sameOriginForUnsafe(method: string, origin: string | null | undefined, referer: string | null | undefined): boolean {
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
 * The dashboard session as a credential of the API wrappers (lib/gateway/http.ts, lib/outbound/http.ts;
 * docs/dashboard.md#the-api-behind-the-pages): the signed-in user (its team's data), "cross-site" for an unsafe method whose Origin is not
 * PUBLIC_URL's (answer 403), or null without a valid session (answer 401). `header` reads a request header.
 */
export async function sessionCredential(method: string, header: (name: string) => string | null | undefined): Promise<SessionUser | "cross-site" | null> {
  const user = await userFromCookieHeader(header("cookie"));
  if (!user) return null;
  return sameOriginForUnsafe(method, header("origin"), header("referer")) ? user : "cross-site";
}
