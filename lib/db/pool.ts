import pg from "pg";
import { getConfig } from "@/lib/config";
import { logger } from "@/lib/log";

// One pool per process, shared by the hot path (raw SQL), Prisma (through its pg adapter) and the
// route handlers bundled by Next.js, which load their own copy of this module: hence globalThis.
const globalForPool = globalThis as unknown as { __hookyardPool?: pg.Pool; __hookyardBackgroundPool?: pg.Pool; __hookyardSessionPool?: pg.Pool };

// Return int8 as number and keep timestamptz as Date (pg's defaults otherwise).
pg.types.setTypeParser(20, (v) => Number(v));

/** The database URL this process uses. Throws when neither DATABASE_URL nor the embedded server set it. */
export function databaseUrl(): string {
  const url = getConfig().databaseUrl ?? process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it when it starts the embedded PostgreSQL)");
  return url;
}

/**
 * The URL of a direct (session) connection to the database (docs/operations.md#pooler): DIRECT_DATABASE_URL
 * when it and DATABASE_URL are set and `url` is DATABASE_URL (default), else `url` itself (a script's own database is used as
 * given). For LISTEN, session advisory locks, migrations and worker presence, which a transaction-mode
 * pooler breaks. Throws like {@link databaseUrl}.
 */
export function directDatabaseUrl(url?: string): string {
  const { directDatabaseUrl: direct, databaseUrl: configured } = getConfig();
  if (direct && configured && (url === undefined || url === configured)) return direct;
  return url ?? databaseUrl();
}

/**
 * True when DATABASE_URL is a transaction-mode pooler (PgBouncer `pool_mode = transaction`, RDS Proxy,
 * pooled URLs of hosted PostgreSQL): DIRECT_DATABASE_URL is set and differs from it. The pools then send
 * no startup `options`, prepare no named statements and keep no session state (docs/operations.md#pooler).
 */
export function behindPooler(): boolean {
  const { directDatabaseUrl: direct, databaseUrl: configured } = getConfig();
  return Boolean(direct && configured && direct !== configured);
}

/** `config` without its statement `name` (a Submittable such as pg.Query is left as it is). */
function withoutName(config: unknown): unknown {
  if (!config || typeof config !== "object" || !("name" in config) || typeof (config as { submit?: unknown }).submit === "function") return config;
  const copy = { ...(config as Record<string, unknown>) };
  delete copy.name;
  return copy;
}

/**
 * A pg client that sends every statement unnamed (pg prepares a named statement once per connection and
 * then only refers to it by name; behind a transaction-mode pooler the next transaction may run on another
 * server connection, where that name does not exist: PgBouncer before 1.21 has no prepared-statement support).
 * Unnamed statements are parsed, bound and run in one round of messages, which any pooler passes.
 */
class UnnamedStatementClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const named = super.query.bind(this) as (...args: unknown[]) => unknown;
    Object.assign(this, { query: (config: unknown, ...rest: unknown[]) => named(withoutName(config), ...rest) });
  }
}

/** The pool settings of DATABASE_URL: behind a pooler, every statement unnamed. */
const poolerSafe = (): Partial<pg.PoolConfig> => (behindPooler() ? { Client: UnnamedStatementClient } : {});

/** `BEGIN` of a transaction on `pool`: on the background pool behind a pooler, with the asynchronous commit that its startup `options` give it when direct. */
export function beginStatement(pool: pg.Pool): string {
  return pool === globalForPool.__hookyardBackgroundPool && behindPooler() ? "BEGIN; SET LOCAL synchronous_commit = off" : "BEGIN";
}

/**
 * Logs instead of crashing on the `error` events of `pool` and of every client it makes, idle or checked
 * out (crashes are survived, docs/architecture.md#processes: PostgreSQL killed or restarted mid-session emits 57P01 or a reset on each connection;
 * an `error` event without a listener would end the process). The query in flight, if any, rejects as
 * well, and the pool replaces the broken client.
 */
function handleClientErrors(pool: pg.Pool): void {
  const warn = (err: Error) => logger("db").warn("database connection lost", err.message);
  pool.on("error", warn);
  pool.on("connect", (client) => client.on("error", warn));
}

/** The process-wide pg pool (size DB_POOL_SIZE; a connection attempt gives up after DB_CONNECT_TIMEOUT_MS). */
export function getPool(): pg.Pool {
  if (!globalForPool.__hookyardPool) {
    const pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: getConfig().dbPoolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: getConfig().dbConnectTimeoutMs,
      application_name: "hookyard",
      ...poolerSafe(),
    });
    handleClientErrors(pool);
    globalForPool.__hookyardPool = pool;
  }
  return globalForPool.__hookyardPool;
}

/**
 * The pool of the pipeline's background work (fan-out, delivery bookkeeping, jobs): its sessions commit
 * with `synchronous_commit = off`, so a commit does not wait for the WAL flush (behind a pooler, which
 * rejects that startup option, only its transactions opened by lib/db/transaction.ts do: {@link beginStatement}). Safe because everything
 * written there can be redone: the request itself is committed durably by ingestion (getPool) before
 * its sender is answered, and a bookkeeping commit lost in a crash only means a fan-out or delivery is
 * made again (at-least-once). Never use it for writes that must survive a crash on their own.
 */
export function getBackgroundPool(): pg.Pool {
  if (!globalForPool.__hookyardBackgroundPool) {
    const pooled = behindPooler();
    const pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: getConfig().dbPoolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: getConfig().dbConnectTimeoutMs,
      ...(pooled ? {} : { options: "-c synchronous_commit=off" }),
      application_name: "hookyard-background",
      ...poolerSafe(),
    });
    handleClientErrors(pool);
    // Behind a pooler the backend pid of the handshake is the pooler's invention: nothing to renice.
    const nice = Number(process.env.HOOKYARD_DB_BACKEND_NICE ?? 0);
    if (nice > 0 && !pooled) pool.on("connect", (client) => void lowerBackendPriority(client, nice));
    globalForPool.__hookyardBackgroundPool = pool;
  }
  return globalForPool.__hookyardBackgroundPool;
}

/** Connections of {@link getSessionPool} behind a pooler: graphile-worker fetches and completes jobs in batches. */
const SESSION_POOL_MAX = 8;

/**
 * The pool of background work that needs real sessions (docs/operations.md#pooler): graphile-worker
 * (LISTEN, named prepared statements) and retention (a session advisory lock, `SET lock_timeout` for its
 * DDL). Behind a pooler, a small pool on DIRECT_DATABASE_URL with the background pool's asynchronous
 * commit; otherwise the background pool itself.
 */
export function getSessionPool(): pg.Pool {
  if (!behindPooler()) return getBackgroundPool();
  if (!globalForPool.__hookyardSessionPool) {
    const pool = new pg.Pool({
      connectionString: directDatabaseUrl(),
      max: Math.min(getConfig().dbPoolSize, SESSION_POOL_MAX),
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: getConfig().dbConnectTimeoutMs,
      options: "-c synchronous_commit=off",
      application_name: "hookyard-session",
    });
    handleClientErrors(pool);
    globalForPool.__hookyardSessionPool = pool;
  }
  return globalForPool.__hookyardSessionPool;
}

/**
 * Gives the PostgreSQL backend serving `client` the CPU priority `nice`, when that backend runs on this
 * machine and this process may renice it (the embedded PostgreSQL under `npm start`): the worker's
 * queries then yield the CPU to ingestion's, as the worker process itself does (WORKER_NICE).
 * The backend's pid comes from the connection handshake (`processID`, what `pg_backend_pid()` returns),
 * so no query competes with the first one the pool's user sends. Best effort: any failure leaves the
 * priority as it was.
 */
async function lowerBackendPriority(client: pg.PoolClient, nice: number): Promise<void> {
  const pid = (client as unknown as { processID?: number | null }).processID;
  if (!pid) return;
  try {
    const os = await import("node:os");
    os.setPriority(pid, nice);
  } catch {
    // another machine, or not permitted
  }
}

/** Closes the process-wide pools (server shutdown, tests). */
export async function closePool(): Promise<void> {
  const pools = [globalForPool.__hookyardPool, globalForPool.__hookyardBackgroundPool, globalForPool.__hookyardSessionPool];
  globalForPool.__hookyardPool = undefined;
  globalForPool.__hookyardBackgroundPool = undefined;
  globalForPool.__hookyardSessionPool = undefined;
  await Promise.all(pools.flatMap((p) => (p ? [p.end()] : [])));
}

/**
 * Connection counts of the process-wide pools that exist in this process (none is created here), for
 * `hookyard_db_pool_connections` (docs/operations.md "Metrics and health"): `pool` is "main" (getPool) or
 * "background" (getBackgroundPool); `total`, `idle` and `waiting` are pg's totalCount, idleCount and
 * waitingCount (clients, clients, queued requests for a client).
 */
export function poolStats(): { pool: "main" | "background"; total: number; idle: number; waiting: number }[] {
  const stats: ReturnType<typeof poolStats> = [];
  for (const [pool, p] of [
    ["main", globalForPool.__hookyardPool],
    ["background", globalForPool.__hookyardBackgroundPool],
  ] as const) {
    if (p) stats.push({ pool, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount });
  }
  return stats;
}
