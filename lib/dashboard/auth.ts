/**
 * Dashboard sign-in (docs/dashboard.md#signing-in): next-auth 4 with two credentials providers —
 * `credentials` (email and password) and `link` (a one-time sign-in token plus the new password it sets) —
 * and JWT sessions in an httpOnly cookie, mounted at /dashboard/api/auth. The JWT holds the user id and a
 * server-side session id (`sid`, a `dashboard_sessions` row); every use checks that row and re-reads the
 * user's team, so sign-out, a password change or reset, and deleting the user end the session everywhere,
 * even for a copy of the cookie (docs/dashboard.md "Signing in").
 *
 * Sign-in is rate limited per client IP and per account (DASHBOARD_SIGN_IN_RATE_LIMIT per 15 minutes,
 * counters in PostgreSQL); wrong credentials of any kind get next-auth's one `CredentialsSignin` error.
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getConfig } from "@/lib/config";
import {
  authSecret,
  endDashboardSession,
  renewDashboardSession,
  secure,
  SESSION_SECONDS,
  sessionCookieName,
  sessionUser,
  startDashboardSession,
} from "@/lib/teams/dashboard-session";
import { CLIENT_IP_HEADER, clientIpOf } from "@/lib/http/client-ip";
import { consumeRateLimit } from "@/lib/http/rate-limit";
import { checkCredentials, consumeSignInToken, MIN_PASSWORD_LENGTH, resetPassword } from "@/lib/dashboard/users";

/** Where next-auth is mounted (away from the gateway's /api/{version} tree). */
const AUTH_BASE_PATH = "/dashboard/api/auth";
/** The window of the sign-in rate limit, ms. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** The error a rate-limited sign-in answers (`?error=` of next-auth). */
export const RATE_LIMITED = "RateLimited";

/** Counts a sign-in attempt for the client and the account; throws RATE_LIMITED past either limit. */
async function limitSignIn(headers: Record<string, string> | undefined, email: string): Promise<void> {
  const config = getConfig();
  const h = headers ?? {};
  const ip = h[CLIENT_IP_HEADER] ?? clientIpOf(undefined, h, config.trustProxy);
  const limit = config.dashboard.signInRateLimit;
  const [byIp, byAccount] = await Promise.all([
    consumeRateLimit(`dashboard:sign-in:ip:${ip}`, limit, SIGN_IN_WINDOW_MS),
    consumeRateLimit(`dashboard:sign-in:account:${email.trim().toLowerCase()}`, limit, SIGN_IN_WINDOW_MS),
  ]);
  if (!byIp.allowed || !byAccount.allowed) throw new Error(RATE_LIMITED);
}

const asString = (v: unknown) => (typeof v === "string" ? v : "");

/** The next-auth options of the dashboard (route handler and server components). */
export function authOptions(): NextAuthOptions {
  // next-auth 4 takes its base path from NEXTAUTH_URL.
  process.env.NEXTAUTH_URL ??= `${getConfig().publicUrl}${AUTH_BASE_PATH}`;
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_SECONDS },
    pages: { signIn: "/dashboard/sign-in", error: "/dashboard/sign-in" },
    cookies: {
      sessionToken: { name: sessionCookieName(), options: { httpOnly: true, sameSite: "lax", path: "/", secure: secure() } },
    },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const email = asString(credentials?.email);
          const password = asString(credentials?.password);
          await limitSignIn(req.headers as Record<string, string> | undefined, email);
          if (!email || !password) return null;
          const user = await checkCredentials(email, password);
          return user ? { id: user.id, email: user.email } : null;
        },
      }),
      CredentialsProvider({
        id: "link",
        name: "One-time sign-in link",
        credentials: { token: { label: "Token", type: "text" }, password: { label: "New password", type: "password" } },
        async authorize(credentials, req) {
          const token = asString(credentials?.token);
          const password = asString(credentials?.password);
          await limitSignIn(req.headers as Record<string, string> | undefined, `link:${token.slice(0, 8)}`);
          if (!token || password.length < MIN_PASSWORD_LENGTH) return null;
          const user = await consumeSignInToken(token);
          if (!user) return null;
          await resetPassword(user.id, password);
          return { id: user.id, email: user.email };
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          // A sign-in: a new server-side session that this JWT (and each renewal of it) names.
          token.sub = user.id;
          token.sid = await startDashboardSession(user.id);
        } else if (typeof token.sid === "string") {
          await renewDashboardSession(token.sid);
        }
        return token;
      },
      async session({ session, token }) {
        const user = await sessionUser(token);
        return { ...session, user: user ? { email: user.email, name: user.email, id: user.id, teamId: user.teamId } : undefined } as typeof session;
      },
    },
    events: {
      // Sign-out ends the session on the server: a copy of the cookie kept elsewhere stops working too.
      async signOut({ token }) {
        if (typeof token?.sid === "string") await endDashboardSession(token.sid);
      },
    },
  };
}
