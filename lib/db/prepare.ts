/**
 * What every process checks before it serves (docs/operations.md "Migrations" and "One key"): a key that
 * all processes of the database share, a schema this code knows (migrated first when MIGRATE_ON_START),
 * and the key's fingerprint in the database.
 */
import { getConfig } from "@/lib/config";
import { checkSecretKey } from "@/lib/crypto/key-check";
import { missingSecretKeyProblem } from "@/lib/crypto/secrets";
import { migrate } from "@/lib/db/migrate";
import { assertSchemaUsable } from "@/lib/db/migration-status";
import { StartFailure } from "@/lib/processes";

/**
 * Readies the database at `connectionString` for this process. `migrate` (default MIGRATE_ON_START) applies
 * pending migrations, under migrate()'s advisory lock; otherwise pending migrations refuse. `log` gets one
 * line per event. Returns the migrations applied now.
 * @throws StartFailure (one sentence of cause and remedy): SECRET_KEY missing with an external database, a
 *   database migrated by a newer Hookyard, migrations pending (without `migrate`), or another key's fingerprint.
 */
export async function prepareDatabase(connectionString: string, opts: { migrate?: boolean; log?: (m: string) => void } = {}): Promise<string[]> {
  const keyProblem = missingSecretKeyProblem();
  if (keyProblem) throw new StartFailure(keyProblem);
  const migrateNow = opts.migrate ?? getConfig().migrateOnStart;
  // Checked before migrating: older code must not apply anything to a database a newer Hookyard migrated.
  await assertSchemaUsable(connectionString, migrateNow);
  let applied: string[] = [];
  if (migrateNow) {
    applied = await migrate(connectionString);
    if (applied.length) opts.log?.(`applied migrations: ${applied.join(", ")}`);
  }
  if ((await checkSecretKey(connectionString)) === "stored") opts.log?.("stored the fingerprint of the secret key in the database");
  return applied;
}
