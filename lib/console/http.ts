/**
 * The console API wrapper (docs/console-api.md, docs/architecture.md#api-wrappers): session, rate limit and
 * its headers, body parsing with zod, the handler, and mapping every thrown error to the console's
 * error bodies. It is the only try/catch of this surface.
 */
import { z } from "zod";
import { type Config, getConfig } from "@/lib/config";
import { type ConsoleSession, findSession, SESSION_COOKIE } from "@/lib/console/sessions";
import { readCookie } from "@/lib/http/cookies";
import { ApiError, RateLimitedError } from "@/lib/http/errors";
import { JsonInputError, parseJsonInput } from "@/lib/http/json-input";
import { consumeRateLimit } from "@/lib/http/rate-limit";
import { type HttpRequest, type HttpResponse, json } from "@/lib/http/types";
import { logger } from "@/lib/log";

/** Largest console API body, bytes (a create body is a few dozen). */
export const CONSOLE_MAX_BODY_BYTES = 64 * 1024;
const MINUTE_MS = 60_000;
const log = logger("console");

export type ConsoleContext<B> = {
  req: HttpRequest;
  body: B;
  /** The live session named by the cookie, if any. */
  session: ConsoleSession | null;
  config: Config;
};

type ConsoleRouteOptions<B> = {
  /** Per-minute limit counted per session (cookie replayed) or else per client IP. */
  rateLimit?: { name: string; perMinute: (config: Config) => number };
  /** Schema of the optional JSON body; an empty body parses as `{}`. */
  body?: z.ZodType<B>;
};

/** Validation messages of a zod error, each prefixed with the field path. */
export function zodMessages(error: z.ZodError): string[] {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
}

function parseJsonBody<B>(req: HttpRequest, schema: z.ZodType<B>): B {
  if (req.bodyTooLarge) throw new ApiError("PAYLOAD_TOO_LARGE", `Body exceeds ${CONSOLE_MAX_BODY_BYTES} bytes`);
  const text = req.body.toString("utf8").trim();
  let value: unknown = {};
  if (text) {
    try {
      value = parseJsonInput(text);
    } catch (err) {
      if (err instanceof JsonInputError) throw new ApiError("UNPROCESSABLE_ENTITY", "Invalid JSON", [err.message]);
      throw new ApiError("UNPROCESSABLE_ENTITY", "Invalid JSON", [`Body is not valid JSON: ${(err as Error).message}`]);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError("UNPROCESSABLE_ENTITY", "Invalid body", zodMessages(parsed.error));
  return parsed.data;
}

function rateLimitHeaders(limit: number, remaining: number, resetAt: Date): Record<string, string> {
  return {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": resetAt.toISOString(),
  };
}

function toResponse(err: unknown): HttpResponse {
  if (err instanceof RateLimitedError) {
    return json(
      429,
      { error: "Too Many Requests", message: `Rate limit of ${err.limit} per minute exceeded; retry in ${err.retryAfterSeconds} s.`, retry_after: err.retryAfterSeconds },
      { ...rateLimitHeaders(err.limit, 0, err.resetAt), "retry-after": String(err.retryAfterSeconds) },
    );
  }
  if (err instanceof ApiError) return json(err.status, { code: err.code, status: err.status, data: err.details });
  log.error("unhandled error", err);
  return json(500, { code: "INTERNAL_SERVER_ERROR", status: 500, data: ["Internal server error"] });
}

/**
 * Rate-limits `req` under `name` (per session when the cookie names a live one, else per client IP).
 * Returns the headers to add to the answer; throws RateLimitedError when the limit is exhausted.
 */
export async function enforceConsoleRateLimit(req: HttpRequest, session: ConsoleSession | null, name: string, perMinute: number) {
  const subject = session ? `session:${session.id}` : `ip:${req.clientIp}`;
  const result = await consumeRateLimit(`console:${name}:${subject}`, perMinute, MINUTE_MS);
  if (!result.allowed) throw new RateLimitedError(result.limit, result.resetAt, result.retryAfterSeconds);
  return rateLimitHeaders(result.limit, result.remaining, result.resetAt);
}

/**
 * Wraps a console handler: `(ctx) => HttpResponse` becomes `(req) => HttpResponse` that never throws.
 * Errors: ApiError → its status with `{code, status, data}`; RateLimitedError → 429 with
 * `{error, message, retry_after}` and Retry-After / X-RateLimit-* headers; anything else → 500.
 */
export function consoleRoute<B = undefined>(
  options: ConsoleRouteOptions<B>,
  handler: (ctx: ConsoleContext<B>) => Promise<HttpResponse>,
): (req: HttpRequest) => Promise<HttpResponse> {
  return async (req) => {
    // Once the call is counted, its answer says how much is left, errors included.
    let limitHeaders: Record<string, string> = {};
    try {
      const config = getConfig();
      const session = await findSession(readCookie(req.headers.cookie, SESSION_COOKIE));
      if (options.rateLimit) {
        limitHeaders = await enforceConsoleRateLimit(req, session, options.rateLimit.name, options.rateLimit.perMinute(config));
      }
      const body = options.body ? parseJsonBody(req, options.body) : (undefined as B);
      const res = await handler({ req, body, session, config });
      return { ...res, headers: { ...limitHeaders, ...res.headers } };
    } catch (err) {
      const res = toResponse(err);
      return { ...res, headers: { ...limitHeaders, ...res.headers } };
    }
  };
}
