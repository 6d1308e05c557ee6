/**
 * `GET /healthz` (docs/architecture.md#processes): each part's state, as JSON.
 *   { "status": "ok" | "degraded",
 *     "parts": { "web":      { "state": "up", "restarts": n, "last_exit": "…" | null, "pid": n | null },
 *                "worker":   { "state": "up" | "starting" | "restarting" | "down" | "disabled" | "stopped", … },
 *                "database": { "state": "up" | "down" | "restarting" | …, "error": "…" | null, … } } }
 * 200 when every part is up (a worker run apart, WORKER_ENABLED=false, counts as up: "disabled"), 503
 * otherwise. `database` is what this web process sees now (a `SELECT 1`, cached 1 s) with the
 * supervisor's restart count; `worker` and the restarts come from the supervisor of `npm start`.
 */
import { getConfig } from "@/lib/config";
import { probeDatabase } from "@/lib/db/health";
import type { HttpResponse } from "@/lib/http/types";
import { type PartHealth, supervisedParts } from "@/lib/supervisor";

const unsupervised = (state: PartHealth["state"]): PartHealth => ({ state, restarts: 0, last_exit: null, pid: null });

/** Each part's health as /healthz shows it, and whether all are up. Never throws (lib/dashboard/system.ts shows it too). */
export async function healthReport(): Promise<{
  ok: boolean;
  parts: { web: PartHealth; worker: PartHealth; database: PartHealth & { error: string | null } };
}> {
  const supervised = supervisedParts();
  const db = await probeDatabase();
  const web: PartHealth = { ...(supervised?.web ?? unsupervised("up")), state: "up", pid: process.pid };
  const worker: PartHealth = getConfig().workerEnabled ? (supervised?.worker ?? unsupervised("down")) : unsupervised("disabled");
  // Up only when this process reaches it and its supervisor (when it runs one) has not seen it exit.
  const supervisedDb = supervised?.database;
  const dbUp = db.up && (!supervisedDb || supervisedDb.state === "up");
  const database = {
    ...(supervisedDb ?? unsupervised("external")),
    state: dbUp ? "up" : supervisedDb && supervisedDb.state !== "up" ? supervisedDb.state : "down",
    error: db.error,
  };
  const ok = dbUp && (worker.state === "up" || worker.state === "disabled");
  return { ok, parts: { web, worker, database: database as PartHealth & { error: string | null } } };
}

/** The /healthz answer. Never throws. */
export async function healthz(): Promise<HttpResponse> {
  const { ok, parts } = await healthReport();
  const { web, worker, database } = parts;
  return {
    status: ok ? 200 : 503,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify({ status: ok ? "ok" : "degraded", parts: { web, worker, database } }),
  };
}
