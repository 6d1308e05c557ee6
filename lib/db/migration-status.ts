/**
 * Whether a database's schema is the one this code expects (docs/operations.md "Migrations" and "Upgrades"):
 * the migrations recorded in `_prisma_migrations` against those under `prisma/migrations/`.
 */
import pg from "pg";
import { StartFailure } from "@/lib/processes";
import { localMigrationNames } from "@/lib/db/schema-engine";

/**
 * A migration whose name ends with this only adds what older code ignores (tables, nullable or defaulted
 * columns, indexes): older code still starts against a database that has it (docs/operations.md "Upgrades").
 */
export const EXPAND_SUFFIX = "_expand";

export type MigrationStatus = {
  /** Migrations of this code the database has not (successfully) applied, oldest first. */
  pending: string[];
  /** Migrations the database has applied that this code does not have, oldest first. */
  unknown: string[];
};

/**
 * Compares the finished, not rolled back rows of `_prisma_migrations` in the database at `connectionString`
 * with `prisma/migrations/` (a database without that table has every migration pending). Throws on
 * connection errors.
 */
export async function migrationStatus(connectionString: string): Promise<MigrationStatus> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows: table } = await client.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
    const applied = table[0].exists
      ? (
          await client.query<{ migration_name: string }>(
            "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
          )
        ).rows.map((r) => r.migration_name)
      : [];
    const local = await localMigrationNames();
    const appliedSet = new Set(applied);
    const localSet = new Set(local);
    return { pending: local.filter((n) => !appliedSet.has(n)), unknown: [...new Set(applied)].filter((n) => !localSet.has(n)).sort() };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The refusal for a database migrated by a newer Hookyard, or null: unknown migrations that are not
 * expand-only ({@link EXPAND_SUFFIX}) mean this code may read or write what no longer exists.
 */
export function newerSchemaProblem(status: MigrationStatus): string | null {
  const blocking = status.unknown.filter((n) => !n.endsWith(EXPAND_SUFFIX));
  if (!blocking.length) return null;
  return `The database was migrated by a newer Hookyard (migration ${blocking.at(-1)}); run that version or restore a backup taken before it (docs/operations.md "Upgrades").`;
}

/** The refusal for a database that lacks migrations of this code, or null. */
export function pendingProblem(status: MigrationStatus): string | null {
  const n = status.pending.length;
  if (!n) return null;
  return `${n} migration${n === 1 ? " is" : "s are"} pending (from ${status.pending[0]}): run npm run db:migrate with this version, or start with MIGRATE_ON_START=true.`;
}

/**
 * Throws a {@link StartFailure} (one sentence) when the database at `connectionString` was migrated by a
 * newer Hookyard, or, unless `allowPending`, when migrations of this code are pending. Returns the status.
 */
export async function assertSchemaUsable(connectionString: string, allowPending: boolean): Promise<MigrationStatus> {
  const status = await migrationStatus(connectionString);
  const problem = newerSchemaProblem(status) ?? (allowPending ? null : pendingProblem(status));
  if (problem) throw new StartFailure(problem);
  return status;
}
