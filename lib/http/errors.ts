/**
 * Errors domain code throws; each surface's wrapper maps them to that surface's body
 * (lib/console/http.ts for the console). Statuses live here, in one table.
 */
export const ERROR_STATUS = {
  UNPROCESSABLE_ENTITY: 422,
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  PAYLOAD_TOO_LARGE: 413,
  BAD_REQUEST: 400,
  METHOD_NOT_ALLOWED: 405,
  TOO_MANY_REQUESTS: 429,
  UNSUPPORTED_MEDIA_TYPE: 415,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Human-readable details (validation messages). */
    readonly details: string[] = [message],
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** Thrown when a rate limit is exhausted; carries what the 429 headers need. */
export class RateLimitedError extends Error {
  constructor(
    readonly limit: number,
    readonly resetAt: Date,
    readonly retryAfterSeconds: number,
  ) {
    super("Rate limit exceeded");
  }
}

/**
 * A gateway API error: `{handled: true, status, message, data, code}` (docs/gateway-api.md#errors;
 * `code` as the real product names it: BAD_REQUEST, UNAUTHORIZED, NOT_FOUND, UNPROCESSABLE_ENTITY,
 * RESOURCE_ALREADY_EXISTS, TOO_MANY_REQUESTS…).
 */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, data: Record<string, unknown> = {}) => new GatewayError(400, "BAD_REQUEST", message, data);
export const notFound = (id: string) => new GatewayError(404, "NOT_FOUND", "Not Found", { id });
export const unprocessable = (message: string, data: Record<string, unknown> = {}) =>
  new GatewayError(422, "UNPROCESSABLE_ENTITY", "Unprocessable Entity", { message, ...data });
export const alreadyExists = (data: Record<string, unknown>) => new GatewayError(409, "RESOURCE_ALREADY_EXISTS", "Resource already exists", data);
