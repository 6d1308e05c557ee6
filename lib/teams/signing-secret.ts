import { decryptSecret, encryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { createToken } from "@/lib/ids";

/** A new signing secret: 32 random bytes, base64url. */
export const newSigningSecret = () => createToken(32);

/** A team's stored signing secrets, encrypted (the columns of `teams`, named as delivery rows name them). */
type EncryptedSigningSecrets = { s: string; p: string | null; e: Date | null };

/**
 * The team's signing secrets as stored (encrypted), giving the team its first secret when it has none
 * (teams stored before every team got one at creation). Throws when the team does not exist.
 */
export async function storedSigningSecrets(teamId: string): Promise<EncryptedSigningSecrets> {
  const prisma = getPrisma();
  const select = { signingSecretEncrypted: true, previousSigningSecretEncrypted: true, previousSigningSecretExpiresAt: true } as const;
  let row = await prisma.team.findUnique({ where: { id: teamId }, select });
  if (row && !row.signingSecretEncrypted) {
    // Another process may be giving it one at the same moment: the first secret stays (set only where none is; else read the winner's).
    const [given] = await prisma.team.updateManyAndReturn({
      where: { id: teamId, signingSecretEncrypted: null },
      data: { signingSecretEncrypted: encryptSecret(newSigningSecret()) },
      select,
    });
    row = given ?? (await prisma.team.findUnique({ where: { id: teamId }, select }));
  }
  if (!row) throw new Error(`no team ${teamId}`);
  return { s: row.signingSecretEncrypted!, p: row.previousSigningSecretEncrypted, e: row.previousSigningSecretExpiresAt };
}

/**
 * The team's signing secrets: `current` signs `x-gateway-signature`; `previous` signs
 * `x-gateway-signature-2` while the rotation delay it was given still runs
 * (docs/pipeline.md#verifying-the-signature-in-your-receiver). Throws when the team does not exist.
 */
export async function getSigningSecrets(
  teamId: string,
  now = new Date(),
): Promise<{ current: string; previous: string | null; previousExpiresAt: Date | null }> {
  const row = await storedSigningSecrets(teamId);
  const live = row.p && row.e && row.e > now;
  return { current: decryptSecret(row.s), previous: live ? decryptSecret(row.p!) : null, previousExpiresAt: live ? row.e : null };
}

/**
 * Rotates the signing secret: a new one signs from now on; the old one keeps signing as
 * `x-gateway-signature-2` for `delayMs` (0 = dropped at once). Returns the new secret.
 */
export async function rotateSigningSecret(teamId: string, delayMs: number): Promise<{ secret: string; previousExpiresAt: Date | null }> {
  const secret = newSigningSecret();
  const expires = delayMs > 0 ? new Date(Date.now() + delayMs) : null;
  // Stays SQL: one atomic UPDATE that moves the current secret into `previous` (Prisma cannot set a column from another).
  const { rowCount } = await getPool().query(
    `UPDATE teams SET previous_signing_secret_encrypted = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE signing_secret_encrypted END,
                      previous_signing_secret_expires_at = $3, signing_secret_encrypted = $2, updated_at = now()
      WHERE id = $1`,
    [teamId, encryptSecret(secret), expires],
  );
  if (!rowCount) throw new Error(`no team ${teamId}`);
  return { secret, previousExpiresAt: expires };
}
