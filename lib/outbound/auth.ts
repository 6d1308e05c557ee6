/**
 * Credentials of the outbound API (docs/outbound.md#credentials): the admin
 * key (OUTBOUND_API_KEY, or one generated on the first start and printed once; stored hashed) and tenant
 * JWTs (HS256 with jose, `sub` = tenant id, 24 hours; the secret is OUTBOUND_JWT_SECRET or one generated
 * once and kept encrypted in `outbound_settings`).
 */
import { createHash, randomBytes } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { getConfig } from "@/lib/config";
import { decryptSecret, encryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { withAdvisoryLock } from "@/lib/db/transaction";
import { createId, createToken } from "@/lib/ids";

/** Who is calling: the operator (admin key), or one tenant (its JWT). */
export type OutboundCaller = { kind: "admin"; keyId: string } | { kind: "tenant"; tenantId: string };

/** Tenant JWT lifetime, seconds (24 hours, docs/outbound.md#credentials). */
export const TENANT_TOKEN_SECONDS = 24 * 3600;
const ISSUER = "hookyard-outbound";
const OUTBOUND_KEY_PREFIX = "hko_";
const hash = (key: string) => createHash("sha256").update(key).digest("hex");

/** Stores a new admin key (or `key` when given) and returns it; only its SHA-256 is kept. */
export async function createOutboundKey(name: string, key = `${OUTBOUND_KEY_PREFIX}${createToken(30)}`): Promise<{ id: string; key: string }> {
  const id = createId("outboundKey");
  await getPool().query("INSERT INTO outbound_api_keys (id, name, prefix, key_hash) VALUES ($1, $2, $3, $4) ON CONFLICT (key_hash) DO NOTHING", [
    id,
    name,
    key.slice(0, 12),
    hash(key),
  ]);
  return { id, key };
}

/** The admin keys (without secrets), newest first. */
export async function listOutboundKeys() {
  const { rows } = await getPool().query<{ id: string; name: string; prefix: string; created_at: Date; revoked_at: Date | null }>(
    "SELECT id, name, prefix, created_at, revoked_at FROM outbound_api_keys ORDER BY created_at DESC",
  );
  return rows;
}

/** Revokes the admin key with this id or prefix; false when none live matches. */
export async function revokeOutboundKey(idOrPrefix: string): Promise<boolean> {
  const { rowCount } = await getPool().query("UPDATE outbound_api_keys SET revoked_at = now() WHERE revoked_at IS NULL AND (id = $1 OR prefix = $1)", [
    idOrPrefix,
  ]);
  return (rowCount ?? 0) === 1;
}

/**
 * First start: with OUTBOUND_API_KEY set, makes sure it is registered; with no key at all, creates one
 * and prints it once through `log`. Serialised by an advisory lock.
 */
export async function ensureOutboundKey(log: (message: string) => void): Promise<void> {
  await withAdvisoryLock(727274003, async (client) => {
    const pinned = getConfig().outbound.apiKey;
    if (pinned) {
      await createOutboundKey("OUTBOUND_API_KEY", pinned);
      return;
    }
    const { rowCount } = await client.query("SELECT 1 FROM outbound_api_keys WHERE revoked_at IS NULL");
    if (!rowCount) {
      const { key } = await createOutboundKey("default");
      log("created the outbound admin key. Keep it; it is not shown again:");
      log(`  outbound API key: ${key}  (Authorization: Bearer …; manage it with \`npm run keys -- outbound …\`)`);
    }
  });
}

let secret: Promise<Uint8Array> | null = null;
/** The JWT signing secret: OUTBOUND_JWT_SECRET, or the stored one (generated once, kept encrypted). */
function jwtSecret(): Promise<Uint8Array> {
  secret ??= (async () => {
    const pinned = getConfig().outbound.jwtSecret;
    if (pinned) return new TextEncoder().encode(pinned);
    await getPool().query("INSERT INTO outbound_settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING", [
      encryptSecret(randomBytes(32).toString("base64url")),
    ]);
    const { rows } = await getPool().query<{ value: string }>("SELECT value FROM outbound_settings WHERE key = 'jwt_secret'");
    return new TextEncoder().encode(decryptSecret(rows[0].value));
  })().catch((err) => {
    secret = null;
    throw err;
  });
  return secret;
}

/** A tenant JWT for `tenantId`, valid TENANT_TOKEN_SECONDS. */
export async function tenantToken(tenantId: string, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(tenantId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + TENANT_TOKEN_SECONDS)
    .sign(await jwtSecret());
}

/** Valid admin keys by hash, kept ADMIN_KEY_TTL_MS (publish is a hot path): a revoked key stops working within a second. */
const adminKeys = new Map<string, { id: string; expiresAt: number }>();
const ADMIN_KEY_TTL_MS = 1000;

/**
 * Checks a tenant JWT: `{tenantId}` when it is ours, unexpired and its tenant still exists; else why not
 * (`expired`, `invalid`: bad signature, issuer or shape; `unknown_tenant`: the tenant was deleted).
 */
export async function verifyTenantToken(token: string): Promise<{ tenantId: string } | { error: "expired" | "invalid" | "unknown_tenant" }> {
  if (token.length < 16 || token.length > 4096 || token.split(".").length !== 3) return { error: "invalid" };
  let sub: unknown;
  try {
    ({
      payload: { sub },
    } = await jwtVerify(token, await jwtSecret(), { issuer: ISSUER, algorithms: ["HS256"] }));
  } catch (err) {
    return { error: err instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
  if (typeof sub !== "string") return { error: "invalid" };
  const { rowCount } = await getPool().query("SELECT 1 FROM outbound_tenants WHERE id = $1", [sub]);
  return rowCount ? { tenantId: sub } : { error: "unknown_tenant" };
}

/**
 * The caller of a bearer credential: the admin (a valid key is remembered for a second), a tenant whose
 * JWT is valid and who still exists, or null (401).
 */
export async function authenticateOutbound(credential: string): Promise<OutboundCaller | null> {
  if (credential.length < 16 || credential.length > 4096) return null;
  const keyHash = hash(credential);
  const known = adminKeys.get(keyHash);
  if (known && known.expiresAt > Date.now()) return { kind: "admin", keyId: known.id };
  const { rows } = await getPool().query<{ id: string }>("SELECT id FROM outbound_api_keys WHERE key_hash = $1 AND revoked_at IS NULL", [keyHash]);
  if (rows[0]) {
    if (adminKeys.size > 1000) adminKeys.clear();
    adminKeys.set(keyHash, { id: rows[0].id, expiresAt: Date.now() + ADMIN_KEY_TTL_MS });
    return { kind: "admin", keyId: rows[0].id };
  }
  adminKeys.delete(keyHash);
  const verified = await verifyTenantToken(credential);
  return "tenantId" in verified ? { kind: "tenant", tenantId: verified.tenantId } : null;
}

/** The cookie holding the tenant JWT (httpOnly). */
export const PORTAL_COOKIE = "hy_portal";
/** Header the portal's own fetches send on unsafe methods; a cross-site form cannot send it. */
export const PORTAL_CSRF_HEADER = "x-hookyard-portal";

/**
 * CSRF guard of a cookie-authenticated request: safe methods (GET, HEAD) pass; an unsafe one passes only
 * with the {@link PORTAL_CSRF_HEADER} header (which a cross-site form cannot send and a cross-site fetch
 * cannot send without a CORS preflight this server never grants) and, when an `Origin` is sent, only
 * from PUBLIC_URL's origin.
 */
export function portalCsrfAllowed(method: string, origin: string | null | undefined, csrfHeader: string | null | undefined): boolean {
  if (method === "GET" || method === "HEAD") return true;
  if (!csrfHeader) return false;
  if (origin && origin !== new URL(getConfig().publicUrl).origin) return false;
  return true;
}
