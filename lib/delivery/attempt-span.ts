import type { Attributes } from "@opentelemetry/api";
import { inSpan, SpanKind } from "@/lib/tracing";

/** What an attempt span reports of an outcome: the HTTP status (null: no answer), success, the failure's code. */
export type AttemptSummary = { status: number | null; success: boolean; errorCode: string | null };

/**
 * Runs one delivery attempt (`send`) inside a `delivery attempt` client span (docs/operations.md "Traces"):
 * a child of `parent` (the traceparent stored with the event; without one, of the active span), with
 * `attributes` (destination id, attempt number…), and, once it resolves, `http.response.status_code`,
 * `hookyard.attempt.outcome` (`success`, `failure`, or `pending` when `summary` gives null: nothing answered
 * yet, e.g. a hand-over to `hookyard listen`) and `hookyard.attempt.error_code`, from `summary` of the outcome.
 * Requests sent meanwhile carry the span's `traceparent` (lib/delivery/http-sender.ts). With tracing off,
 * just runs `send`.
 */
export function attemptSpan<T>(
  parent: string | null | undefined,
  attributes: Attributes,
  send: () => Promise<T>,
  summary: (outcome: T) => AttemptSummary | null,
): Promise<T> {
  return inSpan(
    "delivery attempt",
    parent,
    attributes,
    async (span) => {
      const outcome = await send();
      if (span) {
        const s = summary(outcome);
        span.setAttribute("hookyard.attempt.outcome", s === null ? "pending" : s.success ? "success" : "failure");
        if (s?.status != null) span.setAttribute("http.response.status_code", s.status);
        if (s?.errorCode) span.setAttribute("hookyard.attempt.error_code", s.errorCode);
      }
      return outcome;
    },
    SpanKind.CLIENT,
  );
}
