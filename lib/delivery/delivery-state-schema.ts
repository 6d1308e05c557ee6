/**
 * The API shape of a destination's receiver-driven limits and circuit breaker (docs/pipeline.md
 * "Receiver-driven limits"): the read-only field `delivery_state` of gateway and outbound destinations.
 * Schema only (no database), so API schemas and pages can import it.
 */
import { z } from "zod";

/** A destination's delivery state as the APIs show it (the additive, read-only field `delivery_state`). */
export const ZDeliveryState = z
  .object({
    paused_until: z.iso
      .datetime()
      .nullable()
      .meta({ description: "Until when deliveries wait because the receiver answered 429 or 503 with Retry-After; null when not paused." }),
    pause_reason: z.string().nullable().meta({ description: "The status that asked for the pause (`429` or `503`); null when not paused." }),
    pace: z
      .number()
      .int()
      .nullable()
      .meta({ description: "Deliveries per second while slowed after repeated 429s without Retry-After; null when not slowed." }),
    circuit: z.object({
      state: z
        .enum(["closed", "open", "half_open"])
        .meta({ description: "closed: delivering; open: deliveries wait (no retry spent); half_open: one probe decides." }),
      changed_at: z.iso.datetime().nullable().meta({ description: "When the state last changed; null when nothing ever failed." }),
      next_probe_at: z.iso.datetime().nullable().meta({ description: "While open: when the probe may go." }),
    }),
  })
  .meta({ description: "Receiver-driven limits and the circuit breaker of a destination (read-only)." });
export type DeliveryStateView = z.infer<typeof ZDeliveryState>;
