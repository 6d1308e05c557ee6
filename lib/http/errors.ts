/**
 * The one error type of domain code (docs/errors.md): stores, services, engines and the shared HTTP kit
 * throw {@link AppError} with a code from a closed set; each surface's wrapper (lib/gateway/http.ts,
 * lib/outbound/http.ts, lib/console/http.ts, the CLI channel's lib/cli-channel/routes.ts) maps it to that
 * surface's error body and status. Nothing here knows a product.
 */

/** The codes of {@link AppError}, each with its HTTP status (the same on every surface). */
const APP_ERROR_STATUS = {
  /** Malformed input: a bad query parameter, cursor, JSON text. */
  BAD_REQUEST: 400,
  /** No or bad credentials. */
  UNAUTHORIZED: 401,
  /** Credentials that may not do this (another tenant's, a cross-site cookie request). */
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** The path exists, the method does not. */
  METHOD_NOT_ALLOWED: 405,
  /** Already exists, or a state that forbids the change. */
  CONFLICT: 409,
  /** Retired (a sunset API version). */
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  /** Well-formed input that breaks a rule (schema, unknown type, limits of a resource). */
  VALIDATION: 422,
  /** A rate or concurrency limit is exhausted; `details.retryAfterSeconds` says when to retry. */
  RATE_LIMITED: 429,
  /** A dependency is away for now (retry later). */
  UNAVAILABLE: 503,
} as const;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;
export const APP_ERROR_CODES = Object.keys(APP_ERROR_STATUS) as AppErrorCode[];

/**
 * The name of each code's HTTP status, as the surfaces' bodies spell it (the console's `code`, the CLI
 * channel's `error`, the gateway's `code` but for CONFLICT): VALIDATION is UNPROCESSABLE_ENTITY.
 */
export const APP_ERROR_NAME: Record<AppErrorCode, string> = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  GONE: "GONE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  VALIDATION: "UNPROCESSABLE_ENTITY",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
};

/** What an {@link AppError} may carry besides its code and message; every field optional. */
type AppErrorDetails = {
  /** Structured details for the client: the gateway's and the outbound service's body `data`. */
  data?: Record<string, unknown>;
  /**
   * The offending input as received (parameter names and values). The gateway's body shows it as `data`
   * (when `data` is absent); the outbound body never echoes input.
   */
  input?: Record<string, unknown>;
  /** Human-readable problems, one per line: the console's body `data`, the outbound 422 `data`. */
  messages?: string[];
  /** Dotted path of the input field at fault (`config.auth.key`, `filters[status]`), "" for the whole input. */
  field?: string;
  /** RATE_LIMITED: whole seconds until a retry may succeed (the `Retry-After` header). */
  retryAfterSeconds?: number;
  /** RATE_LIMITED: the limit per window and when the window resets (the `X-RateLimit-*` headers). */
  limit?: number;
  resetAt?: Date;
};

/**
 * An error meant for the client: `code` (closed set, {@link APP_ERROR_STATUS}), a human-readable
 * `message`, optional `details`. Thrown by domain code; answered by the surface's wrapper.
 */
export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details: AppErrorDetails = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  /** The HTTP status of `code`. */
  get status(): number {
    return APP_ERROR_STATUS[this.code];
  }

  /** The structured details as the gateway body shows them: `details.data`, else `details.input`, else `{}`. */
  get data(): Record<string, unknown> {
    return this.details.data ?? this.details.input ?? {};
  }
}

/** True when `err` is an AppError (with `code`, when given). */
export function isAppError(err: unknown, code?: AppErrorCode): err is AppError {
  return err instanceof AppError && (code === undefined || err.code === code);
}

/** 400 for malformed input; `input` echoes the offending parameters (the gateway body's `data`). */
export const badRequest = (message: string, input: Record<string, unknown> = {}) => new AppError("BAD_REQUEST", message, { input });
/** 404 for the resource `id` (the gateway body's `data: {id}`). */
export const notFound = (id: string) => new AppError("NOT_FOUND", "Not Found", { data: { id } });
/** 422: `message` names the problem; `data` adds to it (`field`, the offending id…). */
export const unprocessable = (message: string, data: Record<string, unknown> = {}) => new AppError("VALIDATION", message, { data: { message, ...data } });
/** 409: a resource with the same unique name exists; `data` names it (`{id}` of the winner, or the clashing fields). */
export const alreadyExists = (data: Record<string, unknown>) => new AppError("CONFLICT", "Resource already exists", { data });

/**
 * The same error with its field named under `prefix` (`rules.0` + `filter` → `rules.0.filter`), for a
 * validator of a nested part. Errors without a field are returned as they are.
 */
export function withFieldPrefix(err: AppError, prefix: string): AppError {
  if (typeof err.data.field !== "string") return err;
  const field = `${prefix}.${err.data.field}`;
  return new AppError(err.code, err.message, {
    ...err.details,
    field,
    data: { ...err.data, field },
  });
}
