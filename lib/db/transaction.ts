import type pg from "pg";
import { getPool } from "@/lib/db/pool";

/** Opens a transaction on a client of `pool` with `begin`, runs `fn`, COMMITs, or ROLLBACKs and rethrows. */
async function transaction<T>(pool: pg.Pool, begin: string, fn: (client: pg.PoolClient, opened: unknown) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const opened = await client.query(begin);
    const result = await fn(client, opened);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs `fn` in one transaction on one connection of `pool` (default: the process-wide pool): COMMIT
 * when it resolves, ROLLBACK (and rethrow) when it throws.
 */
export function inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>, pool: pg.Pool = getPool()): Promise<T> {
  return transaction(pool, "BEGIN", (client) => fn(client));
}

/**
 * Like {@link inTransaction}, but BEGIN and a first statement `sql` (parameterless: it travels in the
 * same simple-protocol message, so one round trip instead of two) open the transaction; `fn` gets that
 * statement's rows. Throws like inTransaction.
 */
export function inTransactionFrom<R extends pg.QueryResultRow, T>(
  sql: string,
  fn: (client: pg.PoolClient, rows: R[]) => Promise<T>,
  pool: pg.Pool = getPool(),
): Promise<T> {
  return transaction(pool, `BEGIN; ${sql}`, (client, opened) => fn(client, (opened as pg.QueryResult<R>[])[1].rows));
}
