/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database, and prints
 * each one applied (docs/operations.md "Migrations"). Refuses, in one sentence and with exit code 1, a
 * database migrated by a newer Hookyard (docs/operations.md "Upgrades"). Needs no SECRET_KEY.
 */
import "./require-node";
import { migrate } from "@/lib/db/migrate";
import { assertSchemaUsable } from "@/lib/db/migration-status";
import { withDatabase } from "@/lib/db/with-database";
import { StartFailure } from "@/lib/processes";

try {
  const applied = await withDatabase(async (url) => {
    await assertSchemaUsable(url, true);
    return migrate(url);
  });
  if (!applied.length) console.log("database is up to date");
  else console.log(`applied ${applied.length} migration${applied.length === 1 ? "" : "s"}:\n${applied.map((n) => `  ${n}`).join("\n")}`);
} catch (err) {
  if (!(err instanceof StartFailure)) throw err;
  console.error(`[hookyard] ${err.message}`);
  process.exitCode = 1;
}
