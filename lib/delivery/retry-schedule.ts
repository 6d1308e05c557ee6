/**
 * Retry schedules as data (docs/pipeline.md#retry): a connection's `retry` rule
 * `{strategy: linear|exponential, count, interval (ms), response_status_codes}` decides whether a
 * failed attempt is retried and when.
 */
export type RetryRule = {
  type: "retry";
  strategy?: "linear" | "exponential" | null;
  count?: number | null;
  interval?: number | null;
  response_status_codes?: string[] | null;
};

/** Interval when a rule gives none, ms (one hour, the real product's default). */
const DEFAULT_RETRY_INTERVAL_MS = 3_600_000;
/** Longest wait between two attempts, ms (one week). */
const MAX_RETRY_DELAY_MS = 7 * 24 * 3_600_000;

/**
 * True when HTTP `status` matches the rule's `response_status_codes`: entries are single codes
 * ("404"), ranges ("500-599"), comparisons (">400", ">=500", "<300", "<=299") and exclusions ("!401").
 * An exclusion wins; with only exclusions every other non-2xx status matches. Absent or empty: every
 * non-2xx status matches.
 */
export function statusMatches(status: number, codes: readonly string[] | null | undefined): boolean {
  if (!codes || codes.length === 0) return status < 200 || status >= 300;
  const includes: string[] = [];
  for (const raw of codes) {
    const code = raw.trim();
    if (code.startsWith("!")) {
      if (matchOne(status, code.slice(1))) return false;
    } else includes.push(code);
  }
  if (includes.length === 0) return status < 200 || status >= 300;
  return includes.some((c) => matchOne(status, c));
}

function matchOne(status: number, code: string): boolean {
  let m = /^(\d{3})\s*-\s*(\d{3})$/.exec(code);
  if (m) return status >= Number(m[1]) && status <= Number(m[2]);
  m = /^(>=|<=|>|<)\s*(\d{3})$/.exec(code);
  if (m) {
    const n = Number(m[2]);
    return m[1] === ">" ? status > n : m[1] === ">=" ? status >= n : m[1] === "<" ? status < n : status <= n;
  }
  return /^\d{3}$/.test(code) && Number(code) === status;
}

/**
 * Delay before the next automatic attempt, ms, or null when there is none.
 * `attemptsMade` counts the attempts already made, this one included (1 after the first).
 * `responseStatus` is null for a failure without a response (always retryable).
 * Linear waits `interval` each time; exponential waits `interval * 2^(retry-1)`.
 */
export function nextRetryDelay(rule: RetryRule | null | undefined, attemptsMade: number, responseStatus: number | null): number | null {
  if (!rule) return null;
  const count = rule.count ?? 0;
  const retriesMade = attemptsMade - 1;
  if (retriesMade >= count) return null;
  if (responseStatus !== null && !statusMatches(responseStatus, rule.response_status_codes)) return null;
  const interval = rule.interval ?? DEFAULT_RETRY_INTERVAL_MS;
  const delay = rule.strategy === "exponential" ? interval * 2 ** retriesMade : interval;
  return Math.min(delay, MAX_RETRY_DELAY_MS);
}
