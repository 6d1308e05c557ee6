/**
 * Operations on events and requests that move them through the delivery engine
 * (docs/gateway-api.md#events): manual retry, cancel, request retry
 * (fan out again), and the release of HOLD events when a connection is unpaused.
 */
import { getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { enqueueDeliveries } from "@/lib/delivery/jobs";
import { fanOutNow } from "@/lib/gateway/pipeline/fanout";
import { notFound, unprocessable } from "@/lib/http/errors";
import { freshOrderingPos, type OrderingKeyRef, promoteHeads, retryOrderingSet } from "@/lib/gateway/delivery/ordering";

/** Statuses an event can be cancelled from (not yet delivered for good). */
export const CANCELLABLE = ["SCHEDULED", "QUEUED", "HOLD"] as const;

/**
 * Queues event `eventId` of `teamId` for a new attempt now, with `trigger` (MANUAL from the API,
 * BULK_RETRY from bulk operations), whatever its status (a manual retry works on any final status).
 * An ordered event that had finished goes to the end of its key's sequence; a blocked one is released and
 * retried in its place (docs/pipeline.md "Ordered delivery"). Throws 404 for an unknown or foreign event.
 */
export async function retryEvent(teamId: string, eventId: string, trigger: "MANUAL" | "BULK_RETRY" = "MANUAL"): Promise<void> {
  await inTransaction(async (client) => {
    const { rowCount } = await client.query(
      `UPDATE events SET ${retryOrderingSet("$4")}, status = 'QUEUED', next_trigger = $3, next_attempt_at = now(), updated_at = now()
        WHERE id = $1 AND team_id = $2`,
      [eventId, teamId, trigger, freshOrderingPos()],
    );
    if (!rowCount) throw notFound(eventId);
    await enqueueDeliveries(client, [eventId]);
  });
}

/**
 * Cancels event `eventId` of `teamId`: SCHEDULED, QUEUED or HOLD become CANCELLED (error_code
 * CANCELLED) and are never delivered; so does a FAILED ordered event that blocks its key, which releases
 * the key (docs/pipeline.md "Ordered delivery"). Throws 404 for an unknown event, 422 when it is not cancellable.
 */
export async function cancelEvent(teamId: string, eventId: string): Promise<void> {
  const { rows } = await getPool().query<{ status: string; cancelled: boolean } & OrderingKeyRef>(
    `WITH u AS (${CANCEL_SQL("id = $1 AND team_id = $2", "$3")} RETURNING id)
     SELECT e.status, e.destination_id, e.ordering_key, EXISTS (SELECT 1 FROM u) AS cancelled FROM events e WHERE e.id = $1 AND e.team_id = $2`,
    [eventId, teamId, CANCELLABLE],
  );
  if (!rows[0]) throw notFound(eventId);
  if (!rows[0].cancelled) throw unprocessable(`Event ${eventId} is ${rows[0].status} and cannot be cancelled`, { id: eventId, status: rows[0].status });
  if (rows[0].ordering_key !== null) await promoteHeads(rows);
}

/**
 * The UPDATE that cancels the events matching `where` whose status is one of `statusesParam` (or that
 * block their ordering key). Shared by the event cancel and the bulk cancel.
 */
export const CANCEL_SQL = (where: string, statusesParam: string) =>
  `UPDATE events SET status = 'CANCELLED', error_code = 'CANCELLED', next_attempt_at = NULL, ordering_blocked_at = NULL, updated_at = now()
    WHERE ${where} AND (status = ANY(${statusesParam}) OR ordering_blocked_at IS NOT NULL)`;

/**
 * Runs request `requestId` of `teamId` through its source's active connections again (or only
 * `webhookIds`, which must be active connections of that source: 422 with `data.id` otherwise).
 * Returns the ids of the new events. Throws 404 for an unknown request.
 */
export async function retryRequest(teamId: string, requestId: string, webhookIds?: string[]): Promise<string[]> {
  const { rows } = await getPool().query<{ source_id: string }>("SELECT source_id FROM requests WHERE id = $1 AND team_id = $2", [requestId, teamId]);
  if (!rows[0]) throw notFound(requestId);
  if (webhookIds) {
    const { rows: found } = await getPool().query<{ id: string; disabled_at: Date | null }>(
      "SELECT id, disabled_at FROM connections WHERE id = ANY($1) AND team_id = $2 AND source_id = $3",
      [webhookIds, teamId, rows[0].source_id],
    );
    for (const id of webhookIds) {
      const c = found.find((f) => f.id === id);
      if (!c || c.disabled_at) throw unprocessable(`Connection ${id} does not exist or is disabled (or is not a connection of the request's source)`, { id });
    }
  }
  return fanOutNow([requestId], webhookIds);
}

/** Queues the HOLD events of connection `connectionId` (on unpause) with trigger UNPAUSE. Returns how many. */
export async function releaseHeldEvents(connectionId: string): Promise<number> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `UPDATE events SET status = 'QUEUED', next_trigger = 'UNPAUSE', next_attempt_at = now(), updated_at = now()
        WHERE webhook_id = $1 AND status = 'HOLD' RETURNING id`,
      [connectionId],
    );
    await enqueueDeliveries(
      client,
      rows.map((r) => r.id),
    );
    return rows.length;
  });
}
