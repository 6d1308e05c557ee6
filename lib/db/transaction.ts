import type pg from "pg";
import { beginStatement, getPool } from "@/lib/db/pool";

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
  return transaction(pool, beginStatement(pool), (client) => fn(client));
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
  return transaction(pool, `${beginStatement(pool)}; ${sql}`, (client, opened) => fn(client, (opened as pg.QueryResult<R>[]).at(-1)!.rows));
}

/**
 * Runs `fn` while this process holds the advisory lock `key` (an integer constant), serialising it across
 * processes. The lock is transaction-scoped (`pg_advisory_xact_lock` in a transaction kept open around
 * `fn`, released by its COMMIT or ROLLBACK), so it holds behind a transaction-mode pooler, where a session
 * lock and its unlock could land on different server connections (docs/operations.md#pooler). `fn` gets
 * that transaction's client for reads; writes it makes elsewhere commit on their own. Throws what `fn` throws.
 */
export function withAdvisoryLock<T>(key: number, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransactionFrom(`SELECT pg_advisory_xact_lock(${Math.trunc(key)})`, (client) => fn(client));
}
