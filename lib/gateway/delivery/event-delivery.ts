/**
 * What one attempt of an event sends, loaded from the database (docs/pipeline.md#delivery-engine): the event
 * with its connection, source, destination, request data (the transformation's output when there is one,
 * else the request as received) and the team's signing secrets. Shared by the worker's claim
 * (deliver-event.ts) and by the CLI channel, whose stream rebuilds the delivery a worker handed it
 * (lib/cli-channel): both then build the request with lib/delivery/outgoing.ts.
 */
import { decryptJson, decryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import type { EventDelivery } from "@/lib/delivery/outgoing";
import { storedSigningSecrets } from "@/lib/teams/signing-secret";

/**
 * Transformed request data (`events.data`): the body as a string, or, when it holds U+0000 (which
 * `jsonb` cannot store), null with the bytes in `body_base64` (docs/pipeline.md "Text PostgreSQL cannot store").
 */
export type TransformedData = { path: string; query: string; headers: Record<string, string>; body: string | null; body_base64?: string };

/** The bytes of transformed data's body, or null for none. Throws a TypeError when the stored body is neither text nor base64. */
function transformedBodyBytes(t: Pick<TransformedData, "body" | "body_base64">): Buffer | null {
  if (typeof t.body_base64 === "string") return Buffer.from(t.body_base64, "base64");
  if (t.body === null || t.body === undefined) return null;
  if (typeof t.body !== "string") throw new TypeError("its stored data has a body that is not text");
  return Buffer.from(t.body, "utf8");
}

/** A row of `SELECT_DELIVERY` over `c` (the event's columns listed in `EVENT_DELIVERY_COLUMNS`). */
export type DeliveryRow = {
  id: string;
  team_id: string;
  webhook_id: string;
  destination_id: string;
  request_id: string;
  attempts: number;
  next_trigger: string;
  data: TransformedData | null;
  /** The W3C traceparent its attempts' spans are children of (docs/operations.md "Traces"); null untraced. */
  trace_parent: string | null;
  connection_name: string | null;
  rules: unknown;
  paused_at: Date | null;
  connection_disabled_at: Date | null;
  source_name: string | null;
  destination_name: string | null;
  destination_type: string | null;
  destination_config: Record<string, unknown> | null;
  destination_auth: string | null;
  destination_disabled_at: Date | null;
  verified: boolean | null;
  method: string | null;
  path: string | null;
  query: string | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
  client_ip: string | null;
  s: string | null;
  p: string | null;
  e: Date | null;
};

/** The event columns `SELECT_DELIVERY` expects from `c`. */
export const EVENT_DELIVERY_COLUMNS = "id, team_id, webhook_id, destination_id, request_id, attempts, next_trigger, data, trace_parent";

/** Everything a delivery needs, joined to the events of a `c` (CTE) with `EVENT_DELIVERY_COLUMNS`. */
export const SELECT_DELIVERY = `
SELECT c.*, w.name AS connection_name, w.rules, w.paused_at, w.disabled_at AS connection_disabled_at, s.name AS source_name,
       d.name AS destination_name, d.type AS destination_type, d.config AS destination_config, d.auth_encrypted AS destination_auth,
       d.disabled_at AS destination_disabled_at, r.verified, raw.method, raw.path, raw.query, raw.headers, raw.body, raw.client_ip,
       t.signing_secret_encrypted AS s, t.previous_signing_secret_encrypted AS p, t.previous_signing_secret_expires_at AS e
  FROM c
  LEFT JOIN connections w ON w.id = c.webhook_id
  LEFT JOIN sources s ON s.id = w.source_id
  LEFT JOIN destinations d ON d.id = c.destination_id
  LEFT JOIN requests r ON r.id = c.request_id
  LEFT JOIN request_raw_data raw ON raw.request_id = c.request_id
  LEFT JOIN teams t ON t.id = c.team_id`;

/** The request an event delivers: the transformation's output when there is one, else the request as received. */
export function deliveredRequest(row: Pick<DeliveryRow, "data" | "method" | "path" | "query" | "headers" | "body">) {
  const t = row.data;
  return {
    method: row.method ?? "POST",
    path: t?.path ?? row.path ?? "/",
    query: t?.query ?? row.query ?? "",
    headers: t?.headers ?? row.headers ?? {},
    body: t ? transformedBodyBytes(t) : row.body,
  };
}

/**
 * Attempt `attemptId` of the event in `row` (the next one: number `attempts + 1`, trigger `next_trigger`).
 * Throws when the team has no signing secret in `row`: nothing is signed with an empty key (callers
 * give such a row to {@link withSigningSecret} first).
 */
export function toEventDelivery(row: DeliveryRow, attemptId: string): EventDelivery {
  if (!row.s) throw new Error(`team ${row.team_id} has no signing secret`);
  return {
    eventId: row.id,
    requestId: row.request_id,
    attemptId,
    attemptNumber: row.attempts + 1,
    trigger: row.next_trigger,
    sourceName: row.source_name ?? "",
    connectionName: row.connection_name ?? "",
    destinationName: row.destination_name ?? "",
    verified: row.verified === true,
    clientIp: row.client_ip,
    ...deliveredRequest(row),
    destination: { type: row.destination_type ?? "", config: row.destination_config ?? {}, auth: decryptJson<Record<string, unknown>>(row.destination_auth) },
    secrets: { current: decryptSecret(row.s), previous: row.p && row.e && row.e > new Date() ? decryptSecret(row.p) : null },
  };
}

/**
 * `row` with its team's signing secret: a team stored before every team got one at creation (guest
 * workspaces of earlier versions) gets one now (lib/teams/signing-secret.ts storedSigningSecrets).
 */
export async function withSigningSecret(row: DeliveryRow): Promise<DeliveryRow> {
  return row.s ? row : { ...row, ...(await storedSigningSecrets(row.team_id)) };
}

/** The delivery of attempt `attemptId` of event `eventId` as it stands now (no claim), or null for no such event. */
export async function loadEventDelivery(eventId: string, attemptId: string): Promise<{ row: DeliveryRow; delivery: EventDelivery } | null> {
  const { rows } = await getPool().query<DeliveryRow>(`WITH c AS (SELECT ${EVENT_DELIVERY_COLUMNS} FROM events WHERE id = $1) ${SELECT_DELIVERY}`, [eventId]);
  const row = rows[0] && (await withSigningSecret(rows[0]));
  return row ? { row, delivery: toEventDelivery(row, attemptId) } : null;
}
