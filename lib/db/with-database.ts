import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { embeddedUrl, pgDataDir, startEmbeddedPostgres } from "@/lib/db/embedded";
import { isAlive } from "@/lib/processes";

/**
 * Runs `fn` with a database URL: DATABASE_URL when set; else the embedded PostgreSQL under DATA_DIR,
 * used as it is (on the port it listens on) when a running Hookyard already started it, otherwise started for the call and stopped
 * afterwards. For one-shot scripts (migrations, keys).
 */
export async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const config = getConfig();
  if (config.databaseUrl) return fn(config.databaseUrl);
  const pidFile = path.join(pgDataDir(config.dataDir), "postmaster.pid");
  // postmaster.pid: line 1 the pid, line 4 the port it listens on (whatever EMBEDDED_PG_PORT the server was started with).
  const lines = existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n") : [];
  const running = lines.length > 0 && isAlive(Number(lines[0]));
  if (running) return fn(embeddedUrl(config.dataDir, Number(lines[3]) || config.embeddedPgPort));
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
  try {
    return await fn(pg.url);
  } finally {
    await pg.stop();
  }
}
