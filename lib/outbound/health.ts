/**
 * Outbound health (docs/outbound.md#events-attempts-metrics-health:
 * `{status, timestamp, workers: {name: {status}}}`), served without authentication at
 * `/outbound/api/v1/healthz` (self-hosted form only). Workers: `http-server` (this process, answering),
 * `delivery-worker` and `retry-scheduler` (the worker process, which runs deliveries and their scheduled
 * retries). A worker restarting within its budget is `degraded`; one that stopped (budget spent, or no
 * worker process connected) is `failed`. 200 while none has failed (overall `degraded` if one is), 503
 * otherwise. No error details are exposed.
 */
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { type PartHealth, supervisedParts } from "@/lib/supervisor";

type WorkerStatus = "healthy" | "degraded" | "failed";

/** The spec's status of a supervised part (`null`: not supervised here). */
export function workerStatus(part: PartHealth | null | undefined, presence: boolean): WorkerStatus {
  if (!part || part.state === "disabled" || part.state === "external") return presence ? "healthy" : "failed";
  if (part.state === "up") return "healthy";
  if (part.state === "starting" || part.state === "restarting") return "degraded";
  return "failed";
}

/** The overall status and HTTP status of a set of workers. */
export function overall(workers: Record<string, { status: WorkerStatus }>): { status: WorkerStatus; http: number } {
  const all = Object.values(workers).map((w) => w.status);
  if (all.includes("failed")) return { status: "failed", http: 503 };
  return { status: all.includes("degraded") ? "degraded" : "healthy", http: 200 };
}

/** `GET /outbound/api/v1/healthz`. Never throws (a database it cannot reach counts the worker as failed). */
export async function outboundHealth(): Promise<{ status: number; body: unknown }> {
  const parts = supervisedParts();
  let presence = false;
  try {
    const { rowCount } = await getPool().query(
      "SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'hookyard-worker %' AND datname = current_database() LIMIT 1",
    );
    presence = (rowCount ?? 0) > 0;
  } catch {
    presence = false;
  }
  const worker = getConfig().workerEnabled ? workerStatus(parts?.worker ?? null, presence) : workerStatus(null, presence);
  const workers = { "http-server": { status: "healthy" as WorkerStatus }, "delivery-worker": { status: worker }, "retry-scheduler": { status: worker } };
  const o = overall(workers);
  return { status: o.http, body: { status: o.status, timestamp: new Date().toISOString(), workers } };
}
