/**
 * The System page's view of the installation (docs/operations.md "System page"), for operators: the work
 * waiting in each product's queue, each process's state (what /healthz shows, and the worker processes
 * connected to the database), the database's size and its largest tables and partitions, and the
 * retention setting. Read-only; every figure is read when asked (nothing cached).
 */
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { healthReport } from "@/lib/health";
import { AppError } from "@/lib/http/errors";

/** One queue: records waiting, those due now, and how long the oldest due one has waited (seconds; null when none is due). */
export type QueueFigures = { pending: number; due: number; oldest_due_seconds: number | null };

/** The answer of `GET /dashboard/api/system`. Sizes in bytes, ages in seconds, times ISO 8601. */
export type SystemReport = {
  generated_at: string;
  queues: {
    /** Events to deliver (QUEUED or SCHEDULED), requests not yet fanned out into events, and the worker's jobs (retries, delays). */
    gateway: { events: QueueFigures; fanout: QueueFigures; jobs: QueueFigures };
    /** Outbound deliveries still pending (first attempts and retries). */
    outbound: { deliveries: QueueFigures };
  };
  processes: {
    status: "ok" | "degraded";
    parts: Awaited<ReturnType<typeof healthReport>>["parts"];
    /** Worker processes connected to the database now (their presence connections), whoever started them. */
    workers: { name: string; connected_at: string; address: string | null }[];
  };
  database: {
    bytes: number;
    /** The 10 largest tables and partitions (with indexes and TOAST), largest first. */
    largest: { table: string; partition_of: string | null; bytes: number }[];
  };
  retention: { days: number; keeps_forever: boolean };
};

/** Rows of one queue aggregate: `pending`, `due`, `oldest` (seconds). */
type QueueRow = { pending: number; due: number; oldest: number | null };
const figures = (r: QueueRow | undefined): QueueFigures => ({ pending: r?.pending ?? 0, due: r?.due ?? 0, oldest_due_seconds: r?.oldest ?? null });

/** Most tables and partitions listed under `largest`. */
const LARGEST = 10;

/**
 * Reads the report. Throws AppError UNAVAILABLE when the database cannot be read (the processes'
 * states alone are in /healthz then).
 */
// Stays SQL: aggregates over the products' queue tables (through their partial "pending" indexes) and the catalog, which Prisma does not model.
export async function systemReport(): Promise<SystemReport> {
  const db = getPool();
  const q = async <T extends object>(sql: string): Promise<T[]> => (await db.query<T>(sql)).rows;
  const queue = (table: string, where: string, dueAt: string) =>
    q<QueueRow>(
      `SELECT count(*)::int AS pending, count(*) FILTER (WHERE ${dueAt} <= now())::int AS due,
              extract(epoch FROM now() - min(${dueAt}) FILTER (WHERE ${dueAt} <= now()))::float8 AS oldest
         FROM ${table} WHERE ${where}`,
    );
  const [health, data] = await Promise.all([
    healthReport(),
    Promise.all([
      queue("events", "status IN ('QUEUED', 'SCHEDULED')", "next_attempt_at"),
      queue("request_fanouts", "true", "created_at"),
      queue("graphile_worker._private_jobs", "attempts < max_attempts", "run_at"),
      queue("outbound_deliveries", "status = 'pending'", "next_attempt_at"),
      q<{ name: string; connected_at: Date; address: string | null }>(
        `SELECT application_name AS name, backend_start AS connected_at, client_addr::text AS address FROM pg_stat_activity
          WHERE application_name LIKE 'hookyard-worker %' AND datname = current_database() ORDER BY backend_start`,
      ),
      q<{ bytes: number }>("SELECT pg_database_size(current_database())::float8 AS bytes"),
      q<{ table: string; partition_of: string | null; bytes: number }>(
        `SELECT CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS table,
                (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid LIMIT 1) AS partition_of,
                pg_total_relation_size(c.oid)::float8 AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
          ORDER BY bytes DESC, c.relname LIMIT ${LARGEST}`,
      ),
    ]).catch((err: unknown) => {
      throw new AppError("UNAVAILABLE", `The database could not be read: ${(err as Error).message}`);
    }),
  ]);
  const [events, fanout, jobs, deliveries, workers, size, largest] = data;
  const days = getConfig().retentionDays;
  return {
    generated_at: new Date().toISOString(),
    queues: { gateway: { events: figures(events[0]), fanout: figures(fanout[0]), jobs: figures(jobs[0]) }, outbound: { deliveries: figures(deliveries[0]) } },
    processes: {
      status: health.ok ? "ok" : "degraded",
      parts: health.parts,
      workers: workers.map((w) => ({ name: w.name, connected_at: w.connected_at.toISOString(), address: w.address })),
    },
    database: { bytes: size[0]?.bytes ?? 0, largest },
    retention: { days, keeps_forever: days === 0 },
  };
}
