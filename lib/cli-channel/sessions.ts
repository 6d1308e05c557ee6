/**
 * CLI sessions (docs/cli.md#protocol): `hookyard listen` authenticates with the
 * workspace's `cli_key` (never an API key), gets its source (found or created by name) and the source's
 * CLI connections (created when there is none), and opens a stream. Deliveries to a CLI destination go
 * to a live session of its connection, and the CLI reports each outcome back as an attempt.
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { getSigningSecrets } from "@/lib/teams/signing-secret";
import { inTransaction } from "@/lib/db/transaction";
import { recordAttempt } from "@/lib/gateway/delivery/deliver-event";
import { loadEventDelivery } from "@/lib/gateway/delivery/event-delivery";
import { enqueueDeliveries } from "@/lib/delivery/jobs";
import { deliveryHeaders, type EventDelivery } from "@/lib/delivery/outgoing";
import type { RetryRule } from "@/lib/delivery/retry-schedule";
import { createConnection } from "@/lib/gateway/connections/connection-store";
import { bumpConfigGeneration } from "@/lib/db/config-generation";
import { findDestinationByName } from "@/lib/gateway/destinations/destination-store";
import { createSource, findSourceByName } from "@/lib/gateway/sources/source-store";
import { AppError } from "@/lib/http/errors";
import { ingestUrlFor } from "@/lib/urls";
import { createId } from "@/lib/ids";

export const ZCliSessionCreate = z.strictObject({
  source_name: z.string().trim().min(1).max(155),
  connection_name: z.string().trim().min(1).max(155).optional(),
  path: z.string().max(2000).startsWith("/").optional(),
});

/**
 * The secret that signs what the CLI forwards (docs/cli.md "The signing secret of forwarded requests"):
 * HMAC-SHA256 of a fixed label keyed with the team's signing secret, base64url. `listen` is given this, not
 * the team's secret: it lets a local server verify forwarded requests, but not sign a request that a
 * production destination (which verifies with the team's secret) would accept; it changes when the team's
 * secret is rotated.
 */
export const cliSigningSecret = (teamSecret: string): string => createHmac("sha256", teamSecret).update("hookyard cli forwarding v1").digest("base64url");

/**
 * Opens a session for `teamId`: finds or creates the source `source_name`, finds its connections to CLI
 * destinations (only `connection_name` when given) or creates `cli-<source>` to a CLI destination with
 * `path`. Returns `{id, source, connections}`.
 */
export async function createCliSession(teamId: string, input: z.infer<typeof ZCliSessionCreate>) {
  let source = await findSourceByName(teamId, input.source_name);
  source ??= await createSource(teamId, { name: input.source_name }, "2025-07-01").catch(async (err) => {
    const again = await findSourceByName(teamId, input.source_name);
    if (again) return again;
    throw err;
  });
  const load = () =>
    getPool().query<{ id: string; name: string; path: string | null }>(
      `SELECT w.id, w.name, d.config->>'path' AS path FROM connections w JOIN destinations d ON d.id = w.destination_id
        WHERE w.source_id = $1 AND w.team_id = $2 AND d.type = 'CLI' AND w.disabled_at IS NULL AND ($3::text IS NULL OR w.name = $3)
        ORDER BY w.created_at`,
      [source.id, teamId, input.connection_name ?? null],
    );
  let { rows: connections } = await load();
  if (connections.length === 0) {
    const name = input.connection_name ?? `cli-${source.name}`;
    // The destination is `cli-<source>`, reused when it is already a CLI destination of the team; a
    // destination of another type holding that name gets a suffixed CLI one beside it.
    const taken = await findDestinationByName(teamId, `cli-${source.name}`);
    const destinationName = !taken || taken.type === "CLI" ? `cli-${source.name}` : `cli-${source.name}-${createId("cliSession").slice(-6)}`;
    try {
      await createConnection(
        teamId,
        { name, source_id: source.id, destination: { name: destinationName, type: "CLI", config: { path: input.path ?? "/" } } },
        "2025-07-01",
      );
    } catch (err) {
      // 409: another CLI created it meanwhile (found below), or the name belongs to a non-CLI or disabled connection.
      if (!(err instanceof AppError && err.status === 409)) throw err;
    }
    connections = (await load()).rows;
    if (connections.length === 0) {
      throw new AppError(
        "VALIDATION",
        `Connection "${name}" of source "${source.name}" exists but is disabled or does not deliver to a CLI destination; name another connection`,
      );
    }
  }
  const id = createId("cliSession");
  // Not live (dispatchToCli skips it) until its stream opens and marks it seen.
  await getPool().query("INSERT INTO cli_sessions (id, team_id, webhook_ids, last_seen_at) VALUES ($1, $2, $3, now() - interval '1 day')", [
    id,
    teamId,
    connections.map((c) => c.id),
  ]);
  bumpConfigGeneration();
  return {
    id,
    source: { id: source.id, name: source.name, url: ingestUrlFor(source.id) },
    connections: connections.map((c) => ({ id: c.id, name: c.name, full_name: `${source.name} -> ${c.name}`, path: c.path ?? "/" })),
    // What `x-gateway-signature` of the forwarded requests is computed with, so the local server can verify them.
    signing_secret: cliSigningSecret((await getSigningSecrets(teamId)).current),
  };
}

/** The open session `id` of `teamId`, or null. */
export async function findCliSession(teamId: string, id: string): Promise<{ id: string; webhook_ids: string[] } | null> {
  const { rows } = await getPool().query<{ id: string; webhook_ids: string[] }>(
    "SELECT id, webhook_ids FROM cli_sessions WHERE id = $1 AND team_id = $2 AND closed_at IS NULL",
    [id, teamId],
  );
  return rows[0] ?? null;
}

/** Marks session `id` seen now (stream open). */
export const touchCliSession = (id: string) => getPool().query("UPDATE cli_sessions SET last_seen_at = now() WHERE id = $1", [id]);
/** Marks session `id` closed (stream ended). */
export const closeCliSession = (id: string) => getPool().query("UPDATE cli_sessions SET closed_at = now() WHERE id = $1", [id]);

/**
 * Queues again the events of `connectionIds` that failed in the last 24 h because no CLI was listening
 * (error_code CLI_UNAVAILABLE), now that one is. Returns how many.
 */
export async function requeueUnavailable(connectionIds: string[]): Promise<number> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `UPDATE events SET status = 'QUEUED', next_trigger = 'AUTOMATIC', next_attempt_at = now(), updated_at = now()
        WHERE webhook_id = ANY($1) AND status = 'FAILED' AND error_code = 'CLI_UNAVAILABLE' AND last_attempt_at > now() - interval '24 hours'
       RETURNING id`,
      [connectionIds],
    );
    await enqueueDeliveries(
      client,
      rows.map((r) => r.id),
    );
    return rows.length;
  });
}

/** `d` with its signing secrets replaced by their CLI forms ({@link cliSigningSecret}). */
const cliSigned = (d: EventDelivery): EventDelivery => ({
  ...d,
  secrets: { current: cliSigningSecret(d.secrets.current), previous: d.secrets.previous === null ? null : cliSigningSecret(d.secrets.previous) },
});

/**
 * What the stream sends for attempt `attemptId` of event `eventId` (lib/gateway/delivery/event-delivery.ts, lib/delivery/outgoing.ts):
 * the request the event delivers (transformed when it was) with the headers any destination gets
 * (its own minus hop-by-hop ones, plus the gateway's signature and ids), or null for no such event.
 */
export async function loadCliDelivery(attemptId: string, eventId: string) {
  const loaded = await loadEventDelivery(eventId, attemptId);
  if (!loaded) return null;
  const { row, delivery: d } = loaded;
  const path = row.destination_config?.path;
  return {
    attempt_id: attemptId,
    event_id: d.eventId,
    request_id: d.requestId,
    connection_id: row.webhook_id,
    cli_path: typeof path === "string" && path ? path : "/",
    request: { method: d.method, path: d.path, query: d.query, headers: deliveryHeaders(cliSigned(d)), body_base64: d.body ? d.body.toString("base64") : null },
  };
}

/** An attempt keeps this much of the local server's answer, like any destination's. */
const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

/** `text` cut to at most `max` bytes of UTF-8, at a character boundary. */
function cutUtf8(text: string, max: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

export const ZCliAttemptResult = z.strictObject({
  event_id: z.string().min(1),
  session_id: z.string().min(1).optional(),
  status: z.number().int().min(100).max(599).optional(),
  body: z.string().optional(),
  error: z.string().max(2000).optional(),
  latency_ms: z.number().int().min(0).optional(),
});

/**
 * Records what the CLI got for attempt `attemptId` (lib/delivery recordAttempt): the event must be the
 * team's (404), still leased, and that lease's CLI attempt must be `attemptId` (409 otherwise).
 */
export async function recordCliAttempt(teamId: string, attemptId: string, result: z.infer<typeof ZCliAttemptResult>): Promise<void> {
  const { rows } = await getPool().query<{
    id: string;
    team_id: string;
    destination_id: string;
    attempts: number;
    next_trigger: string;
    locked_until: Date | null;
    cli_id: string | null;
    cli_attempt_id: string | null;
    rules: unknown;
    method: string | null;
  }>(
    `SELECT e.id, e.team_id, e.destination_id, e.attempts, e.next_trigger, e.locked_until, e.cli_id, e.cli_attempt_id, w.rules, raw.method
       FROM events e LEFT JOIN connections w ON w.id = e.webhook_id LEFT JOIN request_raw_data raw ON raw.request_id = e.request_id
      WHERE e.id = $1 AND e.team_id = $2`,
    [result.event_id, teamId],
  );
  const e = rows[0];
  if (!e) throw new AppError("NOT_FOUND", `No event ${result.event_id}`);
  // An answer that comes after its lease expired and the event was handed out again belongs to no lease.
  if (!e.locked_until || e.cli_attempt_id !== attemptId) throw new AppError("CONFLICT", "This attempt was already recorded or has expired");
  const rules = Array.isArray(e.rules) ? (e.rules as { type: string }[]) : [];
  const now = new Date();
  const latency = result.latency_ms ?? null;
  await recordAttempt({
    eventId: e.id,
    teamId,
    destinationId: e.destination_id,
    attemptId,
    attemptNumber: e.attempts + 1,
    trigger: e.next_trigger,
    lease: e.locked_until,
    retryRule: (rules.find((r) => r.type === "retry") as RetryRule | undefined) ?? null,
    outcome: {
      status: result.error ? null : (result.status ?? null),
      body: result.error ? result.error : cutUtf8(result.body ?? "", MAX_RESPONSE_BODY_BYTES),
      errorCode: result.error ? "CLI" : null,
      responseLatency: latency,
      deliveryLatency: latency ?? 0,
      deliveredAt: new Date(now.getTime() - (latency ?? 0)),
      respondedAt: result.error ? null : now,
      requestedUrl: null,
      httpMethod: e.method ?? null,
      cliId: e.cli_id ?? result.session_id ?? null, // set by dispatchToCli: the session the delivery went to
    },
  });
}
