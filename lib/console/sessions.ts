import { createHash } from "node:crypto";
import { getDomain } from "tldts";
import { encryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { newSigningSecret } from "@/lib/teams/signing-secret";
import { inTransaction } from "@/lib/db/transaction";
import { cliKeyOfSessionToken, ensureCliKey, hashCliKey } from "@/lib/teams/cli-key";
import { createId, createToken } from "@/lib/ids";

/** Name of the console session cookie. */
export const SESSION_COOKIE = "hookyard_session";
/** Fixed lifetime of a console session: 90 days, never extended by use (docs/console-api.md#workspaces-and-the-session-cookie). */
export const SESSION_TTL_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * A live console session. `cliKey` is its workspace's cli_key, derived from the session token
 * (lib/teams/cli-key.ts; docs/cli.md "The cli_key"): only the holder of the cookie can see it.
 */
export type ConsoleSession = { id: string; teamId: string; expiresAt: Date; cliKey: string };

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The live session for a cookie token, or null when the token is missing, unknown or expired
 * (an expired or unknown cookie makes the next create start a new workspace).
 */
export async function findSession(token: string | undefined | null): Promise<ConsoleSession | null> {
  if (!token || token.length > 200) return null;
  const { rows } = await getPool().query<{ id: string; team_id: string; expires_at: Date }>(
    "SELECT id, team_id, expires_at FROM console_sessions WHERE token_hash = $1 AND expires_at > now()",
    [hashToken(token)],
  );
  const row = rows[0];
  return row ? { id: row.id, teamId: row.team_id, expiresAt: row.expires_at, cliKey: cliKeyOfSessionToken(token) } : null;
}

/**
 * Creates a guest workspace (a GUEST team with its own `cli_key` and signing secret) and its first session, in one
 * transaction. Returns the raw session token and the cli_key derived from it; both are only ever stored hashed.
 */
export async function createGuestWorkspace(now = new Date()): Promise<{ session: ConsoleSession; token: string; cliKey: string }> {
  const teamId = createId("team");
  const token = createToken(32);
  const cliKey = cliKeyOfSessionToken(token);
  const session = { id: createId("session"), teamId, expiresAt: new Date(now.getTime() + SESSION_TTL_MS), cliKey };
  await inTransaction(async (client) => {
    await client.query(
      `INSERT INTO teams (id, name, mode, cli_key_hash, signing_secret_encrypted, created_at, updated_at) VALUES ($1, 'Guest workspace', 'GUEST', $2, $3, $4, $4)`,
      [teamId, hashCliKey(cliKey), encryptSecret(newSigningSecret()), now],
    );
    await client.query("INSERT INTO console_sessions (id, token_hash, team_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)", [
      session.id,
      hashToken(token),
      teamId,
      session.expiresAt,
      now,
    ]);
  });
  return { session, token, cliKey };
}

/**
 * The cookie's Domain attribute for a request host: `cookieDomain` when set explicitly; with "auto",
 * the parent domain of the host where there is one (`console.example.com` → `example.com`), never a
 * public suffix (`hookyard.fly.dev` and `example.co.uk` get none: browsers would drop the cookie), and
 * none for `localhost` and IP addresses; "" means host-only. Public suffixes come from the Public Suffix
 * List, private entries included (tldts).
 */
export function cookieDomainFor(host: string, setting: string): string | undefined {
  if (setting !== "auto") return setting || undefined;
  const hostname = host
    .replace(/:\d+$/, "")
    .replace(/^\[|\]$/g, "")
    .toLowerCase();
  if (!hostname || /^[\d.]+$/.test(hostname) || hostname.includes(":")) return undefined;
  const parent = hostname.slice(hostname.indexOf(".") + 1);
  if (!hostname.includes(".") || !parent.includes(".")) return undefined;
  const registrable = getDomain(hostname, { allowPrivateDomains: true });
  if (!registrable || (parent !== registrable && !parent.endsWith(`.${registrable}`))) return undefined;
  return parent;
}

/** The `Set-Cookie` value for a new session: HttpOnly, SameSite=Strict, Path=/, fixed Expires, Secure on https. */
export function sessionCookie(opts: { token: string; expiresAt: Date; domain?: string; secure: boolean }): string {
  const maxAge = Math.max(0, Math.floor((opts.expiresAt.getTime() - Date.now()) / 1000));
  return [
    `${SESSION_COOKIE}=${opts.token}`,
    "Path=/",
    `Expires=${opts.expiresAt.toUTCString()}`,
    `Max-Age=${maxAge}`,
    ...(opts.domain ? [`Domain=${opts.domain}`] : []),
    "HttpOnly",
    "SameSite=Strict",
    ...(opts.secure ? ["Secure"] : []),
  ].join("; ");
}

/**
 * The cli_key of `session`'s workspace, made the stored one when it is not yet (a workspace from before
 * keys were stored hashed: its old key stops working and this one replaces it; docs/cli.md "The cli_key").
 */
export async function sessionCliKey(session: ConsoleSession): Promise<string> {
  await ensureCliKey(session.teamId, session.cliKey);
  return session.cliKey;
}
