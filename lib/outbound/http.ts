/**
 * The outbound API wrapper (docs/outbound.md#credentials, #errors-and-bad-input;
 * docs/architecture.md#api-wrappers): one handler tree serves both deployment forms, the self-hosted `/outbound/api/v1/...` and
 * the managed `/outbound/2025-07-01/...` (which alone is rate limited: 240/min per credential, with
 * `X-RateLimit-Reset` as a Unix timestamp). In order: route match, authentication (admin key or tenant
 * JWT in `Authorization`, or without that header the tenant portal's cookie holding a tenant JWT, whose
 * unsafe requests must pass the CSRF guard of lib/portal/portal.ts: 401 without or with bad
 * credentials, 403 for a JWT on admin-only routes or another tenant's, or for a cross-site request),
 * rate limit, JSON body (1 MiB; 413 above, 400 for malformed JSON), the handler, and the mapping of every
 * error to `{status, message, data?}` (validation: 422 with `data` an array of messages; every AppError by
 * its code: docs/errors.md "Outbound"). It is the only try/catch of this surface.
 */
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { authenticateOutbound, type OutboundCaller, PORTAL_COOKIE, PORTAL_CSRF_HEADER, portalCsrfAllowed } from "@/lib/outbound/auth";
import { sessionCredential } from "@/lib/teams/dashboard-session";
import { readRequestBody } from "@/lib/http/body";
import { readCookie } from "@/lib/http/cookies";
import { refreshOutboundSettings } from "@/lib/outbound/settings";
import { AppError } from "@/lib/http/errors";
import { hasUnstorableText, parseJsonInput } from "@/lib/http/json-input";
import { type ParsedQuery, parseApiQuery } from "@/lib/http/query";
import { consumeRateLimit, rateLimitHeaders } from "@/lib/http/rate-limit";
import type { HttpRequest, HttpResponse } from "@/lib/http/types";
import { logger } from "@/lib/log";
import { outboundForbidden, outboundNotFound } from "@/lib/outbound/errors";

const log = logger("outbound");
/** Largest request body, bytes (every request except publish). */
const OUTBOUND_MAX_BODY_BYTES = 1024 * 1024;

export type OutboundForm = "self-hosted" | "managed";

type OutboundContext<P> = { url: URL; form: OutboundForm; caller: OutboundCaller; params: P; query: ParsedQuery; body: unknown; rawBody: string };
type OutboundResult = { status?: number; body: unknown };

export type OutboundRoute = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path after the base, `:name` segments are parameters (`tenants/:tenant_id`). */
  path: string;
  /** admin: admin key only; any: admin key or tenant JWT; none: no credentials (health). */
  auth: "admin" | "any" | "none";
  /** Only in this deployment form (404 in the other). */
  form?: OutboundForm;
  handler: (ctx: OutboundContext<Record<string, string>>) => Promise<OutboundResult>;
  /** Largest body, bytes (default OUTBOUND_MAX_BODY_BYTES; publish takes more). */
  maxBodyBytes?: number;
};

/** Validation messages of a zod error: `config.url is required`, `topics: …`. */
function messagesOf(error: z.ZodError): string[] {
  return error.issues.flatMap((i) => {
    const path = i.path.join(".");
    if (i.code === "unrecognized_keys") return i.keys.map((k) => `${path ? `${path}.` : ""}${k} is forbidden`);
    if (i.code === "invalid_type" && i.input === undefined) return [`${path} is required`];
    return [`${path ? `${path}: ` : ""}${i.message}`];
  });
}

/**
 * The outbound service's one error-body writer: status and `{status, message, data?}` of any thrown value.
 * An AppError keeps its message; `data` is `details.data`, else `details.messages`, else absent (the
 * offending input a gateway body echoes, `details.input`, is never shown here). A zod error is 422 with
 * its messages; anything else 500.
 */
export function outboundErrorResponse(err: unknown): { status: number; json: unknown } {
  if (err instanceof AppError) {
    const data = err.details.data ?? err.details.messages;
    return { status: err.status, json: { status: err.status, message: err.message, ...(data !== undefined ? { data } : {}) } };
  }
  if (err instanceof z.ZodError) return { status: 422, json: { status: 422, message: "validation error", data: messagesOf(err) } };
  log.error("unhandled error", err);
  return { status: 500, json: { status: 500, message: "internal server error" } };
}

/** The form and the path after its base of `/outbound/...` segments, or null for an unknown base. */
function splitPath(segments: string[]): { form: OutboundForm; rest: string[] } | null {
  if (segments[0] === "api" && segments[1] === "v1") return { form: "self-hosted", rest: segments.slice(2) };
  if (segments[0] === "2025-07-01") return { form: "managed", rest: segments.slice(1) };
  return null;
}

/** Each route's path segments, split once. */
const routeParts = new WeakMap<OutboundRoute, string[]>();

function match(route: OutboundRoute, rest: string[]): Record<string, string> | null {
  let parts = routeParts.get(route);
  if (!parts) routeParts.set(route, (parts = route.path.split("/")));
  if (parts.length !== rest.length) return null;
  const params = Object.create(null) as Record<string, string>;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith(":")) params[parts[i].slice(1)] = rest[i]!;
    else if (parts[i] !== rest[i]) return null;
  }
  return params;
}

/** A request as the outbound surface needs it, from Next.js or from server.ts. */
type OutboundInput = {
  method: string;
  /** Path segments after `/outbound/`, still percent-encoded. */
  segments: string[];
  url: URL;
  authorization: string | null;
  /** Reads another request header (cookie, origin, referer, the portal's CSRF header): the browser sessions. */
  header?: (name: string) => string | null | undefined;
  /** The body, up to `max` bytes: `tooLarge` past it. */
  readBody: (max: number) => Promise<{ body: Buffer; tooLarge: boolean }>;
};
type OutboundOutput = { status: number; headers: Record<string, string>; body: string };

function parseBody(buf: Buffer): { body: unknown; rawBody: string } {
  const text = buf.toString("utf8");
  if (!text.trim()) return { body: undefined, rawBody: "" };
  try {
    return { body: parseJsonInput(text), rawBody: text };
  } catch (err) {
    throw new AppError("BAD_REQUEST", "invalid JSON", err instanceof AppError ? { messages: [err.message] } : {});
  }
}

/** Serves one outbound request over `routes` (the steps in this file's header). Never throws. */
async function handleOutbound(routes: OutboundRoute[], input: OutboundInput): Promise<OutboundOutput> {
  let status = 200;
  let json: unknown;
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  try {
    let segments: string[];
    try {
      segments = input.segments.map((p) => decodeURIComponent(p));
    } catch {
      throw outboundNotFound();
    }
    // No id can hold U+0000 or an unpaired surrogate (PostgreSQL refuses such text): like a malformed path, 404.
    if (segments.some(hasUnstorableText)) throw outboundNotFound();
    const where = splitPath(segments);
    if (!where) throw outboundNotFound();
    let found: { route: OutboundRoute; params: Record<string, string> } | null = null;
    let pathExists = false;
    for (const route of routes) {
      if (route.form && route.form !== where.form) continue;
      const params = match(route, where.rest);
      if (!params) continue;
      pathExists = true;
      if (route.method === input.method) {
        found = { route, params };
        break;
      }
    }
    if (!found) throw pathExists ? new AppError("METHOD_NOT_ALLOWED", "method not allowed") : outboundNotFound();
    if (found.route.auth === "none") {
      // Health: nothing of any tenant is read, so there is no caller to check.
      const query = parseApiQuery(input.url);
      const result = await found.route.handler({
        url: input.url,
        form: where.form,
        caller: { kind: "admin", keyId: "" },
        params: found.params,
        query,
        body: undefined,
        rawBody: "",
      });
      return { status: result.status ?? 200, headers, body: JSON.stringify(result.body) };
    }
    const header = input.authorization ?? "";
    const credential = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, "").trim() : "";
    let caller = credential ? await authenticateOutbound(credential) : null;
    // Without an Authorization header, a browser session (docs/dashboard.md#the-api-behind-the-pages, docs/portal.md). The portal's fetches send
    // PORTAL_CSRF_HEADER on every request: they use the tenant portal's cookie (a tenant JWT only), even in
    // a browser also signed in to the dashboard; other requests use the dashboard session (as admin), else
    // the portal cookie. Unsafe portal-cookie requests must pass the CSRF guard.
    let portal: string | undefined;
    if (!credential && input.header) {
      const fromPortal = Boolean(input.header(PORTAL_CSRF_HEADER));
      const session = fromPortal ? null : await sessionCredential(input.method, input.header);
      if (session === "cross-site") throw outboundForbidden();
      // The outbound service is the installation's, not a team's: only operators reach it (docs/operations.md "Teams and users").
      if (session && !session.operator) throw outboundForbidden("the outbound service is for operators");
      if (session) caller = { kind: "admin", keyId: `user:${session.id}` };
      else if ((portal = readCookie(input.header("cookie"), PORTAL_COOKIE))) {
        const verified = await authenticateOutbound(portal);
        caller = verified?.kind === "tenant" ? verified : null;
      }
    }
    if (!caller) throw new AppError("UNAUTHORIZED", "unauthorized");
    if (portal && !portalCsrfAllowed(input.method, input.header?.("origin"), input.header?.(PORTAL_CSRF_HEADER)))
      throw outboundForbidden("cross-site request refused");
    if (where.form === "managed") {
      const limit = getConfig().outbound.rateLimit;
      const rate = await consumeRateLimit(`outbound:${caller.kind === "admin" ? caller.keyId : `jwt:${caller.tenantId}`}`, limit, 60_000);
      Object.assign(
        headers,
        rateLimitHeaders(limit, rate.remaining, rate.resetAt, { reset: "unix", ...(rate.allowed ? {} : { retryAfterSeconds: rate.retryAfterSeconds }) }),
      );
      if (!rate.allowed) throw new AppError("RATE_LIMITED", "rate limit exceeded", { retryAfterSeconds: rate.retryAfterSeconds });
    }
    if (found.route.auth === "admin" && caller.kind !== "admin") throw outboundForbidden();
    if (caller.kind === "tenant" && found.params.tenant_id !== undefined && found.params.tenant_id !== caller.tenantId) throw outboundForbidden();
    // Every filter of every route reads its values from this query: NUL, unpaired surrogates and bytes
    // that are not UTF-8 are a 400 here, before any handler (lib/http/query.ts parseApiQuery).
    const query = parseApiQuery(input.url);
    await refreshOutboundSettings();
    let parsed: { body: unknown; rawBody: string } = { body: undefined, rawBody: "" };
    if (input.method !== "GET" && input.method !== "DELETE") {
      const read = await input.readBody(found.route.maxBodyBytes ?? OUTBOUND_MAX_BODY_BYTES);
      if (read.tooLarge) throw new AppError("PAYLOAD_TOO_LARGE", "request body too large");
      parsed = parseBody(read.body);
    }
    const result = await found.route.handler({ url: input.url, form: where.form, caller, params: found.params, query, ...parsed });
    status = result.status ?? 200;
    json = result.body;
  } catch (err) {
    ({ status, json } = outboundErrorResponse(err));
    // Any limit a handler enforces (a tenant's redrives per hour, …) says when to come back, as the managed rate limit does.
    if (err instanceof AppError && err.details.retryAfterSeconds !== undefined) headers["retry-after"] = String(err.details.retryAfterSeconds);
  }
  return { status, headers, body: JSON.stringify(json) };
}

/** The Next.js handler of every outbound path (`app/outbound/[...path]/route.ts`) over `routes`. Never throws. */
export function outboundHandler(routes: OutboundRoute[]): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = new URL(req.url);
    const out = await handleOutbound(routes, {
      method: req.method,
      segments: url.pathname.split("/").filter(Boolean).slice(1),
      url,
      authorization: req.headers.get("authorization"),
      header: (name) => req.headers.get(name),
      readBody: (max) => readRequestBody(req, { maxBytes: max, countAll: false }),
    });
    return new Response(out.body, { status: out.status, headers: out.headers });
  };
}

/**
 * The framework-free form for server.ts's hot path (`POST …/publish`, which does not go
 * through Next.js's router: docs/architecture.md#the-hot-path): `req` was read with the ingestion limit. Never throws.
 */
export async function outboundHttp(routes: OutboundRoute[], req: HttpRequest, base: string): Promise<HttpResponse> {
  const url = new URL(`${req.pathname}${req.query ? `?${req.query}` : ""}`, base);
  const out = await handleOutbound(routes, {
    method: req.method,
    segments: req.pathname.split("/").filter(Boolean).slice(1),
    url,
    authorization: req.headers.authorization ?? null,
    header: (name) => req.headers[name],
    readBody: (max) => Promise.resolve({ body: req.body, tooLarge: req.bodyTooLarge || req.body.length > max }),
  });
  return { status: out.status, headers: out.headers, body: out.body };
}
