/**
 * Ingestion: the one framework-free function behind `/e/{id}[/{path…}]`, called by the custom server
 * (server.ts, production and `npm run dev`) and by the Next.js route handler (app/e/…, plain `next dev`).
 * docs/console-api.md#eidpath, docs/pipeline.md#ingestion, docs/architecture.md#the-hot-path.
 */
import { getConfig } from "@/lib/config";
import { inspectUrlFor } from "@/lib/urls";
import { createId, sourceIdFromPublic } from "@/lib/ids";
import type { HttpRequest, HttpResponse } from "@/lib/http/types";
import { findIngestSource, forgetIngestSource, type IngestSource } from "@/lib/ingest/source-cache";
import { getRequestWriter } from "@/lib/ingest/request-writer";
import { recordIngested } from "@/lib/observability/metrics";
import { signatureHeaders, type VerificationResult, verifyRequest } from "@/lib/ingest/verify";
import { inSpan, SpanKind, tracingEnabled, traceparentOf } from "@/lib/tracing";

/** PostgreSQL's foreign_key_violation: the request's source row is gone. */
const FOREIGN_KEY_VIOLATION = "23503";

export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, PUT, PATCH, DELETE, POST, OPTIONS",
  "access-control-max-age": "86400",
};

/** Why a request was not delivered (the `rejection_cause` values produced by ingestion, docs/pipeline.md#ingestion). */
type RejectionCause =
  | "SOURCE_DISABLED"
  | "PAYLOAD_TOO_LARGE"
  | "VERIFICATION_FAILED"
  | "UNSUPPORTED_HTTP_METHOD"
  | "UNSUPPORTED_CONTENT_TYPE"
  | "UNPARSABLE_JSON"
  | "NO_CONNECTION";

/**
 * Media types a gateway source accepts a body in (docs/gateway-api.md#content-types-at-ingestion);
 * `application/*+json` matches any JSON-based type. A body without a content type is taken as is.
 */
const ACCEPTED_CONTENT_TYPES = new Set([
  "text/plain",
  "text/xml",
  "application/json",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/jwt",
  "application/x-ndjson",
  "multipart/form-data",
]);

/** The media type of a `content-type` header, lower case, without parameters ("" when none). */
const mediaType = (header: string | undefined) => (header ?? "").split(";")[0].trim().toLowerCase();
const isJsonType = (type: string) => type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));

/**
 * UNSUPPORTED_CONTENT_TYPE for a body in a media type outside the accepted list, UNPARSABLE_JSON for a
 * JSON media type whose body is not JSON; null otherwise. Only for team sources: a console test URL
 * captures whatever it is sent (docs/console-api.md#eidpath).
 */
function contentRejection(source: IngestSource, req: HttpRequest): RejectionCause | null {
  if (source.teamMode === "GUEST" || req.body.length === 0) return null;
  const type = mediaType(req.headers["content-type"]);
  if (!type) return null;
  if (!ACCEPTED_CONTENT_TYPES.has(type) && !isJsonType(type)) return "UNSUPPORTED_CONTENT_TYPE";
  if (isJsonType(type)) {
    try {
      JSON.parse(req.body.toString("utf8"));
    } catch {
      return "UNPARSABLE_JSON";
    }
  }
  return null;
}

const CUSTOM_CONTENT_TYPES = { json: "application/json", text: "text/plain; charset=utf-8", xml: "application/xml" } as const;

function answer(status: number, body: unknown, method: string, extra: Record<string, string> = {}): HttpResponse {
  const headers = { ...CORS_HEADERS, "content-type": "application/json; charset=utf-8", ...extra };
  return { status, headers, body: method === "HEAD" ? undefined : JSON.stringify(body) };
}

/** The query parameter that allows more methods for one request URL (`?x-gateway-allow-methods=get,put`). */
const ALLOW_METHODS_PARAMETER = "x-gateway-allow-methods";

/**
 * The methods `req` may use: the source's `config.allowed_http_methods`, plus those its URL names in
 * ALLOW_METHODS_PARAMETER (comma-separated, any case), for senders that cannot be told to POST.
 */
function allowedMethodsFor(source: IngestSource, req: HttpRequest): string[] {
  if (!req.query || !req.query.includes(ALLOW_METHODS_PARAMETER)) return source.allowedMethods;
  const extra = new URLSearchParams(req.query)
    .getAll(ALLOW_METHODS_PARAMETER)
    .flatMap((v) => v.split(","))
    .map((m) => m.trim().toUpperCase())
    .filter((m) => /^[A-Z]+$/.test(m) && !source.allowedMethods.includes(m));
  return extra.length ? [...source.allowedMethods, ...new Set(extra)] : source.allowedMethods;
}

/** First applicable rejection, in the pipeline's order: disabled, size, verification, method, content type, JSON, connections. */
function rejectionFor(source: IngestSource, req: HttpRequest, verification: VerificationResult | null): RejectionCause | null {
  if (source.disabled) return "SOURCE_DISABLED";
  if (req.bodyTooLarge) return "PAYLOAD_TOO_LARGE";
  if (verification?.status === "failed") return "VERIFICATION_FAILED";
  // A CORS preflight (OPTIONS) is always answered, never a rejected method; HEAD goes with GET.
  const method = req.method === "HEAD" ? "GET" : req.method;
  if (method !== "OPTIONS" && !allowedMethodsFor(source, req).includes(method)) return "UNSUPPORTED_HTTP_METHOD";
  const content = contentRejection(source, req);
  if (content) return content;
  if (source.connectionCount === 0) return "NO_CONNECTION";
  return null;
}

function successBody(source: IngestSource, requestId: string) {
  const where =
    source.teamMode === "GUEST"
      ? `Inspect it at ${inspectUrlFor(source.id)}`
      : `Inspect it through the API: GET ${getConfig().gatewayApiUrl}/2025-07-01/requests/${requestId}`;
  return { status: "SUCCESS", message: `Request handled by Hookyard. ${where}`, request_id: requestId };
}

/**
 * Captures one request sent to source `publicId` (its id without `src_`) and answers it.
 * `req.pathname` is the path after `/e/{id}` ("/" when none). The request is committed before this
 * resolves: the answer is only built after the group-commit write succeeded.
 * Answers: 404 unknown source; 204 for CORS preflight (OPTIONS); 413 PAYLOAD_TOO_LARGE (no body kept);
 * VERIFICATION_FAILED: 401 with an empty body (the source's `custom_response` body when it has one)
 * or 200 (per provider type, lib/ingest/verify); a provider's handshake answer (Slack challenge, Zoom URL validation, X CRC…) when one applies;
 * 405 UNSUPPORTED_HTTP_METHOD (with Allow); 415 UNSUPPORTED_CONTENT_TYPE and 400 UNPARSABLE_JSON (team
 * sources only; the request is kept as rejected); otherwise the source's `custom_response`, else 200
 * `{status: "SUCCESS", message, request_id}`. HEAD gets the GET answer without a body.
 * Rejects only when the database write fails (the caller answers 500; nothing was accepted).
 * `opts.published`: the request came through the publish endpoint, authenticated by an API key
 * (recorded as verified; the source's own verification does not apply).
 */
export function ingest(publicId: string, req: HttpRequest, opts: { published?: boolean } = {}): Promise<HttpResponse> {
  // With tracing off this is the whole cost of traces on the hot path: one boolean (docs/operations.md "Traces").
  if (!tracingEnabled()) return capture(publicId, req, opts, null);
  const attributes = { "hookyard.source.id": `src_${publicId}`, "http.request.method": req.method };
  return inSpan(
    "ingest",
    req.headers.traceparent,
    attributes,
    async (span) => {
      const response = await capture(publicId, req, opts, span && traceparentOf(span));
      span?.setAttribute("http.response.status_code", response.status);
      return response;
    },
    SpanKind.SERVER,
  );
}

/** {@link ingest} itself; `traceParent`: the ingest span's, stored with the request for its fan-out. */
async function capture(publicId: string, req: HttpRequest, opts: { published?: boolean }, traceParent: string | null): Promise<HttpResponse> {
  const sourceId = sourceIdFromPublic(publicId);
  let source: IngestSource | null = null;
  try {
    if (sourceId) source = await findIngestSource(sourceId);
  } catch (err) {
    recordIngested("failed");
    throw err;
  }
  if (!source) {
    recordIngested("not_found");
    return answer(404, { status: "NOT_FOUND", message: "No source with this URL. Check the id, or create a new test URL." }, req.method);
  }
  // Published requests are authenticated by the API key; the others by the source's own verification.
  const verification =
    opts.published || source.disabled || req.bodyTooLarge || req.method === "OPTIONS"
      ? null
      : verifyRequest({
          sourceType: source.type,
          authType: source.authType,
          auth: source.auth,
          method: req.method,
          url: `${getConfig().ingestUrl}/${publicId}${req.pathname && req.pathname !== "/" ? req.pathname : ""}${req.query ? `?${req.query}` : ""}`,
          path: req.pathname || "/",
          query: req.query,
          headers: req.headers,
          body: req.body,
        });
  const rejection = rejectionFor(source, req, verification);
  const requestId = createId("request");
  const written = getRequestWriter().write({
    id: requestId,
    teamId: source.teamId,
    sourceId: source.id,
    verified: opts.published === true || verification?.status === "verified",
    rejectionCause: rejection,
    ingestedAt: new Date(),
    method: req.method,
    path: req.pathname || "/",
    query: req.query,
    headers: req.headers,
    body: req.bodyTooLarge || req.body.length === 0 ? null : req.body,
    bodySize: req.bodySize,
    contentType: req.headers["content-type"] ?? null,
    clientIp: req.clientIp,
    traceParent,
  });
  try {
    await written;
  } catch (err) {
    // The source (or its team) was deleted after this process read it, within the cache's second: its
    // row is gone, so the request has no source to be kept under. The same answer as for an unknown id.
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) {
      forgetIngestSource(source.id);
      recordIngested("not_found");
      return answer(404, { status: "NOT_FOUND", message: "No source with this URL. Check the id, or create a new test URL." }, req.method);
    }
    recordIngested("failed");
    throw err;
  }
  recordIngested(rejection ? "rejected" : "accepted");

  if (req.method === "OPTIONS") {
    const allowHeaders = req.headers["access-control-request-headers"] ?? "*";
    return { status: 204, headers: { ...CORS_HEADERS, "access-control-allow-headers": allowHeaders } };
  }
  if (verification?.status === "failed") {
    // 401 with an empty body, or the source's custom_response body (generic HMAC, API key, Basic and
    // four provider types); 200 for the other providers.
    if (verification.rejectStatus === 401) return customResponse(source, req.method, 401) ?? { status: 401, headers: { ...CORS_HEADERS } };
  } else if (verification?.handshake && rejection !== "UNSUPPORTED_HTTP_METHOD") {
    const h = verification.handshake;
    return { status: h.status, headers: { ...CORS_HEADERS, ...h.headers }, body: req.method === "HEAD" ? undefined : h.body };
  }
  if (rejection === "PAYLOAD_TOO_LARGE") {
    const limit = getConfig().ingestMaxBodyBytes;
    return answer(
      413,
      { status: "PAYLOAD_TOO_LARGE", message: `The body exceeds the ${limit}-byte limit and was not kept.`, request_id: requestId },
      req.method,
    );
  }
  if (rejection === "UNSUPPORTED_CONTENT_TYPE") {
    const body = {
      status: "UNSUPPORTED_CONTENT_TYPE",
      message: `Content type ${mediaType(req.headers["content-type"])} is not accepted; send JSON, text, XML, a form, JWT or NDJSON.`,
      request_id: requestId,
    };
    return answer(415, body, req.method);
  }
  if (rejection === "UNPARSABLE_JSON") {
    return answer(400, { status: "UNPARSABLE_JSON", message: "The body is declared as JSON but is not valid JSON.", request_id: requestId }, req.method);
  }
  if (rejection === "UNSUPPORTED_HTTP_METHOD") {
    const allowed = allowedMethodsFor(source, req);
    const body = { status: "UNSUPPORTED_HTTP_METHOD", message: `This source accepts ${allowed.join(", ")}.`, request_id: requestId };
    return answer(405, body, req.method, { allow: [...allowed, "OPTIONS"].join(", ") });
  }
  return customResponse(source, req.method, 200) ?? answer(200, successBody(source, requestId), req.method);
}

/**
 * Ingests a request Hookyard itself sends into source `publicId` (the outbound `gateway` destination type,
 * docs/outbound.md "The gateway type"), which takes the same path as a request sent to the source's URL,
 * verification included: it is first signed with the source's own credentials when its verification is one
 * Hookyard can produce (generic HMAC, API key, Basic auth; lib/ingest/verify signatureHeaders), so
 * it is `verified` only when that verification passes; a source verified by a provider's scheme rejects it
 * (VERIFICATION_FAILED), and a source without verification stores it unverified. Never marks a request
 * verified by itself. Answers and rejects as {@link ingest}; the caller decides which sources it may reach.
 */
export async function ingestSigned(publicId: string, req: HttpRequest): Promise<HttpResponse> {
  const sourceId = sourceIdFromPublic(publicId);
  const source = sourceId ? await findIngestSource(sourceId) : null;
  const signed = source ? signatureHeaders({ sourceType: source.type, authType: source.authType, auth: source.auth }, req.body) : null;
  return ingest(publicId, signed ? { ...req, headers: { ...req.headers, ...signed } } : req);
}

/** The source's `custom_response` with `status`, or null when it has none. HEAD gets no body. */
function customResponse(source: IngestSource, method: string, status: number): HttpResponse | null {
  if (!source.customResponse) return null;
  const contentType = CUSTOM_CONTENT_TYPES[source.customResponse.content_type] ?? "text/plain; charset=utf-8";
  return { status, headers: { ...CORS_HEADERS, "content-type": contentType }, body: method === "HEAD" ? undefined : source.customResponse.body };
}
