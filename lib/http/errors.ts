/**
 * Errors domain code throws; each surface's wrapper maps them to that surface's body
 * (lib/http/console.ts for the console). Statuses live here, in one table.
 */
export const ERROR_STATUS = {
  UNPROCESSABLE_ENTITY: 422,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  BAD_REQUEST: 400,
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
