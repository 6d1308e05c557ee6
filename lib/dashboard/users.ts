/**
 * Operators of the signed-in dashboard (docs/dashboard.md#signing-in): email, scrypt password hash, team. A user
 * belongs to one team (the gateway team by default) and sees that team's data only. One-time sign-in
 * links carry a random token whose SHA-256 alone is stored; a link works once, before it expires.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { getPrisma, isUniqueViolation, transactionOptions } from "@/lib/db/prisma";
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

/** A user as this module answers it (never its password hash). `operator`: docs/operations.md "Teams and users". */
export type DashboardUser = { id: string; email: string; team_id: string; operator: boolean; created_at: Date; has_password: boolean };

/** The columns read for a {@link DashboardUser}. */
const SELECT = { id: true, email: true, teamId: true, operator: true, createdAt: true, passwordHash: true } as const;

/** The {@link DashboardUser} of a row read with {@link SELECT}. */
const toUser = (u: { id: string; email: string; teamId: string; operator: boolean; createdAt: Date; passwordHash: string | null }): DashboardUser => ({
  id: u.id,
  email: u.email,
  team_id: u.teamId,
  operator: u.operator,
  created_at: u.createdAt,
  has_password: u.passwordHash !== null,
});

/** Matches a user by id or (case-insensitively, as stored) email. */
const byIdOrEmail = (idOrEmail: string) => ({ OR: [{ id: idOrEmail.trim() }, { email: idOrEmail.trim().toLowerCase() }] });

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

/**
 * Creates a user of `teamId`; `operator` makes it an operator of the installation (default: a member who
 * sees its team only). `password` null: no password until a sign-in link sets one. Throws AppError
 * VALIDATION on bad input, NOT_FOUND for an unknown team, CONFLICT for a taken email.
 */
export async function createUser(email: string, password: string | null, teamId: string, { operator = false } = {}): Promise<DashboardUser> {
  const e = normalizeEmail(email);
  if (password !== null) checkPassword(password);
  const prisma = getPrisma();
  const team = await prisma.team.findUnique({ where: { id: teamId }, select: { mode: true } });
  if (team?.mode !== "TEAM") throw new AppError("NOT_FOUND", `no team ${teamId}`);
  const hash = password === null ? null : await hashPassword(password);
  try {
    const user = await prisma.dashboardUser.create({
      data: { id: createId("dashboardUser"), email: e, passwordHash: hash, teamId, operator },
      select: SELECT,
    });
    return toUser(user);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("CONFLICT", `a user with the email ${e} exists`);
    throw err;
  }
}

/** Every user (or those of `teamId`), oldest first. */
export async function listUsers(teamId?: string): Promise<DashboardUser[]> {
  const users = await getPrisma().dashboardUser.findMany({
    where: teamId === undefined ? {} : { teamId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: SELECT,
  });
  return users.map(toUser);
}

/** The user with this id or email, or null. */
export async function findUser(idOrEmail: string): Promise<DashboardUser | null> {
  const user = await getPrisma().dashboardUser.findFirst({ where: byIdOrEmail(idOrEmail), select: SELECT });
  return user ? toUser(user) : null;
}

/**
 * Sets a new password and ends every session of the user (docs/dashboard.md "Signing in": a changed
 * password signs out every browser, and every copy of a cookie), in one transaction. Throws AppError
 * NOT_FOUND for an unknown user, VALIDATION for a short password.
 */
export async function resetPassword(idOrEmail: string, password: string): Promise<DashboardUser> {
  checkPassword(password);
  const hash = await hashPassword(password);
  const user = await getPrisma().$transaction(async (tx) => {
    const found = await tx.dashboardUser.findFirst({ where: byIdOrEmail(idOrEmail), select: { id: true } });
    if (!found) return null;
    const updated = await tx.dashboardUser.update({ where: { id: found.id }, data: { passwordHash: hash }, select: SELECT });
    await tx.dashboardSession.deleteMany({ where: { userId: found.id } });
    return updated;
  }, transactionOptions());
  if (!user) throw new AppError("NOT_FOUND", `no user "${idOrEmail}"`);
  return toUser(user);
}

/** Makes the user an operator or a member (docs/operations.md "Teams and users"). Throws AppError NOT_FOUND for an unknown id. */
export async function setOperator(userId: string, operator: boolean): Promise<void> {
  const { count } = await getPrisma().dashboardUser.updateMany({ where: { id: userId }, data: { operator } });
  if (!count) throw new AppError("NOT_FOUND", `no user "${userId}"`);
}

/** Ends every session of the user (the reset command when it hands out a sign-in link). Returns how many ended. */
export async function endUserSessions(userId: string): Promise<number> {
  const { count } = await getPrisma().dashboardSession.deleteMany({ where: { userId } });
  return count;
}

/** Deletes a user (and its sessions and sign-in links). Returns whether one was deleted. */
export async function deleteUser(idOrEmail: string): Promise<boolean> {
  const { count } = await getPrisma().dashboardUser.deleteMany({ where: byIdOrEmail(idOrEmail) });
  return count > 0;
}

/**
 * Checks an email and password. Returns the user, or null for an unknown email, a user without a
 * password or a wrong password (one answer for all three; the unknown email pays for a hash too). A
 * right password stored with weaker parameters is hashed again with {@link SCRYPT_PARAMS} (unless the
 * hash changed meanwhile).
 */
export async function checkCredentials(email: string, password: string): Promise<DashboardUser | null> {
  const prisma = getPrisma();
  const row = await prisma.dashboardUser.findUnique({ where: { email: email.trim().toLowerCase() }, select: SELECT });
  if (!row?.passwordHash) {
    dummyHash ??= hashPassword(randomBytes(12).toString("hex"));
    await verifyPassword(password, await dummyHash);
    return null;
  }
  if (!(await verifyPassword(password, row.passwordHash))) return null;
  if (needsRehash(row.passwordHash)) {
    await prisma.dashboardUser.updateMany({ where: { id: row.id, passwordHash: row.passwordHash }, data: { passwordHash: await hashPassword(password) } });
  }
  return toUser(row);
}

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new one-time sign-in token for the user (returned once; only its hash is stored), valid `ttlMs`. */
export async function createSignInToken(userId: string, ttlMs = SIGN_IN_LINK_TTL_MS): Promise<string> {
  const token = createToken(32);
  await getPrisma().dashboardSignInToken.create({
    data: { id: createId("signInToken"), tokenHash: sha256(token), userId, expiresAt: new Date(Date.now() + ttlMs) },
    select: { id: true },
  });
  return token;
}

/** Uses a one-time sign-in token: marks it used and returns its user, or null when unknown, used or expired. */
export async function consumeSignInToken(token: string): Promise<DashboardUser | null> {
  // One conditional UPDATE: two uses at once cannot both see it unused.
  const [used] = await getPrisma().dashboardSignInToken.updateManyAndReturn({
    where: { tokenHash: sha256(token), usedAt: null, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
    select: { userId: true },
  });
  return used ? findUser(used.userId) : null;
}

/**
 * The account a one-time sign-in token is for, without using it (the link page names it: docs/dashboard.md
 * "Signing in"): the user's email and team name, or null when the token is unknown, used or expired.
 */
export async function signInTokenAccount(token: string): Promise<{ email: string; team: string } | null> {
  if (!token || token.length > 200) return null;
  const row = await getPrisma().dashboardSignInToken.findFirst({
    where: { tokenHash: sha256(token), usedAt: null, expiresAt: { gt: new Date() } },
    select: { user: { select: { email: true, team: { select: { name: true } } } } },
  });
  return row ? { email: row.user.email, team: row.user.team.name } : null;
}
