/**
 * Delivery to CLI destinations through `hookyard listen` streams (lib/cli-channel): the worker finds a
 * live session listening to the event's connection, marks the event with it (`cli_id`) and with the
 * attempt it carries (`cli_attempt_id`), and NOTIFYs the process that holds its stream. The CLI's answer records the attempt (POST /cli/attempts/{id}); if it
 * never comes, the event's lease expires and the sweeper queues it again.
 */
import { CLI_CHANNEL, SESSION_LIVE_MS } from "@/lib/cli-channel/feed";
import { getConfig } from "@/lib/config";
import { getBackgroundPool } from "@/lib/db/pool";
import type { AttemptContext } from "@/lib/gateway/delivery/attempt-context";
import type { EventDelivery } from "@/lib/delivery/outgoing";

type CliDispatch = AttemptContext & { connectionId: string; delivery: EventDelivery };

/** Hands the delivery to a live CLI session of its connection; false when none listens (CLI_UNAVAILABLE). */
export async function dispatchToCli(d: CliDispatch): Promise<boolean> {
  const { rows } = await getBackgroundPool().query<{ id: string }>(
    `SELECT id FROM cli_sessions
      WHERE team_id = $1 AND $2 = ANY(webhook_ids) AND closed_at IS NULL AND last_seen_at > now() - ($3 || ' milliseconds')::interval
      ORDER BY last_seen_at DESC LIMIT 1`,
    [d.teamId, d.connectionId, String(SESSION_LIVE_MS)],
  );
  const session = rows[0];
  if (!session) return false;
  await getBackgroundPool().query(
    // The worker stops renewing the lease once the CLI has the event: the lease now covers the CLI's answer (DELIVERY_TIMEOUT_MS + 5 s).
    `WITH u AS (UPDATE events SET cli_id = $1, cli_attempt_id = $5, locked_until = $6, updated_at = now() WHERE id = $2 RETURNING id)
     SELECT pg_notify($3, $4) FROM u`,
    [
      session.id,
      d.eventId,
      CLI_CHANNEL,
      JSON.stringify({ session_id: session.id, attempt_id: d.attemptId, event_id: d.eventId }),
      d.attemptId,
      new Date(Date.now() + getConfig().deliveryTimeoutMs + 5000),
    ],
  );
  return true;
}
