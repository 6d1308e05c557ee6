import pg from "pg";
import { getConfig } from "@/lib/config";
import { logger } from "@/lib/log";

// One pool per process, shared by the hot path (raw SQL), Prisma (through its pg adapter) and the
// route handlers bundled by Next.js, which load their own copy of this module: hence globalThis.
const globalForPool = globalThis as unknown as { __hookyardPool?: pg.Pool };

// Return int8 as number and keep timestamptz as Date (pg's defaults otherwise).
pg.types.setTypeParser(20, (v) => Number(v));

/** The database URL this process uses. Throws when neither DATABASE_URL nor the embedded server set it. */
export function databaseUrl(): string {
  const url = getConfig().databaseUrl ?? process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it when it starts the embedded PostgreSQL)");
  return url;
}

/** The process-wide pg pool (size DB_POOL_SIZE). */
export function getPool(): pg.Pool {
  if (!globalForPool.__hookyardPool) {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: getConfig().dbPoolSize, idleTimeoutMillis: 30_000 });
    // An idle client's error (e.g. the server restarted) must not crash the process.
    pool.on("error", (err) => logger("db").warn("idle client error", err.message));
    globalForPool.__hookyardPool = pool;
  }
  return globalForPool.__hookyardPool;
}

/** Closes the process-wide pool (server shutdown, tests). */
export async function closePool(): Promise<void> {
  const pool = globalForPool.__hookyardPool;
  globalForPool.__hookyardPool = undefined;
  await pool?.end();
}
