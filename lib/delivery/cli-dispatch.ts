/**
 * Delivery to CLI destinations through `hookyard listen` streams. Placeholder until the CLI channel
 * lands: no stream is ever connected, so every CLI delivery fails with CLI_UNAVAILABLE.
 */
import type { AttemptContext } from "@/lib/delivery/attempt-context";
import type { EventDelivery } from "@/lib/delivery/outgoing";

export type CliDispatch = AttemptContext & { connectionId: string; delivery: EventDelivery };

/** Hands the delivery to a connected CLI stream; false when none listens to the connection. */
export async function dispatchToCli(_d: CliDispatch): Promise<boolean> {
  return false;
}
