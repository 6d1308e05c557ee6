/**
 * Operators of the signed-in dashboard (docs/dashboard.md#signing-in): email, scrypt password hash, team. A user
 * belongs to one team (the gateway team by default) and sees that team's data only. One-time sign-in
 * links carry a random token whose SHA-256 alone is stored; a link works once, before it expires.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { getPool } from "@/lib/db/pool";
import { createId, createToken } from "@/lib/ids";
import { AppError } from "@/lib/http/errors";

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;
/**
 * scrypt cost of new hashes: OWASP's minimum (N = 2^17, r 8, p 1): 128 MiB and a few hundred ms per hash
 * (docs/dashboard.md "Signing in"). Hashes made with other parameters still verify (the parameters are
 * in the hash) and are replaced at the user's next successful sign-in.
 */
export const SCRYPT_PARAMS = { N: 1 << 17, r: 8, p: 1 } as const;
const KEYLEN = 32;
/** Memory scrypt needs for (N, r): 128·N·r bytes, doubled for headroom (Node refuses above `maxmem`). */
const maxmemFor = (n: number, r: number) => 128 * n * r * 2;
/** Largest N a stored hash may name (2^20, 1 GiB at r 8): a corrupt row must not make a sign-in allocate without bound. */
const MAX_N = 1 << 20;
/** Shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12;
/** How long a one-time sign-in link works, ms. */
const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;

type DashboardUser = { id: string; email: string; team_id: string; created_at: Date; has_password: boolean };

/** `scrypt$N$r$p$salt$hash` (salt and hash base64url) of `password`, with `params` (default {@link SCRYPT_PARAMS}). */
export async function hashPassword(password: string, params: { N: number; r: number; p: number } = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize("NFKC"), salt, KEYLEN, { ...params, maxmem: maxmemFor(params.N, params.r) });
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** The scrypt parameters of a stored hash, or null when it is not one this module can verify. */
function parseHash(stored: string | null): { N: number; r: number; p: number; salt: Buffer; hash: Buffer } | null {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const powerOfTwo = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return null;
  return { N, r, p, salt: Buffer.from(parts[4], "base64url"), hash: Buffer.from(parts[5], "base64url") };
}

/** Whether `password` matches `stored` (constant-time compare; false for a malformed or null hash, never throws for one). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const h = parseHash(stored);
  if (!h || h.hash.length === 0) return false;
  const actual = await scrypt(password.normalize("NFKC"), h.salt, h.hash.length, { N: h.N, r: h.r, p: h.p, maxmem: maxmemFor(h.N, h.r) });
  return actual.length === h.hash.length && timingSafeEqual(actual, h.hash);
}

/** Whether a stored hash was made with weaker parameters than {@link SCRYPT_PARAMS} (rehash it at the next sign-in). */
export function needsRehash(stored: string | null): boolean {
  const h = parseHash(stored);
  return !h || h.N < SCRYPT_PARAMS.N || h.r < SCRYPT_PARAMS.r || h.p < SCRYPT_PARAMS.p || h.hash.length < KEYLEN;
}

/** A hash to compare against when the email is unknown, so both cases take the same time. */
let dummyHash: Promise<string> | null = null;

function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(e) || e.length > 254) throw new AppError("VALIDATION", `"${email}" is not an email address`);
  return e;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AppError("VALIDATION", `a password has at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 1024) throw new AppError("VALIDATION", "a password has at most 1024 characters");
}

const COLUMNS = "id, email, team_id, created_at, password_hash IS NOT NULL AS has_password";

/** Creates a user of `teamId`. `password` null: no password until a sign-in link sets one. Throws AppError VALIDATION on bad input, CONFLICT for a taken email. */
export async function createUser(email: string, password: string | null, teamId: string): Promise<DashboardUser> {
  const e = normalizeEmail(email);
  if (password !== null) checkPassword(password);
  const hash = password === null ? null : await hashPassword(password);
  const { rows } = await getPool().query<DashboardUser>(
    `INSERT INTO dashboard_users (id, email, password_hash, team_id, created_at, updated_at) VALUES ($1, $2, $3, $4, now(), now())
     ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
    [createId("dashboardUser"), e, hash, teamId],
  );
  if (!rows[0]) throw new AppError("CONFLICT", `a user with the email ${e} exists`);
  return rows[0];
}

/** Every user, oldest first. */
export async function listUsers(): Promise<DashboardUser[]> {
  const { rows } = await getPool().query<DashboardUser>(`SELECT ${COLUMNS} FROM dashboard_users ORDER BY created_at, id`);
  return rows;
}

/** The user with this id or email, or null. */
export async function findUser(idOrEmail: string): Promise<DashboardUser | null> {
  const { rows } = await getPool().query<DashboardUser>(`SELECT ${COLUMNS} FROM dashboard_users WHERE id = $1 OR email = lower($1)`, [idOrEmail.trim()]);
  return rows[0] ?? null;
}

/**
 * Sets a new password and ends every session of the user (docs/dashboard.md "Signing in": a changed
 * password signs out every browser, and every copy of a cookie). Throws AppError NOT_FOUND for an
 * unknown user, VALIDATION for a short password.
 */
export async function resetPassword(idOrEmail: string, password: string): Promise<DashboardUser> {
  checkPassword(password);
  const { rows } = await getPool().query<DashboardUser>(
    `WITH u AS (UPDATE dashboard_users SET password_hash = $2, updated_at = now() WHERE id = $1 OR email = lower($1) RETURNING ${COLUMNS}),
          ended AS (DELETE FROM dashboard_sessions s USING u WHERE s.user_id = u.id)
     SELECT * FROM u`,
    [idOrEmail.trim(), await hashPassword(password)],
  );
  if (!rows[0]) throw new AppError("NOT_FOUND", `no user "${idOrEmail}"`);
  return rows[0];
}

/** Ends every session of the user (the reset command when it hands out a sign-in link). Returns how many ended. */
export async function endUserSessions(userId: string): Promise<number> {
  const { rowCount } = await getPool().query("DELETE FROM dashboard_sessions WHERE user_id = $1", [userId]);
  return rowCount ?? 0;
}

/** Deletes a user (and its sign-in links). Returns whether one was deleted. */
export async function deleteUser(idOrEmail: string): Promise<boolean> {
  const { rowCount } = await getPool().query("DELETE FROM dashboard_users WHERE id = $1 OR email = lower($1)", [idOrEmail.trim()]);
  return Boolean(rowCount);
}

/**
 * Checks an email and password. Returns the user, or null for an unknown email, a user without a
 * password or a wrong password (one answer for all three; the unknown email pays for a hash too). A
 * right password stored with weaker parameters is hashed again with {@link SCRYPT_PARAMS} (unless the
 * hash changed meanwhile).
 */
export async function checkCredentials(email: string, password: string): Promise<DashboardUser | null> {
  const { rows } = await getPool().query<DashboardUser & { password_hash: string | null }>(
    `SELECT ${COLUMNS}, password_hash FROM dashboard_users WHERE email = $1`,
    [email.trim().toLowerCase()],
  );
  const row = rows[0];
  if (!row?.password_hash) {
    dummyHash ??= hashPassword(randomBytes(12).toString("hex"));
    await verifyPassword(password, await dummyHash);
    return null;
  }
  if (!(await verifyPassword(password, row.password_hash))) return null;
  if (needsRehash(row.password_hash)) {
    await getPool().query("UPDATE dashboard_users SET password_hash = $3 WHERE id = $1 AND password_hash = $2", [
      row.id,
      row.password_hash,
      await hashPassword(password),
    ]);
  }
  const { password_hash: _, ...user } = row;
  return user;
}

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new one-time sign-in token for the user (returned once; only its hash is stored), valid `ttlMs`. */
export async function createSignInToken(userId: string, ttlMs = SIGN_IN_LINK_TTL_MS): Promise<string> {
  const token = createToken(32);
  await getPool().query("INSERT INTO dashboard_sign_in_tokens (id, token_hash, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4, now())", [
    createId("signInToken"),
    sha256(token),
    userId,
    new Date(Date.now() + ttlMs),
  ]);
  return token;
}

/** Uses a one-time sign-in token: marks it used and returns its user, or null when unknown, used or expired. */
export async function consumeSignInToken(token: string): Promise<DashboardUser | null> {
  const { rows } = await getPool().query<{ user_id: string }>(
    "UPDATE dashboard_sign_in_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id",
    [sha256(token)],
  );
  return rows[0] ? findUser(rows[0].user_id) : null;
}
