/**
 * The gateway REST API wrapper (docs/gateway-api.md#authentication, #errors,
 * #rate-limit, #versions; docs/architecture.md#api-wrappers): version → API key (Bearer, or Basic with the key as username;
 * without one, the signed-in dashboard's session cookie, same-origin for unsafe methods)
 * → rate limit (240/min per key, headers on every answer) → version availability → JSON body parsing
 * and zod validation → handler → error mapping to `{handled, status, message, data, code}` (every thrown
 * AppError by its code: docs/errors.md "Gateway").
 * It is the only try/catch of this surface.
 */
import { bumpConfigGeneration } from "@/lib/db/config-generation";
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { authenticateApiKey } from "@/lib/teams/api-keys";
import { sessionCredential } from "@/lib/teams/dashboard-session";
import { type ApiVersion, API_VERSIONS, isAtLeast, resolveVersion } from "@/lib/gateway/versions";
import { isSunset, lifecycleHeaders, sunsetOf } from "@/lib/gateway/versions/lifecycle";
import { readRequestBody } from "@/lib/http/body";
import { APP_ERROR_NAME, AppError, type AppErrorCode } from "@/lib/http/errors";
import { parseJsonInput } from "@/lib/http/json-input";
import { type ParsedQuery, parseApiQuery } from "@/lib/http/query";
import { consumeRateLimit, rateLimitHeaders } from "@/lib/http/rate-limit";
import { logger } from "@/lib/log";

/** Largest JSON body of the API, bytes. */
const GATEWAY_MAX_BODY_BYTES = 1024 * 1024;
const log = logger("gateway");

type GatewayContext<B, P> = {
  req: Request;
  url: URL;
  teamId: string;
  version: ApiVersion;
  query: ParsedQuery;
  body: B;
  params: P;
};

type GatewayResult = { status?: number; body: unknown };

type Options<B> = {
  /** The endpoint exists from this version on (404 before). */
  since?: ApiVersion;
  /** Converts the body of an older version to the newest shape before validation. */
  upgradeBody?: (body: unknown, version: ApiVersion) => unknown;
  /** Schema of the JSON body (newest shape). Without it no body is read. */
  body?: z.ZodType<B>;
  /** The body may be absent (treated as `{}`). */
  optionalBody?: boolean;
  /** Names a field of the newest shape (`config.auth.algorithm`) as `version` spells it, for 4xx `data.field`. */
  fieldName?: (field: string, version: ApiVersion) => string;
};

const body = (status: number, code: string, message: string, data: unknown, handled = true) => ({ handled, status, message, data, code });

/** Field path and message of each zod issue; an unknown property is named by its own path (`config.extra`). */
function fieldErrors(error: z.ZodError) {
  return error.issues.flatMap((i) =>
    i.code === "unrecognized_keys"
      ? i.keys.map((k) => ({ field: [...i.path, k].join("."), message: `Unrecognized key: "${k}"` }))
      : [{ field: i.path.join("."), message: i.message }],
  );
}

/**
 * The gateway's `code` and `message` of each AppError code (docs/gateway-api.md#errors, the real
 * product's names); a 400 keeps the error's own message (docs/errors.md "Gateway").
 */
const GATEWAY_ERROR_CODE: Record<AppErrorCode, string> = { ...APP_ERROR_NAME, CONFLICT: "RESOURCE_ALREADY_EXISTS" };
const GATEWAY_ERROR_MESSAGE: Record<Exclude<AppErrorCode, "BAD_REQUEST">, string> = {
  UNAUTHORIZED: "Unauthorized",
  FORBIDDEN: "Forbidden",
  NOT_FOUND: "Not Found",
  METHOD_NOT_ALLOWED: "Method Not Allowed",
  CONFLICT: "Resource already exists",
  GONE: "Gone",
  PAYLOAD_TOO_LARGE: "Payload Too Large",
  VALIDATION: "Unprocessable Entity",
  RATE_LIMITED: "Too Many Requests",
  UNAVAILABLE: "Service Unavailable",
};

/** The body's `data` of an AppError: `details.data`, else `details.input`, else `{message}` (`{}` for a 400). */
function gatewayData(err: AppError): Record<string, unknown> {
  return err.details.data ?? err.details.input ?? (err.code === "BAD_REQUEST" ? {} : { message: err.message });
}

/**
 * The gateway's one error-body writer: status and `{handled, status, message, data, code}` of any thrown
 * value (AppError by its code, a zod error as 422, a unique violation as 409, anything else 500).
 * `rename` spells `data.field` as the request's API version does.
 */
export function gatewayErrorResponse(err: unknown, rename: (field: string) => string = (f) => f): { status: number; json: unknown } {
  if (err instanceof AppError) {
    const data = gatewayData(err);
    const renamed = typeof data.field === "string" ? { ...data, field: rename(data.field) } : data;
    const message = err.code === "BAD_REQUEST" ? err.message : GATEWAY_ERROR_MESSAGE[err.code];
    return { status: err.status, json: body(err.status, GATEWAY_ERROR_CODE[err.code], message, renamed) };
  }
  if (err instanceof z.ZodError) {
    const errors = fieldErrors(err).map((e) => ({ ...e, field: e.field ? rename(e.field) : e.field }));
    return {
      status: 422,
      json: body(422, "UNPROCESSABLE_ENTITY", "Unprocessable Entity", {
        field: errors[0]?.field,
        message: `${errors[0]?.field ? `${errors[0].field}: ` : ""}${errors[0]?.message}`,
        errors,
      }),
    };
  }
  if ((err as { code?: string })?.code === "23505") {
    return { status: 409, json: body(409, "RESOURCE_ALREADY_EXISTS", "Resource already exists", { detail: (err as { detail?: string }).detail }) };
  }
  log.error("unhandled error", err);
  return { status: 500, json: body(500, "FATAL_ERROR", "Internal Server Error", {}, false) };
}

/**
 * The API key of an `Authorization` header: `Bearer <key>`, or Basic with the key as username and an
 * empty password (docs/gateway-api.md#authentication). Null when absent or malformed.
 */
export function apiKeyFromAuthorization(header: string | null | undefined): string | null {
  if (!header) return null;
  const [scheme, value] = [header.slice(0, header.indexOf(" ")).toLowerCase(), header.slice(header.indexOf(" ") + 1).trim()];
  if (scheme === "bearer") return value || null;
  if (scheme === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return (colon === -1 ? decoded : decoded.slice(0, colon)) || null;
  }
  return null;
}

async function readJson(req: Request, optional: boolean): Promise<unknown> {
  const read = await readRequestBody(req, { maxBytes: GATEWAY_MAX_BODY_BYTES, countAll: false });
  if (read.tooLarge) throw new AppError("PAYLOAD_TOO_LARGE", `The body exceeds ${GATEWAY_MAX_BODY_BYTES} bytes`, { data: { limit: GATEWAY_MAX_BODY_BYTES } });
  const text = read.body.toString("utf8").trim();
  if (!text) {
    if (optional) return {};
    throw new AppError("BAD_REQUEST", "A JSON body is required");
  }
  try {
    return parseJsonInput(text);
  } catch (err) {
    if (err instanceof AppError) throw new AppError("BAD_REQUEST", "Invalid JSON body", { data: { field: err.details.field, message: err.message } });
    throw new AppError("BAD_REQUEST", "Invalid JSON body", { data: { message: (err as Error).message } });
  }
}

/**
 * Wraps a gateway handler for a Next.js route: `(req, {params}) => Response`, never throwing.
 * `params.version` is the path's version segment (server.ts puts the oldest version in paths without one).
 */
export function gatewayRoute<B = undefined, P extends Record<string, string | string[]> = Record<string, string>>(
  options: Options<B>,
  handler: (ctx: GatewayContext<B, P>) => Promise<GatewayResult>,
): (req: Request, ctx: { params: Promise<P & { version: string }> }) => Promise<Response> {
  return async (req, ctx) => {
    let limitHeaders: Record<string, string> = {};
    let status = 200;
    let json: unknown;
    let version: ApiVersion | null = null;
    try {
      const { version: segment, ...params } = await ctx.params;
      version = resolveVersion(segment);
      if (!version) {
        throw new AppError("BAD_REQUEST", `Unsupported API version "${segment}"`, { data: { version: segment, supported: API_VERSIONS } });
      }
      const key = apiKeyFromAuthorization(req.headers.get("authorization"));
      let auth = key ? await authenticateApiKey(key) : null;
      if (!key) {
        // The signed-in dashboard calls the API with its session cookie, as its user's team (docs/dashboard.md#the-api-behind-the-pages).
        const session = await sessionCredential(req.method, (h) => req.headers.get(h));
        if (session === "cross-site") throw new AppError("FORBIDDEN", "A cookie-authenticated request must come from the dashboard's own origin");
        if (session) auth = { teamId: session.teamId, keyId: `user:${session.id}` };
      }
      if (!auth) {
        throw new AppError("UNAUTHORIZED", key ? "The API key is invalid or revoked" : "No API key was provided through Basic Auth or Bearer Token");
      }
      const limit = getConfig().gatewayApiRateLimit;
      const rate = await consumeRateLimit(`gateway:key:${auth.keyId}`, limit, 60_000);
      limitHeaders = rateLimitHeaders(limit, rate.remaining, rate.resetAt);
      if (!rate.allowed) {
        const message = `Rate limit of ${limit} requests per minute exceeded`;
        throw new AppError("RATE_LIMITED", message, { data: { message, retry_after: rate.retryAfterSeconds }, retryAfterSeconds: rate.retryAfterSeconds });
      }
      if (getConfig().gatewayEnforceVersionSunset && isSunset(version)) {
        const message = `API version ${version} was retired on ${new Date(sunsetOf(version)).toISOString().slice(0, 10)}; use ${API_VERSIONS.at(-1)}`;
        throw new AppError("GONE", message, { data: { message, version, sunset: new Date(sunsetOf(version)).toISOString() } });
      }
      if (options.since && !isAtLeast(version, options.since)) {
        throw new AppError("NOT_FOUND", `This endpoint exists from API version ${options.since}`);
      }
      let parsed = undefined as B;
      if (options.body) {
        let raw = await readJson(req, Boolean(options.optionalBody));
        if (options.upgradeBody) raw = options.upgradeBody(raw, version);
        parsed = options.body.parse(raw);
      }
      const url = new URL(req.url);
      const result = await handler({ req, url, teamId: auth.teamId, version, query: parseApiQuery(url), body: parsed, params: params as unknown as P });
      status = result.status ?? 200;
      json = result.body;
      if (req.method !== "GET") bumpConfigGeneration();
    } catch (err) {
      if (err instanceof AppError && err.details.retryAfterSeconds !== undefined) limitHeaders["retry-after"] = String(err.details.retryAfterSeconds);
      const v = version;
      ({ status, json } = gatewayErrorResponse(err, v && options.fieldName ? (f) => options.fieldName!(f, v) : undefined));
    }
    return new Response(JSON.stringify(json), {
      status,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-store",
        ...limitHeaders,
        ...(version ? lifecycleHeaders(version) : {}),
      },
    });
  };
}

/**
 * The answer for a method an endpoint does not have: 405 with the gateway error body (after
 * authentication, like every endpoint) instead of Next.js's empty one. Route files export it for
 * their missing methods.
 */
export const methodNotAllowed = gatewayRoute({}, ({ req, url }) =>
  Promise.reject(new AppError("METHOD_NOT_ALLOWED", `${req.method} is not supported on ${url.pathname}`)),
);
