/**
 * The operations endpoints (docs/operations.md "Metrics and health"): `GET /metrics` (Prometheus text),
 * `GET /livez` (the process answers), `GET /readyz` (it can do its job), the operator check of
 * `Authorization: Bearer <METRICS_TOKEN>`, and the listener of their own that each process opens on
 * METRICS_PORT (web and worker alike).
 */
import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { writeNodeResponse } from "@/lib/http/node";
import type { HttpResponse } from "@/lib/http/types";
import { metricsText } from "@/lib/observability/metrics";
import { StartFailure } from "@/lib/processes";

/** Headers of the JSON answers of the operations endpoints (never cached). */
export const NO_STORE_JSON = { "content-type": "application/json", "cache-control": "no-store" };
const NO_STORE = NO_STORE_JSON;

/** `GET /metrics`: every series of this process in the Prometheus text format (200). */
export async function metricsResponse(): Promise<HttpResponse> {
  const { contentType, body } = await metricsText();
  return { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" }, body };
}

/** `GET /livez`: 200 `{"status":"ok"}` whenever the process answers; it touches nothing else (no database). */
export function livezResponse(): HttpResponse {
  return { status: 200, headers: NO_STORE, body: '{"status":"ok"}' };
}

/** `GET /readyz`: 200 `{"status":"ready"}` when `ready`, else 503 `{"status":"unavailable"}` (no reason: the operator view of /healthz has it). */
export function readyzResponse(ready: boolean): HttpResponse {
  return ready ? { status: 200, headers: NO_STORE, body: '{"status":"ready"}' } : { status: 503, headers: NO_STORE, body: '{"status":"unavailable"}' };
}

/**
 * True when `authorization` is `Bearer <token>` for a configured `token` (compared in constant time);
 * false without a token or header.
 */
export function bearerMatches(authorization: string | undefined, token: string | undefined): boolean {
  if (!token || !authorization) return false;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `GET /metrics` on the main port of the web server: 404 when no METRICS_TOKEN is configured (as if
 * there were no such path), 401 without `Authorization: Bearer <token>`, the metrics otherwise.
 */
export async function protectedMetricsResponse(authorization: string | undefined, token: string | undefined): Promise<HttpResponse> {
  if (!token) return { status: 404, headers: NO_STORE, body: '{"status":404,"message":"Not found"}' };
  if (!bearerMatches(authorization, token)) {
    return { status: 401, headers: { ...NO_STORE, "www-authenticate": 'Bearer realm="metrics"' }, body: '{"status":401,"message":"Unauthorized"}' };
  }
  return metricsResponse();
}

export type MetricsListener = { port: number; close: () => Promise<void> };

/**
 * Opens the metrics listener on `port` of `host` (0: any free port): `GET|HEAD /metrics`, `/livez` and
 * `/readyz` (`ready()` decides; it must not throw), without credentials (keep the port private); 404
 * for other paths, 405 for other methods. Resolves once listening; rejects with a StartFailure (one
 * sentence of cause and remedy) when the port cannot be bound.
 */
export async function startMetricsListener(opts: { port: number; host: string; ready: () => Promise<boolean> }): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const answer = async (): Promise<HttpResponse> => {
      if (req.method !== "GET" && req.method !== "HEAD") return { status: 405, headers: { ...NO_STORE, allow: "GET, HEAD" }, body: '{"status":405}' };
      if (path === "/metrics") return metricsResponse();
      if (path === "/livez") return livezResponse();
      if (path === "/readyz") return readyzResponse(await opts.ready());
      return { status: 404, headers: NO_STORE, body: '{"status":404,"message":"Not found"}' };
    };
    answer().then(
      (r) => writeNodeResponse(res, req.method === "HEAD" ? { ...r, body: undefined } : r),
      () => writeNodeResponse(res, { status: 500, headers: NO_STORE, body: '{"status":500}' }),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new StartFailure(
          `The metrics listener cannot use port ${opts.port} (${err.code ?? err.message}); stop what uses it or set METRICS_PORT to another port (npm start's worker takes METRICS_PORT + 1).`,
        ),
      ),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
