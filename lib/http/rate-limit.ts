import { getPool } from "@/lib/db/pool";

type RateLimitResult = {
  allowed: boolean;
  limit: number;
  /** Calls left in this window (0 when exhausted). */
  remaining: number;
  /** When the current window ends. */
  resetAt: Date;
  /** Whole seconds until `resetAt`, at least 1. */
  retryAfterSeconds: number;
};

/**
 * The `X-RateLimit-Limit`, `-Remaining` and `-Reset` headers of a counted call, and `Retry-After` when
 * `retryAfterSeconds` is given: the one writer of every surface (docs/errors.md). `reset` is ISO 8601
 * (the gateway and the console, default) or Unix seconds (the outbound managed form).
 */
export function rateLimitHeaders(
  limit: number,
  remaining: number,
  resetAt: Date,
  options: { reset?: "iso" | "unix"; retryAfterSeconds?: number } = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": options.reset === "unix" ? String(Math.ceil(resetAt.getTime() / 1000)) : resetAt.toISOString(),
  };
  if (options.retryAfterSeconds !== undefined) headers["retry-after"] = String(options.retryAfterSeconds);
  return headers;
}

/**
 * Counts one call against `key` in a fixed window of `windowMs` (ms) and says whether it is allowed
 * (count ≤ `limit`). Counters live in PostgreSQL (`rate_limit_counters`), so a limit holds across every
 * process; one upsert per call. Old windows are purged now and then. Throws on database errors.
 */
export async function consumeRateLimit(key: string, limit: number, windowMs: number, now = Date.now()): Promise<RateLimitResult> {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const pool = getPool();
  const { rows } = await pool.query<{ count: number }>(
    `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
     RETURNING count`,
    [key, new Date(windowStart)],
  );
  if (Math.random() < 0.01) {
    void pool.query("DELETE FROM rate_limit_counters WHERE window_start < now() - interval '1 day'").catch(() => {});
  }
  const count = rows[0].count;
  const resetAt = new Date(windowStart + windowMs);
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000)),
  };
}
