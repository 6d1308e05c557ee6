import { createHash } from "node:crypto";
import { getPool } from "@/lib/db/pool";
import { createId, createToken } from "@/lib/ids";

export type ApiKeyRecord = { id: string; team_id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null };

/** API keys look like `hky_` + 40 base64url characters (240 random bits). */
export const API_KEY_PREFIX = "hky_";
const PREFIX_SHOWN = 12;

export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");

/**
 * Creates an API key for `teamId`. Returns the key itself, shown once: only its SHA-256 is stored.
 * `key` may be given (GATEWAY_API_KEY pins one); it must be at least 16 characters.
 */
export async function createApiKey(teamId: string, name: string, key = `${API_KEY_PREFIX}${createToken(30)}`): Promise<{ key: string; record: ApiKeyRecord }> {
  const { rows } = await getPool().query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, team_id, name, prefix, key_hash, created_at) VALUES ($1, $2, $3, $4, $5, now())
     RETURNING id, team_id, name, prefix, created_at, last_used_at, revoked_at`,
    [createId("apiKey"), teamId, name, key.slice(0, PREFIX_SHOWN), hashApiKey(key)],
  );
  return { key, record: rows[0] };
}

/**
 * The team a presented API key belongs to, or null when the key is unknown or revoked. Only TEAM-mode
 * teams have keys, so a console `cli_key` (or anything else) never authenticates. `last_used_at` is
 * refreshed at most once a minute.
 */
export async function authenticateApiKey(key: string): Promise<{ teamId: string; keyId: string } | null> {
  if (key.length < 16 || key.length > 256) return null;
  const { rows } = await getPool().query<{ id: string; team_id: string; last_used_at: Date | null }>(
    `SELECT k.id, k.team_id, k.last_used_at FROM api_keys k JOIN teams t ON t.id = k.team_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND t.mode = 'TEAM'`,
    [hashApiKey(key)],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) {
    void getPool().query("UPDATE api_keys SET last_used_at = now() WHERE id = $1", [row.id]).catch(() => {});
  }
  return { teamId: row.team_id, keyId: row.id };
}

/** Every key of every team (or of `teamId`), newest first, without secrets. */
export async function listApiKeys(teamId?: string): Promise<ApiKeyRecord[]> {
  const { rows } = await getPool().query<ApiKeyRecord>(
    `SELECT id, team_id, name, prefix, created_at, last_used_at, revoked_at FROM api_keys
      WHERE ($1::text IS NULL OR team_id = $1) ORDER BY created_at DESC`,
    [teamId ?? null],
  );
  return rows;
}

/**
 * Revokes one key, named by its id, its full value, or its shown prefix. Returns it; null when nothing
 * live matches, or when a prefix matches more than one key (nothing is revoked then).
 */
export async function revokeApiKey(idKeyOrPrefix: string): Promise<ApiKeyRecord | null> {
  const pool = getPool();
  const { rows } = await pool.query<{ id: string }>(
    "SELECT id FROM api_keys WHERE revoked_at IS NULL AND (id = $1 OR key_hash = $2 OR prefix = $1)",
    [idKeyOrPrefix, hashApiKey(idKeyOrPrefix)],
  );
  if (rows.length !== 1) return null;
  const { rows: updated } = await pool.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 RETURNING id, team_id, name, prefix, created_at, last_used_at, revoked_at`,
    [rows[0].id],
  );
  return updated[0] ?? null;
}
