import type pg from "pg";
import { getPool } from "@/lib/db/pool";

/**
 * Runs `fn` in one transaction on one connection of `pool` (default: the process-wide pool): COMMIT
 * when it resolves, ROLLBACK (and rethrow) when it throws.
 */
export async function inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>, pool: pg.Pool = getPool()): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
