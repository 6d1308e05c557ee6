/**
 * One key for every process of a database (docs/operations.md "One key"): the database keeps the fingerprint
 * of the key its secrets are encrypted with (`secret_key_check`, written by the first process), and a
 * process whose key gives another fingerprint refuses to start.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import pg from "pg";
import { getConfig } from "@/lib/config";
import { decryptSecret, keyFingerprint } from "@/lib/crypto/secrets";
import { StartFailure } from "@/lib/processes";

/** The sentence a process with another key refuses with. */
function mismatch(): string {
  return getConfig().secretKey
    ? 'SECRET_KEY is not the key this database\'s secrets are encrypted with: set it to the value the other Hookyard processes of this database use (or the one of the backup it was restored from; docs/operations.md "One key").'
    : `The key in ${getConfig().dataDir}/secret.key is not the one this database's secrets are encrypted with: restore that file from the backup of this database, or set SECRET_KEY to the key it was encrypted with (docs/operations.md "One key").`;
}

/**
 * Checks this process's key against the database at `connectionString` (migrated): the first process
 * stores the fingerprint, after checking that its key decrypts a secret already there (a database of
 * an earlier version has secrets but no fingerprint). Returns "stored" or "matched".
 * @throws StartFailure (one sentence) when the key does not match, or SECRET_KEY is missing
 *   (lib/crypto/secrets.ts missingSecretKeyProblem).
 */
export async function checkSecretKey(connectionString: string): Promise<"stored" | "matched"> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    let { rows } = await client.query<{ salt: string; fingerprint: string }>("SELECT salt, fingerprint FROM secret_key_check WHERE id = 1");
    let outcome: "stored" | "matched" = "matched";
    if (!rows.length) {
      // A secret written before fingerprints existed (the gateway team's signing secret) must decrypt under this key.
      const { rows: sample } = await client.query<{ s: string }>(
        "SELECT signing_secret_encrypted AS s FROM teams WHERE signing_secret_encrypted IS NOT NULL ORDER BY created_at LIMIT 1",
      );
      if (sample.length) {
        try {
          decryptSecret(sample[0].s);
        } catch {
          throw new StartFailure(mismatch());
        }
      }
      const salt = randomBytes(16).toString("base64url");
      // Two processes starting at once: the first insert wins and both compare with what it stored.
      const inserted = await client.query("INSERT INTO secret_key_check (id, salt, fingerprint) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING", [
        salt,
        keyFingerprint(salt),
      ]);
      if (inserted.rowCount === 1) outcome = "stored";
      ({ rows } = await client.query<{ salt: string; fingerprint: string }>("SELECT salt, fingerprint FROM secret_key_check WHERE id = 1"));
    }
    const expected = Buffer.from(rows[0].fingerprint);
    const actual = Buffer.from(keyFingerprint(rows[0].salt));
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw new StartFailure(mismatch());
    return outcome;
  } finally {
    await client.end().catch(() => {});
  }
}
