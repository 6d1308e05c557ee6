/**
 * What became of a captured request (the console's inspect view, docs/console-api.md#endpoints): its events, each
 * with its attempts (CLI deliveries included), and its ignored events; and retrying it. Reads are reached
 * with the test URL's id like every console read (the id is the capability,
 * docs/console-api.md#who-may-read-and-change-a-test-url); a retry also needs the owning workspace's cookie. Guest workspaces' sources only
 * (lib/console/console-source.ts).
 */
import { z } from "zod";
import { type ConsoleSource, requireConsoleSource, requireOwnedConsoleSource } from "@/lib/console/console-source";
import type { ConsoleSession } from "@/lib/console/sessions";
import { getPool } from "@/lib/db/pool";
import { retryRequest } from "@/lib/gateway/delivery/event-actions";
import { AppError } from "@/lib/http/errors";

const ZConsoleAttempt = z.object({
  id: z.string(),
  attempt_number: z.number().int(),
  trigger: z.string(),
  status: z.enum(["SUCCESSFUL", "FAILED"]),
  response_status: z.number().int().nullable(),
  error_code: z.string().nullable(),
  body: z.string().nullable().meta({ description: "The response body (first 64 KiB), as text" }),
  delivery_latency: z.number().int().nullable().meta({ description: "ms" }),
  created_at: z.iso.datetime(),
});
const ZConsoleEvent = z.object({
  id: z.string(),
  connection: z.object({ id: z.string(), name: z.string().nullable() }),
  destination: z.object({ id: z.string(), name: z.string().nullable(), type: z.string().nullable() }),
  status: z.enum(["SCHEDULED", "QUEUED", "HOLD", "SUCCESSFUL", "FAILED", "CANCELLED"]),
  attempts: z.array(ZConsoleAttempt),
  response_status: z.number().int().nullable(),
  error_code: z.string().nullable(),
  next_attempt_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export const ZConsoleDeliveries = z
  .object({
    request_id: z.string(),
    rejection_cause: z.string().nullable(),
    events: z.array(ZConsoleEvent),
    ignored_events: z.array(
      z.object({ id: z.string(), cause: z.string(), connection: z.object({ id: z.string(), name: z.string().nullable() }), created_at: z.iso.datetime() }),
    ),
  })
  .meta({ id: "RequestDeliveries" });
export type TConsoleDeliveries = z.infer<typeof ZConsoleDeliveries>;
export type TConsoleEvent = z.infer<typeof ZConsoleEvent>;

/** Request `requestId` of the test URL `source`; throws AppError NOT_FOUND when they do not belong together. */
async function requestOf(source: ConsoleSource, publicId: string, requestId: string): Promise<{ rejection_cause: string | null }> {
  const { rows } = await getPool().query<{ rejection_cause: string | null }>("SELECT rejection_cause FROM requests WHERE id = $1 AND source_id = $2", [
    requestId,
    source.id,
  ]);
  if (!rows[0]) throw new AppError("NOT_FOUND", "No such request", { messages: [`No request "${requestId}" on test URL "${publicId}"`] });
  return rows[0];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Rows of the three queries of getRequestDeliveries (pg's column types). */
type EventRow = {
  id: string;
  webhook_id: string;
  connection_name: string | null;
  destination_id: string;
  destination_name: string | null;
  destination_type: string | null;
  status: TConsoleEvent["status"];
  response_status: number | null;
  error_code: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
};
type AttemptRow = Omit<z.infer<typeof ZConsoleAttempt>, "created_at"> & { event_id: string; created_at: Date };
type IgnoredRow = { id: string; cause: string; webhook_id: string; connection_name: string | null; created_at: Date };

/**
 * The events (newest first, at most 50) and ignored events of request `requestId` of test URL
 * `publicId`. Throws AppError NOT_FOUND when they do not belong together or `publicId` is not a test URL
 * (a gateway team's source included: the console serves test URLs only).
 */
export async function getRequestDeliveries(publicId: string, requestId: string): Promise<TConsoleDeliveries> {
  const request = await requestOf(await requireConsoleSource(publicId), publicId, requestId);
  const pool = getPool();
  const { rows: events } = await pool.query<EventRow>(
    `SELECT e.id, e.webhook_id, w.name AS connection_name, e.destination_id, d.name AS destination_name, d.type AS destination_type,
            e.status, e.response_status, e.error_code, e.next_attempt_at, e.created_at
       FROM events e LEFT JOIN connections w ON w.id = e.webhook_id LEFT JOIN destinations d ON d.id = e.destination_id
      WHERE e.request_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT 50`,
    [requestId],
  );
  const { rows: attempts } = await pool.query<AttemptRow>(
    `SELECT id, event_id, attempt_number, trigger, status, response_status, error_code, left(body, 65536) AS body, delivery_latency, created_at
       FROM attempts WHERE event_id = ANY($1) ORDER BY attempt_number`,
    [events.map((e) => e.id)],
  );
  const { rows: ignored } = await pool.query<IgnoredRow>(
    `SELECT i.id, i.cause, i.webhook_id, w.name AS connection_name, i.created_at
       FROM ignored_events i LEFT JOIN connections w ON w.id = i.webhook_id WHERE i.request_id = $1 ORDER BY i.created_at DESC LIMIT 50`,
    [requestId],
  );
  return {
    request_id: requestId,
    rejection_cause: request.rejection_cause,
    events: events.map((e) => ({
      id: e.id,
      connection: { id: e.webhook_id, name: e.connection_name },
      destination: { id: e.destination_id, name: e.destination_name, type: e.destination_type },
      status: e.status,
      attempts: attempts
        .filter((a) => a.event_id === e.id)
        .map((a) => ({
          id: a.id,
          attempt_number: a.attempt_number,
          trigger: a.trigger,
          status: a.status,
          response_status: a.response_status,
          error_code: a.error_code,
          body: a.body,
          delivery_latency: a.delivery_latency,
          created_at: a.created_at.toISOString(),
        })),
      response_status: e.response_status,
      error_code: e.error_code,
      next_attempt_at: iso(e.next_attempt_at),
      created_at: e.created_at.toISOString(),
    })),
    ignored_events: ignored.map((i) => ({
      id: i.id,
      cause: i.cause,
      connection: { id: i.webhook_id, name: i.connection_name },
      created_at: i.created_at.toISOString(),
    })),
  };
}

/**
 * Runs request `requestId` of test URL `publicId` through the test URL's connections again (for a test
 * URL: the CLI's), for the caller holding `session`. Returns the ids of the new events (none when nothing
 * listens). Throws AppError NOT_FOUND (not a test URL, or not its request) and FORBIDDEN when `session`
 * is not the owning workspace's (a state change needs the owner's cookie: docs/console-api.md#workspaces-and-the-session-cookie).
 */
export async function retryConsoleRequest(
  publicId: string,
  requestId: string,
  session: ConsoleSession | null,
): Promise<{ request_id: string; event_ids: string[] }> {
  const source = await requireOwnedConsoleSource(publicId, session);
  await requestOf(source, publicId, requestId);
  return { request_id: requestId, event_ids: await retryRequest(source.team_id, requestId) };
}
