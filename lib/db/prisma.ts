/**
 * Prisma Client, the typed data layer of plain CRUD (docs/architecture.md "Data access"): one client per
 * process over the shared pg pool (lib/db/pool.ts) through @prisma/adapter-pg, which sends unnamed
 * statements and keeps no session state, so it works behind a transaction-mode pooler. Hot paths
 * (ingest writer, fan-out, claims and leases, dispatch, metrics, retention DDL) keep hand-written SQL.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";

const globalForPrisma = globalThis as unknown as { __hookyardPrisma?: { client: PrismaClient; pool: pg.Pool } };

/**
 * The process-wide Prisma client, over the shared pg pool. After closePool() the next getPool() makes a
 * new pool; the client follows it (a client over an ended pool would fail every query).
 */
export function getPrisma(): PrismaClient {
  const pool = getPool();
  const current = globalForPrisma.__hookyardPrisma;
  if (current?.pool === pool) return current.client;
  const client = new PrismaClient({ adapter: new PrismaPg(pool) });
  globalForPrisma.__hookyardPrisma = { client, pool };
  return client;
}

/** The client or an interactive transaction's client: what store functions take to run inside a caller's transaction. */
export type PrismaDb = PrismaClient | Prisma.TransactionClient;

/**
 * Options of interactive transactions (`$transaction(fn, transactionOptions())`): wait for a connection
 * as long as the pg pool would (DB_CONNECT_TIMEOUT_MS) rather than Prisma's 2 s, and let the body run up
 * to a minute (Prisma's default is 5 s; raw SQL transactions have no limit).
 */
export const transactionOptions = () => ({ maxWait: getConfig().dbConnectTimeoutMs, timeout: 60_000 });

/** True when `err` is Prisma's unique-constraint violation (P2002). */
export const isUniqueViolation = (err: unknown): boolean => err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";

/** True when `err` is Prisma's "record to update or delete not found" (P2025). */
export const isRecordNotFound = (err: unknown): boolean => err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2025";

/**
 * A SELECT list that reads a table's columns under their Prisma field names (`s.team_id AS "teamId"`),
 * so a list query that stays hand-written SQL returns rows of the Prisma model's shape. `fields` is the
 * model's `Prisma.<Model>ScalarFieldEnum`; columns are the fields in snake_case (prisma/schema.prisma's
 * convention) unless `renamed` names another (`{ connectionId: "webhook_id" }`, a field whose `@map` differs).
 * `alias` is the table's alias in the query (a trusted constant).
 */
export function modelColumns(alias: string, fields: Record<string, string>, renamed: Record<string, string> = {}): string {
  return Object.values(fields)
    .map((f) => {
      const column = columnName(f, renamed);
      return column === f ? `${alias}.${f}` : `${alias}.${column} AS "${f}"`;
    })
    .join(", ");
}

/** The column of Prisma field `field`: `renamed[field]`, else the field in snake_case (`teamId` → `team_id`). */
export const columnName = (field: string, renamed: Record<string, string> = {}): string =>
  renamed[field] ?? field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export { Prisma } from "@/lib/generated/prisma/client";

/** `value` (validated JSON: rule lists, trigger configs) as what Prisma writes to a `jsonb` column. */
export const asJson = (value: unknown): Prisma.InputJsonValue => value as Prisma.InputJsonValue;
