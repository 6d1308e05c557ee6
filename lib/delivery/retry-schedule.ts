/**
 * Retry schedules as data (docs/pipeline.md#retry): a connection's `retry` rule
 * `{strategy: linear|exponential, count, interval (ms), response_status_codes}` decides whether a
 * failed attempt is retried and when; every delay carries ±10 % jitter ({@link withJitter}).
 */
import { createHash } from "node:crypto";
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

/** Jitter of a retry delay: at most this fraction of it, either way. */
export const RETRY_JITTER = 0.1;

/**
 * `delayMs` with up to ±10 % ({@link RETRY_JITTER}) added, uniformly, rounded to whole ms and never
 * negative (docs/pipeline.md#retry, docs/outbound.md#publish-delivery-retries): the retries of many
 * deliveries that failed in one outage are spread instead of arriving in lockstep. `key` (e.g. the
 * event id and attempt number) makes the jitter a fixed function of the key, so that two computations
 * of one retry agree (the gateway announces the delay in `x-gateway-will-retry-after` before the
 * attempt and schedules it after); without a key it is random.
 */
export function withJitter(delayMs: number, key?: string): number {
  const u = key === undefined ? Math.random() : createHash("sha256").update(key).digest().readUInt32BE(0) / 2 ** 32;
  return Math.max(0, Math.round(delayMs * (1 + RETRY_JITTER * (2 * u - 1))));
}

/**
 * Delay before the next automatic attempt, ms, or null when there is none.
 * `attemptsMade` counts the attempts already made, this one included (1 after the first).
 * `responseStatus` is null for a failure without a response (always retryable).
 * Linear waits `interval` each time; exponential waits `interval * 2^(retry-1)`; either ±10 % jitter
 * ({@link withJitter} with `jitterKey`), never more than a week.
 */
export function nextRetryDelay(rule: RetryRule | null | undefined, attemptsMade: number, responseStatus: number | null, jitterKey?: string): number | null {
  if (!rule) return null;
  const count = rule.count ?? 0;
  const retriesMade = attemptsMade - 1;
  if (retriesMade >= count) return null;
  if (responseStatus !== null && !statusMatches(responseStatus, rule.response_status_codes)) return null;
  const interval = rule.interval ?? DEFAULT_RETRY_INTERVAL_MS;
  const delay = rule.strategy === "exponential" ? interval * 2 ** retriesMade : interval;
  return Math.min(withJitter(delay, jitterKey), MAX_RETRY_DELAY_MS);
}
