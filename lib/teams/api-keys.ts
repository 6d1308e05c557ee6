import { createHash } from "node:crypto";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import type { ApiKey } from "@/lib/generated/prisma/client";
import { createId, createToken } from "@/lib/ids";

/** An API key as listed: the Prisma model without the key's hash. */
type ApiKeyRecord = Omit<ApiKey, "keyHash">;
/** The columns of an ApiKeyRecord (never `keyHash`). */
const RECORD = { id: true, teamId: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/** API keys look like `hky_` + 40 base64url characters (240 random bits). */
const API_KEY_PREFIX = "hky_";
const PREFIX_SHOWN = 12;

export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");

/**
 * Creates an API key for `teamId`. Returns the key itself, shown once: only its SHA-256 is stored.
 * `key` may be given (GATEWAY_API_KEY pins one); it must be at least 16 characters.
 */
export async function createApiKey(teamId: string, name: string, key = `${API_KEY_PREFIX}${createToken(30)}`): Promise<{ key: string; record: ApiKeyRecord }> {
  const record = await getPrisma().apiKey.create({
    data: { id: createId("apiKey"), teamId, name, prefix: key.slice(0, PREFIX_SHOWN), keyHash: hashApiKey(key) },
    select: RECORD,
  });
  return { key, record };
}

/**
 * The team a presented API key belongs to, or null when the key is unknown or revoked. Only TEAM-mode
 * teams have keys, so a console `cli_key` (or anything else) never authenticates. `last_used_at` is
 * refreshed at most once a minute.
 */
export async function authenticateApiKey(key: string): Promise<{ teamId: string; keyId: string } | null> {
  if (key.length < 16 || key.length > 256) return null;
  // Stays SQL: every API request runs it (a hot path), and Prisma's per-query CPU would add to each (docs/benchmarks.md "API latency").
  const { rows } = await getPool().query<{ id: string; team_id: string; last_used_at: Date | null }>(
    `SELECT k.id, k.team_id, k.last_used_at FROM api_keys k JOIN teams t ON t.id = k.team_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND t.mode = 'TEAM'`,
    [hashApiKey(key)],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) {
    void getPool()
      .query("UPDATE api_keys SET last_used_at = now() WHERE id = $1", [row.id])
      .catch(() => {});
  }
  return { teamId: row.team_id, keyId: row.id };
}

/** Every key of every team (or of `teamId`), newest first, without secrets. */
export async function listApiKeys(teamId?: string): Promise<ApiKeyRecord[]> {
  return getPrisma().apiKey.findMany({ where: teamId === undefined ? {} : { teamId }, orderBy: { createdAt: "desc" }, select: RECORD });
}

/**
 * Revokes one key, named by its id, its full value, or its shown prefix (a key of `teamId` only, when
 * given). Returns it; null when nothing live matches, or when a prefix matches more than one key (nothing
 * is revoked then).
 */
export async function revokeApiKey(idKeyOrPrefix: string, teamId?: string): Promise<ApiKeyRecord | null> {
  const prisma = getPrisma();
  const rows = await prisma.apiKey.findMany({
    where: {
      revokedAt: null,
      ...(teamId === undefined ? {} : { teamId }),
      OR: [{ id: idKeyOrPrefix }, { keyHash: hashApiKey(idKeyOrPrefix) }, { prefix: idKeyOrPrefix }],
    },
    select: { id: true },
  });
  if (rows.length !== 1) return null;
  const [updated] = await prisma.apiKey.updateManyAndReturn({ where: { id: rows[0].id }, data: { revokedAt: new Date() }, select: RECORD });
  return updated ?? null;
}
