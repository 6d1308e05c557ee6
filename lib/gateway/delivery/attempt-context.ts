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
