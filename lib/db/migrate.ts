import { applyMigrations } from "@/lib/db/schema-engine";
import { directDatabaseUrl } from "@/lib/db/pool";
import { quietGraphileLogger } from "@/lib/db/graphile-logger";
import { migrationStatus } from "@/lib/db/migration-status";

/**
 * Brings the database at `url` up to date with `prisma/migrations` and graphile-worker's schema.
 * Serialised across processes with a session advisory lock (two servers starting together apply once),
 * so when `url` is DATABASE_URL behind a pooler it runs on DIRECT_DATABASE_URL (docs/operations.md#pooler).
 * Returns the names of the migrations applied now. Throws on SQL errors.
 */
export async function migrate(url: string): Promise<string[]> {
  const connectionString = directDatabaseUrl(url);
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(727274001)");
    // The schema engine (WebAssembly, seconds to load on a busy machine) only when there is something to apply.
    const applied = (await migrationStatus(connectionString)).pending.length ? await applyMigrations(connectionString) : [];
    // The delivery engine's job tables (graphile-worker's own schema, versioned by graphile-worker).
    const { runMigrations } = await import("graphile-worker");
    await runMigrations({ connectionString, logger: quietGraphileLogger() });
    return applied;
  } finally {
    await client.query("SELECT pg_advisory_unlock(727274001)").catch(() => {});
    await client.end();
  }
}
