import { getConfig } from "@/lib/config";
import { startEmbeddedPostgres } from "@/lib/db/embedded";

/**
 * Runs `fn` with a database URL: DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR,
 * started for the call and stopped afterwards. For one-shot scripts (migrations); the server keeps
 * its embedded database running instead (scripts/start.ts).
 */
export async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const config = getConfig();
  if (config.databaseUrl) return fn(config.databaseUrl);
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
  try {
    return await fn(pg.url);
  } finally {
    await pg.stop();
  }
}
