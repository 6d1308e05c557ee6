import type { SendResult } from "@/lib/delivery/http-sender";
import type { RetryRule } from "@/lib/delivery/retry-schedule";

/** What identifies one attempt of a claimed event, from the claim to its record. */
export type AttemptContext = {
  eventId: string;
  teamId: string;
  destinationId: string;
  attemptId: string;
  /** 1 for the first attempt. */
  attemptNumber: number;
  /** INITIAL, AUTOMATIC, MANUAL, UNPAUSE, BULK_RETRY */
  trigger: string;
  /** The event's lease (`events.locked_until`) taken by the claim. */
  lease: Date;
  /** The connection's retry rule, or null for none. */
  retryRule: RetryRule | null;
};

/** The outcome of one attempt, to record. */
export type AttemptOutcome = SendResult & { requestedUrl: string | null; httpMethod: string | null; cliId?: string | null };

/** The failed attempt recorded for an event that could not be prepared: INVALID_URL for a URL that does not parse, else UNKNOWN. */
export function preparationFailure(err: unknown): AttemptOutcome {
  const message = err instanceof Error ? err.message : String(err);
  const invalidUrl = (err as { code?: unknown } | null)?.code === "ERR_INVALID_URL";
  return {
    status: null,
    body: invalidUrl
      ? `The event could not be sent: its destination URL is not valid (${message})`
      : `The event could not be prepared for delivery: ${message}`,
    errorCode: invalidUrl ? "INVALID_URL" : "UNKNOWN",
    responseLatency: null,
    deliveryLatency: 0,
    deliveredAt: new Date(),
    respondedAt: null,
    requestedUrl: null,
    httpMethod: null,
  };
}
