/**
 * `GET /healthz` (docs/architecture.md#processes, docs/operations.md "Metrics and health").
 * Anyone gets `{"status":"ok"}` (200) or `{"status":"unavailable"}` (503): nothing else, no error text, no
 * process ids. Operators (`Authorization: Bearer <METRICS_TOKEN>`, or a signed-in dashboard session
 * cookie) get each part's state, as JSON:
 *   { "status": "ok" | "degraded",
 *     "parts": { "web":      { "state": "up", "restarts": n, "last_exit": "…" | null, "pid": n | null },
 *                "worker":   { "state": "up" | "starting" | "restarting" | "down" | "disabled" | "stopped", … },
 *                "database": { "state": "up" | "down" | "restarting" | …, "error": "…" | null, … } } }
 * "ok" when every part is up (a worker run apart, WORKER_ENABLED=false, counts as up: "disabled"),
 * "degraded" otherwise. The HTTP status of both views depends on the database only: 200 when this web
 * process reaches it, 503 when it does not (a worker that is down shows in the operator view, not in the
 * status a probe reads). `database` is what this web process sees now (a `SELECT 1`, cached 500 ms) with
 * the supervisor's restart count; `worker` and the restarts come from the supervisor of `npm start`.
 */
import { getConfig } from "@/lib/config";
import { probeDatabase } from "@/lib/db/health";
import type { HttpResponse } from "@/lib/http/types";
import { bearerMatches, NO_STORE_JSON as NO_STORE } from "@/lib/observability/endpoints";
import { type PartHealth, supervisedParts } from "@/lib/supervisor";
import { userFromCookieHeader } from "@/lib/teams/dashboard-session";

const unsupervised = (state: PartHealth["state"]): PartHealth => ({ state, restarts: 0, last_exit: null, pid: null });

/**
 * Whether the request with these headers may see the operator view (of /healthz): the METRICS_TOKEN
 * as a bearer token, or a signed-in dashboard session (checked in the database). Never throws.
 */
async function isOperator(headers: { authorization?: string; cookie?: string }): Promise<boolean> {
  if (bearerMatches(headers.authorization, getConfig().metrics.token)) return true;
  if (!headers.cookie) return false;
  return (await userFromCookieHeader(headers.cookie).catch(() => null)) !== null;
}

/** The database as this web process sees it: up only when it reaches it and its supervisor (when it runs one) has not seen it exit. */
async function databaseState() {
  const supervised = supervisedParts();
  const db = await probeDatabase();
  const supervisedDb = supervised?.database;
  return { supervised, db, supervisedDb, dbUp: db.up && (!supervisedDb || supervisedDb.state === "up") };
}

/** `GET /readyz` of the web process: whether it can do its job now, i.e. reaches its database (a `SELECT 1`, cached 500 ms). Never throws. */
export async function webReady(): Promise<boolean> {
  return (await databaseState()).dbUp;
}

/**
 * Each part's health as the operator view of /healthz shows it, whether all are up (`ok`) and whether this
 * process reaches the database (`dbUp`, which alone decides the status code). Never throws (the System
 * page, lib/dashboard/system.ts, shows it too).
 */
export async function healthReport(): Promise<{
  ok: boolean;
  dbUp: boolean;
  parts: { web: PartHealth; worker: PartHealth; database: PartHealth & { error: string | null } };
}> {
  const { supervised, db, supervisedDb, dbUp } = await databaseState();
  const web: PartHealth = { ...(supervised?.web ?? unsupervised("up")), state: "up", pid: process.pid };
  const worker: PartHealth = getConfig().workerEnabled ? (supervised?.worker ?? unsupervised("down")) : unsupervised("disabled");
  const database = {
    ...(supervisedDb ?? unsupervised("external")),
    state: dbUp ? "up" : supervisedDb && supervisedDb.state !== "up" ? supervisedDb.state : "down",
    error: db.error,
  };
  const ok = dbUp && (worker.state === "up" || worker.state === "disabled");
  return { ok, dbUp, parts: { web, worker, database: database as PartHealth & { error: string | null } } };
}

/** The /healthz answer to a request with these headers (public or operator view, see above). Never throws. */
export async function healthz(headers: { authorization?: string; cookie?: string } = {}): Promise<HttpResponse> {
  if (!(await isOperator(headers))) {
    const { dbUp } = await databaseState();
    return { status: dbUp ? 200 : 503, headers: NO_STORE, body: dbUp ? '{"status":"ok"}' : '{"status":"unavailable"}' };
  }
  const { ok, dbUp, parts } = await healthReport();
  return { status: dbUp ? 200 : 503, headers: NO_STORE, body: JSON.stringify({ status: ok ? "ok" : "degraded", parts }) };
}
