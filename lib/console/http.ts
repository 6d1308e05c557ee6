/**
 * The console API wrapper (docs/console-api.md, docs/architecture.md#api-wrappers): session, rate limit and
 * its headers, body parsing with zod, the handler, and mapping every thrown error to the console's
 * error bodies (every AppError by its code: docs/errors.md "Console"). It is the only try/catch of this surface.
 */
import { z } from "zod";
import { type Config, getConfig } from "@/lib/config";
import { type ConsoleSession, findSession, SESSION_COOKIE } from "@/lib/console/sessions";
import { readCookie } from "@/lib/http/cookies";
import { APP_ERROR_NAME, AppError } from "@/lib/http/errors";
import { parseJsonInput } from "@/lib/http/json-input";
import { consumeRateLimit, rateLimitHeaders } from "@/lib/http/rate-limit";
import { type HttpRequest, type HttpResponse, json } from "@/lib/http/types";
import { logger } from "@/lib/log";

/** Largest console API body, bytes (a create body is a few dozen). */
export const CONSOLE_MAX_BODY_BYTES = 64 * 1024;
const MINUTE_MS = 60_000;
const log = logger("console");

type ConsoleContext<B> = {
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
function zodMessages(error: z.ZodError): string[] {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
}

function parseJsonBody<B>(req: HttpRequest, schema: z.ZodType<B>): B {
  if (req.bodyTooLarge) throw new AppError("PAYLOAD_TOO_LARGE", `Body exceeds ${CONSOLE_MAX_BODY_BYTES} bytes`);
  const text = req.body.toString("utf8").trim();
  let value: unknown = {};
  if (text) {
    try {
      value = parseJsonInput(text);
    } catch (err) {
      throw new AppError("VALIDATION", "Invalid JSON", {
        messages: [err instanceof AppError ? err.message : `Body is not valid JSON: ${(err as Error).message}`],
      });
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError("VALIDATION", "Invalid body", { messages: zodMessages(parsed.error) });
  return parsed.data;
}

/**
 * The console's one error-body writer. RATE_LIMITED (with `details.limit`, `resetAt` and
 * `retryAfterSeconds`) → 429 `{error, message, retry_after}` with Retry-After and X-RateLimit-* headers;
 * any other AppError → its status with `{code, status, data}` (`code`: APP_ERROR_NAME; `data`: `details.messages`, else
 * `[message]`); anything else → 500.
 */
export function consoleErrorResponse(err: unknown): HttpResponse {
  if (
    err instanceof AppError &&
    err.code === "RATE_LIMITED" &&
    err.details.limit !== undefined &&
    err.details.resetAt &&
    err.details.retryAfterSeconds !== undefined
  ) {
    const { limit, resetAt, retryAfterSeconds } = err.details;
    return json(
      429,
      { error: "Too Many Requests", message: `Rate limit of ${limit} per minute exceeded; retry in ${retryAfterSeconds} s.`, retry_after: retryAfterSeconds },
      rateLimitHeaders(limit, 0, resetAt, { retryAfterSeconds }),
    );
  }
  if (err instanceof AppError) return json(err.status, { code: APP_ERROR_NAME[err.code], status: err.status, data: err.details.messages ?? [err.message] });
  log.error("unhandled error", err);
  return json(500, { code: "INTERNAL_SERVER_ERROR", status: 500, data: ["Internal server error"] });
}

/**
 * Rate-limits `req` under `name` (per session when the cookie names a live one, else per client IP).
 * Returns the headers to add to the answer; throws a RATE_LIMITED AppError when the limit is exhausted.
 */
async function enforceConsoleRateLimit(req: HttpRequest, session: ConsoleSession | null, name: string, perMinute: number) {
  const subject = session ? `session:${session.id}` : `ip:${req.clientIp}`;
  const result = await consumeRateLimit(`console:${name}:${subject}`, perMinute, MINUTE_MS);
  if (!result.allowed) {
    throw new AppError("RATE_LIMITED", "Rate limit exceeded", { limit: result.limit, resetAt: result.resetAt, retryAfterSeconds: result.retryAfterSeconds });
  }
  return rateLimitHeaders(result.limit, result.remaining, result.resetAt);
}

/**
 * Wraps a console handler: `(ctx) => HttpResponse` becomes `(req) => HttpResponse` that never throws.
 * Errors are answered by {@link consoleErrorResponse}.
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
      const res = consoleErrorResponse(err);
      return { ...res, headers: { ...limitHeaders, ...res.headers } };
    }
  };
}
