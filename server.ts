/**
 * The production HTTP server (Next.js's custom-server pattern; docs/architecture.md#one-server-two-routers).
 * It serves itself what must not pay Next.js's per-request cost or cannot live beside a page:
 *   /e/{id}[/{path…}]              ingestion (every method)                       lib/ingest/ingest.ts
 *   /e/v1/publish                  gateway publish (POST, API key)                lib/gateway/publish.ts
 *   /outbound/{api/v1|2025-07-01}/publish   outbound publish (POST, admin key)    lib/outbound/publish.ts
 *   /cli/…                         `hookyard listen` sessions and streams (cli_key) lib/cli-channel/routes.ts
 *   POST /                          create a test URL                              lib/console/routes.ts
 *   GET /{id} (Accept: JSON)        source preview; otherwise the page
 *   PATCH, DELETE /{id}             rename, delete a test URL (owner's cookie)
 *   GET /{id}/live                  server-sent events of new requests
 *   GET /{id}/requests/{req}/raw    raw body download
 *   GET /{id}/requests/{req}/events  its events, attempts and ignored events
 *   POST /{id}/requests/{req}/retry  run it through the test URL's connections again
 *   GET /new                        rate limit, then the page
 *   GET /openapi.json               console OpenAPI
 *   GET /healthz                    ok/unavailable; each part's state for operators lib/health.ts
 *   GET /livez, GET /readyz         probes; GET /metrics with METRICS_TOKEN       lib/observability/endpoints.ts
 *   /api/… without a version        rewritten to the oldest gateway version
 *   /dashboard/api/…               Next.js (next-auth), with the client address in x-hookyard-client-ip
 * and hands everything else to Next.js. Every answer carries the security headers (lib/http/security-headers.ts)
 * and is counted in the HTTP metrics by surface (surfaceOf; docs/operations.md "Metrics and health").
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "node:url";
import next from "next";
import { getConfig } from "@/lib/config";
import { getRequestFeed } from "@/lib/console/live";
import { compressedResponse } from "@/lib/http/compress";
import { streamSourceRequests } from "@/lib/console/live-stream";
import {
  createTestUrlRoute,
  deleteTestUrlRoute,
  deliveriesRoute,
  newPageGate,
  openApiRoute,
  previewRoute,
  rawBodyRoute,
  renameTestUrlRoute,
  retryRequestRoute,
} from "@/lib/console/routes";
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from "@/lib/db/health";
import { closePool } from "@/lib/db/pool";
import { healthz, webReady } from "@/lib/health";
import { livezResponse, type MetricsListener, protectedMetricsResponse, readyzResponse, startMetricsListener } from "@/lib/observability/endpoints";
import { type HttpSurface, setQueueSampler, trackHttpResponse } from "@/lib/observability/metrics";
import { sampleQueues } from "@/lib/worker/queue-metrics";
import { CLIENT_IP_HEADER, clientIpOf } from "@/lib/http/client-ip";
import { CONSOLE_MAX_BODY_BYTES } from "@/lib/console/http";
import { readNodeRequest, writeNodeResponse } from "@/lib/http/node";
import { checkRequestLine, pageMethodRefusal } from "@/lib/http/request-line";
import { apiSecurityHeaders } from "@/lib/http/security-headers";
import type { HttpRequest, HttpResponse } from "@/lib/http/types";
import { ingest } from "@/lib/ingest/ingest";
import { publish } from "@/lib/gateway/publish";
import { outboundHttp } from "@/lib/outbound/http";
import { OUTBOUND_ROUTES } from "@/lib/outbound/routes";
import { getCliFeed } from "@/lib/cli-channel/feed";
import { serveCli } from "@/lib/cli-channel/routes";
import { looksLikeVersion, OLDEST_VERSION } from "@/lib/gateway/versions";
import { logger } from "@/lib/log";
import { accessLogger, shortId } from "@/lib/http/access-log";
import { inSpan, SpanKind } from "@/lib/tracing";
import { acceptRelayedSockets } from "@/lib/socket-relay";

/** First path segments that are never console source ids. */
const RESERVED = new Set(["e", "api", "cli", "outbound", "dashboard", "portal", "new", "_next", "healthz", "openapi.json", "metrics", "livez", "readyz"]);

/** True when `url`'s first path segment is `name` (no string is made: this runs for every request). */
function firstSegmentIs(url: string, name: string): boolean {
  if (!url.startsWith(name, 1)) return false;
  const next = url.charCodeAt(name.length + 1);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63; /* ? */
}

/** First path segments of the "other" surface: Next.js's static files and the operations endpoints. */
const OTHER_SEGMENTS = ["_next", "healthz", "livez", "readyz", "metrics"];

/**
 * The surface a request goes to, by its path (the `surface` label of the HTTP metrics; the one place
 * that decides it): ingestion (`/e/…`), the gateway API (`/api/…` and the CLI channel `/cli/…`), the
 * outbound API, the dashboard, the portal, the console (`/`, `/new`, `/openapi.json`, test URL pages
 * and their API), or other (static files, the operations endpoints).
 */
function surfaceOf(url: string): HttpSurface {
  if (url.startsWith("/e/")) return "ingest";
  if (firstSegmentIs(url, "api") || firstSegmentIs(url, "cli")) return "gateway_api";
  if (firstSegmentIs(url, "outbound")) return "outbound_api";
  if (firstSegmentIs(url, "dashboard")) return "dashboard";
  if (firstSegmentIs(url, "portal")) return "portal";
  if (firstSegmentIs(url, "openapi.json")) return "console";
  for (const ops of OTHER_SEGMENTS) if (firstSegmentIs(url, ops)) return "other";
  // A file name (favicon.svg, robots.txt) in the first segment: a static file.
  let end = url.indexOf("/", 1);
  const query = url.indexOf("?");
  if (query !== -1 && (end === -1 || query < end)) end = query;
  const dot = url.indexOf(".", 1);
  return dot !== -1 && (end === -1 || dot < end) ? "other" : "console";
}

const log = logger("server");

/**
 * The path the access log shows (docs/operations.md "Logs"): source ids (`/e/{id}`, a console `/{id}`) are
 * capabilities, so only their first characters are kept.
 */
function pathForLog(pathname: string): string {
  const segments = pathname.split("/");
  const at = segments[1] === "e" && segments[2] && segments[2] !== "v1" ? 2 : segments[1] && !RESERVED.has(segments[1]) && !segments[1].includes(".") ? 1 : 0;
  if (at) segments[at] = shortId(segments[at]);
  return segments.join("/");
}

export type HookyardServer = { port: number; close: () => Promise<void> };

function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(",")[0].trim().toLowerCase();
  return first.startsWith("application/json") || (accept.includes("application/json") && !accept.includes("text/html"));
}

async function serveIngest(req: http.IncomingMessage, res: http.ServerResponse, url: string): Promise<void> {
  const config = getConfig();
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const rest = path.slice(3); // after "/e/"
  const slash = rest.indexOf("/");
  const publicId = slash === -1 ? rest : rest.slice(0, slash);
  const request = await readNodeRequest(req, {
    maxBodyBytes: config.ingestMaxBodyBytes,
    trustProxy: config.trustProxy,
    pathname: slash === -1 ? "/" : rest.slice(slash),
    query: q === -1 ? "" : url.slice(q + 1),
  });
  let response: HttpResponse;
  try {
    response = publicId === "v1" && request.pathname === "/publish" ? await publish(request) : await ingest(publicId, request);
  } catch (err) {
    response = ingestFailure(err);
  }
  writeNodeResponse(res, response);
}

/**
 * The answer to a request that could not be stored (docs/architecture.md#processes): 503 with `Retry-After` while the
 * database is away (the sender retries; nothing was kept, so nothing is promised), 500 otherwise.
 */
function ingestFailure(err: unknown): HttpResponse {
  if (isDatabaseUnavailable(err)) {
    log.warn("database unavailable: answering 503", err instanceof Error ? err.message : err);
    return {
      status: 503,
      headers: { "content-type": "application/json", "retry-after": String(DATABASE_RETRY_AFTER_S) },
      body: JSON.stringify({ status: "ERROR", message: "The service is temporarily unavailable; retry the request later." }),
    };
  }
  log.error("could not store a request", err);
  return {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ status: "ERROR", message: "The request could not be stored; retry it." }),
  };
}

/** Outbound publish, a hot path like ingestion: the outbound wrapper without Next.js (lib/outbound/http.ts outboundHttp). */
async function servePublish(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const config = getConfig();
  const request = await readNodeRequest(req, { maxBodyBytes: config.ingestMaxBodyBytes, trustProxy: config.trustProxy });
  // The `outbound publish` span (docs/operations.md "Traces"): a child of the caller's traceparent, parent of the event's dispatch.
  const respond = () => outboundHttp(OUTBOUND_ROUTES, request, config.publicUrl);
  const response = await inSpan("outbound publish", request.headers.traceparent, { "http.request.method": "POST" }, respond, SpanKind.SERVER);
  writeNodeResponse(res, response);
}

async function serveConsole(req: http.IncomingMessage, res: http.ServerResponse, route: (r: HttpRequest) => Promise<HttpResponse>) {
  const config = getConfig();
  const request = await readNodeRequest(req, { maxBodyBytes: CONSOLE_MAX_BODY_BYTES, trustProxy: config.trustProxy });
  // JSON answers compressed by Accept-Encoding (docs/console-api.md "Compression"): the JSON itself is unchanged.
  writeNodeResponse(res, await compressedResponse(await route(request), request.headers["accept-encoding"]));
}

/**
 * Starts Hookyard's HTTP server on `port` (0 = any free port) with Next.js in production mode, or in
 * development mode with `dev`. The database must be migrated and DATABASE_URL set. Resolves once listening.
 * With `relayed`, it does not listen: it serves the connections its supervisor accepts on `port` and
 * hands over IPC (lib/socket-relay.ts), so a restart of this process refuses no connection.
 */
export async function startServer(opts: { port: number; host: string; dev?: boolean; relayed?: boolean }): Promise<HookyardServer> {
  const app = next({ dev: Boolean(opts.dev), dir: process.cwd(), hostname: opts.host, port: opts.port });
  await app.prepare();
  const handleNext = app.getRequestHandler();

  // Request reads are bounded (docs/gateway-api.md#input-limits): Node checks requestTimeout/headersTimeout every
  // connectionsCheckingInterval; long-lived responses (live streams) are not affected.
  const observe = accessLogger(pathForLog);
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    observe(req, res);
    const url = req.url ?? "/";
    const method = (req.method ?? "GET").toUpperCase();
    trackHttpResponse(res, surfaceOf(url), method);
    // Every answer, including errors and Next.js's static files and 404s, starts with the API policy;
    // proxy.ts replaces the policy of pages with their nonce-based one (docs/security-headers.md).
    for (const [name, value] of Object.entries(apiSecurityHeaders())) res.setHeader(name, value);
    const refused = checkRequestLine(method, url);
    if (refused) return writeNodeResponse(res, refused);
    const handle = async () => {
      if (url.startsWith("/e/")) return serveIngest(req, res, url);
      if (url.startsWith("/cli/")) return serveCli(req, res, url.split("?")[0]);
      const pathname = url.split("?")[0];
      if (method === "POST" && (pathname === "/outbound/api/v1/publish" || pathname === "/outbound/2025-07-01/publish")) return servePublish(req, res);
      if (method === "GET" || method === "HEAD") {
        // Operations endpoints (docs/operations.md "Metrics and health").
        if (pathname === "/healthz") return writeNodeResponse(res, await healthz({ authorization: req.headers.authorization, cookie: req.headers.cookie }));
        if (pathname === "/livez") return writeNodeResponse(res, livezResponse());
        if (pathname === "/readyz") return writeNodeResponse(res, readyzResponse(await webReady()));
        if (pathname === "/metrics") return writeNodeResponse(res, await protectedMetricsResponse(req.headers.authorization, getConfig().metrics.token));
      }
      const segments = pathname.split("/").filter(Boolean);
      if (pathname === "/" && method === "POST") return serveConsole(req, res, createTestUrlRoute);
      if (pathname === "/openapi.json" && method === "GET") return serveConsole(req, res, openApiRoute);
      if (pathname === "/new" && method === "GET") {
        const request = await readNodeRequest(req, { maxBodyBytes: 0, trustProxy: getConfig().trustProxy });
        const gate = await newPageGate(request);
        if (gate.status !== 200) return writeNodeResponse(res, gate);
        for (const [k, v] of Object.entries(gate.headers ?? {})) res.setHeader(k, v);
        return handleNext(req, res, parse(url, true));
      }
      if (segments[0] === "api" && segments.length > 1 && !looksLikeVersion(segments[1])) {
        // The gateway API without a version segment uses the oldest supported version.
        req.url = `/api/${OLDEST_VERSION}${url.slice(4)}`;
        return handleNext(req, res, parse(req.url, true));
      }
      const [first, second, third, fourth] = segments;
      if (first && !RESERVED.has(first) && !first.includes(".") && (method === "GET" || method === "HEAD")) {
        if (segments.length === 1 && wantsJson(req.headers.accept)) return serveConsole(req, res, previewRoute(first));
        // GET only: a HEAD of an endless stream would never flush its headers (found by `npm run fuzz`).
        if (segments.length === 2 && second === "live" && method === "GET") return streamSourceRequests(first, req, res);
        if (segments.length === 4 && second === "requests" && fourth === "raw") return serveConsole(req, res, rawBodyRoute(first, third));
        if (segments.length === 4 && second === "requests" && fourth === "events") return serveConsole(req, res, deliveriesRoute(first, third));
      }
      if (first && !RESERVED.has(first) && method === "POST" && segments.length === 4 && second === "requests" && fourth === "retry") {
        return serveConsole(req, res, retryRequestRoute(first, third));
      }
      if (first && !RESERVED.has(first) && !first.includes(".") && segments.length === 1) {
        if (method === "PATCH") return serveConsole(req, res, renameTestUrlRoute(first));
        if (method === "DELETE") return serveConsole(req, res, deleteTestUrlRoute(first));
      }
      const dashboardApi = first === "dashboard" && second === "api";
      // The dashboard's sign-in rate limit needs the client's address, which Next.js does not expose.
      if (dashboardApi) req.headers[CLIENT_IP_HEADER] = clientIpOf(req.socket.remoteAddress, req.headers as Record<string, string>, getConfig().trustProxy);
      const pageRefusal = first === "api" || first === "outbound" || dashboardApi ? null : pageMethodRefusal(method, pathname);
      if (pageRefusal) {
        // A test URL's `/{id}` also takes PATCH and DELETE (docs/console-api.md "Renaming and deleting a test URL").
        const testUrlPath = segments.length === 1 && !RESERVED.has(first) && !first.includes(".");
        return writeNodeResponse(res, testUrlPath ? { ...pageRefusal, headers: { ...pageRefusal.headers, allow: "GET, HEAD, PATCH, DELETE" } } : pageRefusal);
      }
      return handleNext(req, res, parse(url, true));
    };
    handle().catch((err) => {
      log.error("unhandled error", err);
      if (!res.headersSent)
        writeNodeResponse(res, { status: 500, headers: { "content-type": "application/json" }, body: '{"status":500,"message":"Internal server error"}' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = getConfig().httpRequestTimeoutMs;
  server.headersTimeout = getConfig().httpHeadersTimeoutMs;

  if (opts.relayed) acceptRelayedSockets(server);
  else {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port, opts.host, () => resolve());
    });
  }
  const port = opts.relayed ? opts.port : (server.address() as AddressInfo).port;
  // Metrics: the queues' gauges read on a scrape, and the listener of METRICS_PORT (docs/operations.md "Metrics and health").
  setQueueSampler(sampleQueues);
  let metrics: MetricsListener | null = null;
  const metricsPort = getConfig().metrics.port;
  if (metricsPort !== undefined) {
    metrics = await startMetricsListener({ port: metricsPort, host: opts.host, ready: webReady }).catch((err: unknown) => {
      server.close();
      throw err;
    });
  }
  return {
    port,
    close: async () => {
      await metrics?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Live streams never end by themselves.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      await getRequestFeed().close();
      await getCliFeed().close();
      await app.close?.().catch?.(() => {});
      await closePool();
    },
  };
}
