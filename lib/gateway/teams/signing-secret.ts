import { decryptSecret, encryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { createToken } from "@/lib/ids";

/** A new signing secret: 32 random bytes, base64url. */
export const newSigningSecret = () => createToken(32);

/**
 * The team's signing secrets: `current` signs `x-gateway-signature`; `previous` signs
 * `x-gateway-signature-2` while the rotation delay it was given still runs (shared/spec/gateway.md
 * "Gateway signature verification"). Throws when the team does not exist.
 */
export async function getSigningSecrets(teamId: string, now = new Date()): Promise<{ current: string; previous: string | null; previousExpiresAt: Date | null }> {
  const { rows } = await getPool().query<{ s: string | null; p: string | null; e: Date | null }>(
    `SELECT signing_secret_encrypted AS s, previous_signing_secret_encrypted AS p, previous_signing_secret_expires_at AS e FROM teams WHERE id = $1`,
    [teamId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no team ${teamId}`);
  let current = row.s ? decryptSecret(row.s) : null;
  if (!current) {
    current = newSigningSecret();
    await getPool().query("UPDATE teams SET signing_secret_encrypted = $2 WHERE id = $1 AND signing_secret_encrypted IS NULL", [teamId, encryptSecret(current)]);
    return getSigningSecrets(teamId, now);
  }
  const live = row.p && row.e && row.e > now;
  return { current, previous: live ? decryptSecret(row.p!) : null, previousExpiresAt: live ? row.e : null };
}

/**
 * Rotates the signing secret: a new one signs from now on; the old one keeps signing as
 * `x-gateway-signature-2` for `delayMs` (0 = dropped at once). Returns the new secret.
 */
export async function rotateSigningSecret(teamId: string, delayMs: number): Promise<{ secret: string; previousExpiresAt: Date | null }> {
  const secret = newSigningSecret();
  const expires = delayMs > 0 ? new Date(Date.now() + delayMs) : null;
  const { rowCount } = await getPool().query(
    `UPDATE teams SET previous_signing_secret_encrypted = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE signing_secret_encrypted END,
                      previous_signing_secret_expires_at = $3, signing_secret_encrypted = $2, updated_at = now()
      WHERE id = $1`,
    [teamId, encryptSecret(secret), expires],
  );
  if (!rowCount) throw new Error(`no team ${teamId}`);
  return { secret, previousExpiresAt: expires };
}
