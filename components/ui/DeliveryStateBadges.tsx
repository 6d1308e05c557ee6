"use client";

import { Badge } from "@/components/ui/Badge";
import { AbsoluteTime } from "@/components/ui/Time";

/** A destination's `delivery_state` as the gateway and outbound APIs show it (docs/pipeline.md "Receiver-driven limits"). */
export type DeliveryState = {
  paused_until: string | null;
  pause_reason: string | null;
  pace: number | null;
  circuit: { state: "closed" | "open" | "half_open"; changed_at: string | null; next_probe_at: string | null };
};

/**
 * Small badges for a destination's receiver-driven limits: a pause asked for with `Retry-After` (until
 * when, and by which status), a slowed pace, and the circuit breaker's state (when it may probe again,
 * while open). Nothing when `state` is absent (an API without the field).
 */
export function DeliveryStateBadges({ state }: { state: DeliveryState | null | undefined }) {
  if (!state) return null;
  const { circuit } = state;
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5" data-testid="delivery-state">
      {circuit.state === "open" && (
        <Badge tone="danger" data-circuit="open" title="Deliveries wait without spending retries; one probe goes after the cool-down.">
          Circuit open
          {circuit.next_probe_at && (
            <>
              , probe at <AbsoluteTime iso={circuit.next_probe_at} />
            </>
          )}
        </Badge>
      )}
      {circuit.state === "half_open" && (
        <Badge tone="warning" data-circuit="half_open" title="One probe delivery decides whether the circuit closes.">
          Circuit half-open: probing
        </Badge>
      )}
      {circuit.state === "closed" && (
        <Badge tone="success" data-circuit="closed" title="Deliveries flow normally.">
          Circuit closed
        </Badge>
      )}
      {state.paused_until && (
        <Badge tone="warning" data-paused title={`The receiver answered ${state.pause_reason ?? ""} with Retry-After.`}>
          Paused until <AbsoluteTime iso={state.paused_until} />
          {state.pause_reason && ` (${state.pause_reason})`}
        </Badge>
      )}
      {state.pace !== null && (
        <Badge tone="info" data-pace={state.pace} title="Slowed after repeated 429 answers; recovers gradually.">
          Pace {state.pace}/s
        </Badge>
      )}
    </span>
  );
}
