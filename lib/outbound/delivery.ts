/**
 * Outbound delivery (issue 13 §3; reference §3 webhook delivery, §4 retry and auto-disable) on the
 * shared engine: graphile-worker jobs carry `{event_id, destination_id}` only and the
 * `outbound_deliveries` row is the truth; a worker claims it with a lease (a crashed worker's delivery
 * is taken again when the lease expires: at least once), sends through the destination type (HTTP with
 * the gateway's sender: timeouts, response cap, address guard), records the attempt (`attempt_number`
 * 0 first, `manual`, `code`, `latency_ms`, `response_data`) and schedules the retry: exponential from
 * OUTBOUND_RETRY_INTERVAL_SECONDS up to OUTBOUND_MAX_RETRY_LIMIT, or OUTBOUND_RETRY_SCHEDULE, only for
 * events eligible for retry. A disabled or deleted destination is skipped without an attempt. Failures
 * in a row are counted per destination; OUTBOUND_AUTO_DISABLE_DESTINATION disables one at the limit.
 */
import { outboundConfig, refreshOutboundSettings } from "@/lib/outbound/settings";
import { createHmac, randomBytes } from "node:crypto";
import type pg from "pg";
import amqp from "amqplib";
import { Webhook } from "standardwebhooks";
import { decryptJson } from "@/lib/crypto/secrets";
import { getBackgroundPool } from "@/lib/db/pool";
import { sendHttp } from "@/lib/delivery/http-sender";
import { base62, publicSourceId } from "@/lib/ids";
import { ingest } from "@/lib/ingest/ingest";
import { logger } from "@/lib/log";
import { alertsAfterFailure } from "@/lib/outbound/alerts";

const log = logger("outbound-delivery");
/** graphile-worker task of one delivery; payload `{event_id, destination_id}`. */
export const OUTBOUND_DELIVER_TASK = "outbound_deliver";
/** Lease of a claimed delivery, ms (longer than any attempt). */
const LEASE_MS = 60_000;
/** Largest stored response body, bytes. */
const RESPONSE_MAX_BYTES = 131_072;

type Db = Pick<pg.PoolClient, "query">;

/** Adds deliveries (due now; `manual` for POST /retry) and their jobs, in the caller's transaction. */
export async function enqueueOutboundDeliveries(db: Db, deliveries: { eventId: string; eventTime: Date; destinationId: string; tenantId: string }[], manual = false): Promise<void> {
  if (deliveries.length === 0) return;
  const cols = [deliveries.map((d) => d.eventId), deliveries.map((d) => d.destinationId), deliveries.map((d) => d.tenantId)];
  await db.query(
    `INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, manual, next_attempt_at)
     SELECT e, et, d, t, 'pending', $4, now() FROM unnest($1::text[], $2::text[], $3::text[], $5::timestamptz[]) AS x(e, d, t, et)
     ON CONFLICT (event_id, destination_id) DO UPDATE SET status = 'pending', manual = EXCLUDED.manual, next_attempt_at = now(), updated_at = now()`,
    [...cols, manual, deliveries.map((d) => d.eventTime)],
  );
  await db.query(
    `SELECT count(*) FROM graphile_worker.add_jobs(
       (SELECT array_agg(ROW($3::text, json_build_object('event_id', e, 'destination_id', d), NULL, NULL, 10::smallint, NULL, NULL, NULL)::graphile_worker.job_spec)
          FROM unnest($1::text[], $2::text[]) AS x(e, d)))`,
    [cols[0], cols[1], OUTBOUND_DELIVER_TASK],
  );
}

type Claimed = {
  event_id: string; destination_id: string; tenant_id: string; attempts: number; manual: boolean; locked_until: Date;
  topic: string; time: Date; eligible_for_retry: boolean; metadata: Record<string, string> | null; data: Buffer;
  type: string | null; config: Record<string, string> | null; credentials_encrypted: string | null; delivery_metadata: Record<string, string> | null; disabled_at: Date | null; deleted: boolean;
};

type Outcome = { success: boolean; code: string; latencyMs: number | null; response: { status_code: number | null; body: string; headers: Record<string, string> } | null };

/** Seconds before retry number `n` (1-based), or null when the budget is spent. */
export function retryDelaySeconds(n: number): number | null {
  const cfg = outboundConfig();
  if (n > cfg.maxRetries) return null;
  return cfg.retrySchedule.length ? cfg.retrySchedule[n - 1]! : cfg.retryIntervalSeconds * 2 ** (n - 1);
}

const hmacHex = (secret: string, body: Buffer) => createHmac("sha256", secret).update(body).digest("hex");

/** The metadata headers of a delivery: system (event-id, topic, timestamp) < destination delivery_metadata < event metadata. */
function metadataOf(c: Claimed): Record<string, string> {
  return { "event-id": c.event_id, topic: c.topic, timestamp: c.time.toISOString().replace(/\.\d{3}Z$/, "Z"), ...(c.delivery_metadata ?? {}), ...(c.metadata ?? {}) };
}

/** Sends one delivery through its destination type. Never throws: a failure is an outcome. */
async function send(c: Claimed): Promise<Outcome> {
  const cfg = outboundConfig();
  const config = c.config ?? {};
  const credentials = decryptJson<Record<string, string>>(c.credentials_encrypted) ?? {};
  if (c.type === "webhook" || c.type === "standard_webhook") {
    const custom = config.custom_headers ? (JSON.parse(config.custom_headers) as Record<string, string>) : {};
    const headers: Record<string, string> = { ...Object.fromEntries(Object.entries(custom).map(([k, v]) => [k.toLowerCase(), v])), "content-type": "application/json", "user-agent": "Hookyard-Outbound/1.0" };
    const previousValid = credentials.previous_secret && Date.parse(credentials.previous_secret_invalid_at ?? "") > Date.now();
    if (c.type === "webhook") {
      for (const [k, v] of Object.entries(metadataOf(c))) headers[`${cfg.webhookHeaderPrefix}${k.toLowerCase()}`] = v;
      const sigs = [hmacHex(credentials.secret!, c.data), ...(previousValid ? [hmacHex(credentials.previous_secret!, c.data)] : [])];
      headers[`${cfg.webhookHeaderPrefix}signature`] = `v0=${sigs.join(",")}`;
    } else {
      const at = new Date();
      const sign = (secret: string) => new Webhook(secret).sign(c.event_id, at, c.data.toString("utf8"));
      for (const [k, v] of Object.entries(c.metadata ?? {})) headers[k.toLowerCase()] = v;
      headers["webhook-topic"] = c.topic;
      headers["webhook-id"] = c.event_id;
      headers["webhook-timestamp"] = String(Math.floor(at.getTime() / 1000));
      headers["webhook-signature"] = [sign(credentials.secret!), ...(previousValid ? [sign(credentials.previous_secret!)] : [])].join(" ");
    }
    const r = await sendHttp({ url: config.url!, method: "POST", headers, body: c.data, timeoutMs: cfg.deliveryTimeoutMs });
    const body = (r.body ?? "").length > RESPONSE_MAX_BYTES ? `Response body exceeded ${RESPONSE_MAX_BYTES} bytes and was not stored` : (r.body ?? "");
    const ok = r.status !== null && r.status < 400;
    return { success: ok, code: r.status !== null ? String(r.status) : (r.errorCode ?? "network_error").toLowerCase(), latencyMs: r.deliveryLatency, response: r.status !== null ? { status_code: r.status, body, headers: {} } : null };
  }
  if (c.type === "gateway") {
    const started = performance.now();
    const headers = { "content-type": "application/json", ...Object.fromEntries(Object.entries(metadataOf(c)).map(([k, v]) => [`${cfg.webhookHeaderPrefix}${k.toLowerCase()}`, v])) };
    try {
      const answer = await ingest(publicSourceId(config.source_id!), { method: "POST", pathname: "/", query: "", headers, body: c.data, bodySize: c.data.length, bodyTooLarge: false, clientIp: "127.0.0.1", secure: false }, { published: true });
      const text = typeof answer.body === "string" ? answer.body : answer.body ? answer.body.toString("utf8") : "";
      return { success: answer.status < 400, code: String(answer.status), latencyMs: Math.round(performance.now() - started), response: { status_code: answer.status, body: text, headers: {} } };
    } catch (err) {
      return { success: false, code: "gateway_error", latencyMs: Math.round(performance.now() - started), response: { status_code: null, body: err instanceof Error ? err.message : String(err), headers: {} } };
    }
  }
  if (c.type === "rabbitmq") return sendRabbit(c, config, credentials);
  return { success: false, code: "unsupported_destination_type", latencyMs: null, response: null };
}

/** Open confirm channels by broker and credentials, reused across deliveries (dropped on any error). */
const channels = new Map<string, Promise<amqp.ConfirmChannel>>();

/**
 * Publishes the event to the destination's exchange (the default exchange when empty) with the topic as
 * routing key and the metadata as headers, and waits for the broker's confirm (amqplib). Never throws.
 */
async function sendRabbit(c: Claimed, config: Record<string, string>, credentials: Record<string, string>): Promise<Outcome> {
  const started = performance.now();
  const url = `${config.tls === "true" ? "amqps" : "amqp"}://${encodeURIComponent(credentials.username ?? "")}:${encodeURIComponent(credentials.password ?? "")}@${config.server_url}`;
  let channel = channels.get(url);
  if (!channel) {
    channel = (async () => {
      const conn = await amqp.connect(url, { timeout: outboundConfig().deliveryTimeoutMs });
      const drop = () => channels.delete(url);
      conn.on("error", drop);
      conn.on("close", drop);
      const ch = await conn.createConfirmChannel();
      ch.on("error", drop);
      ch.on("close", drop);
      return ch;
    })();
    channels.set(url, channel);
    channel.catch(() => channels.delete(url));
  }
  try {
    const ch = await channel;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timeout")), outboundConfig().deliveryTimeoutMs);
      ch.publish(config.exchange ?? "", c.topic, c.data, { headers: metadataOf(c), contentType: "application/json", messageId: c.event_id, persistent: true }, (err) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      });
    });
    return { success: true, code: "ok", latencyMs: Math.round(performance.now() - started), response: null };
  } catch (err) {
    channels.delete(url);
    const message = err instanceof Error ? err.message : String(err);
    return { success: false, code: message === "timeout" ? "timeout" : "rabbitmq_error", latencyMs: Math.round(performance.now() - started), response: { status_code: null, body: message, headers: {} } };
  }
}

/**
 * The `outbound_deliver` task: delivers event `eventId` to destination `destinationId` if its delivery
 * is due and not leased by another worker; otherwise does nothing (a repeated job is harmless).
 * Throws only on database errors.
 */
export async function deliverOutbound(eventId: string, destinationId: string): Promise<void> {
  await refreshOutboundSettings();
  const lease = new Date(Date.now() + LEASE_MS);
  const { rows } = await getBackgroundPool().query<Claimed>(
    `WITH c AS (
       UPDATE outbound_deliveries SET locked_until = $3, updated_at = now()
        WHERE event_id = $1 AND destination_id = $2 AND status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
       RETURNING *)
     SELECT c.event_id, c.destination_id, c.tenant_id, c.attempts, c.manual, c.locked_until, e.topic, e.time, e.eligible_for_retry, e.metadata, e.data,
            d.type, d.config, d.credentials_encrypted, d.delivery_metadata, d.disabled_at, d.id IS NULL AS deleted
       FROM c JOIN outbound_events e ON e.id = c.event_id AND e.time = c.event_time LEFT JOIN outbound_destinations d ON d.id = c.destination_id`,
    [eventId, destinationId, lease],
  );
  const c = rows[0];
  if (!c) return;
  if (c.deleted || c.disabled_at) {
    await getBackgroundPool().query("UPDATE outbound_deliveries SET status = 'skipped', locked_until = NULL, updated_at = now() WHERE event_id = $1 AND destination_id = $2", [eventId, destinationId]);
    return;
  }
  const outcome = await send(c);
  const cfg = outboundConfig();
  const delay = outcome.success || !c.eligible_for_retry ? null : retryDelaySeconds(c.attempts + 1);
  const next = delay === null ? null : new Date(Date.now() + delay * 1000);
  // One statement records the attempt (delivery state, attempt row, the destination's failures in a row,
  // the retry's job), if this worker still holds the lease.
  const { rows: recorded } = await getBackgroundPool().query<{ owned: number; failures: number | null }>(
    `WITH upd AS (
       UPDATE outbound_deliveries SET attempts = attempts + 1, manual = false, locked_until = NULL, next_attempt_at = $4, updated_at = now(),
              status = CASE WHEN $3 THEN 'success' WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END
        WHERE event_id = $1 AND destination_id = $2 AND locked_until = $5 RETURNING 1),
     att AS (
       INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, latency_ms, response_data, time)
       SELECT $6, $1, $7, $2, $8, $9, CASE WHEN $3 THEN 'success' ELSE 'failed' END, $10, $11, $12, $13, $14, now() FROM upd),
     -- A success writes the destination's row only to end a run of failures, so deliveries to one
     -- destination do not queue behind each other's row lock.
     dst AS (
       UPDATE outbound_destinations SET consecutive_failures = CASE WHEN $3 THEN 0 ELSE consecutive_failures + 1 END
        WHERE id = $2 AND EXISTS (SELECT 1 FROM upd) AND (NOT $3 OR consecutive_failures <> 0) RETURNING consecutive_failures),
     job AS (
       SELECT graphile_worker.add_job($15, json_build_object('event_id', $1::text, 'destination_id', $2::text), run_at => $4, max_attempts => 10::smallint)
         FROM upd WHERE $4::timestamptz IS NOT NULL)
     SELECT (SELECT count(*) FROM upd)::int AS owned, (SELECT consecutive_failures FROM dst) AS failures, (SELECT count(*) FROM job)::int AS jobs`,
    [
      eventId, destinationId, outcome.success, next, c.locked_until, cfg.prefixes.attempt + base62(randomBytes(16)), c.tenant_id, c.type, c.topic,
      outcome.code, c.attempts, c.manual, outcome.latencyMs, outcome.response ? JSON.stringify(outcome.response) : null, OUTBOUND_DELIVER_TASK,
    ],
  );
  if (!recorded[0]?.owned || outcome.success) return; // success, or the lease was lost: another worker owns this delivery now
  const failures = recorded[0].failures ?? 0;
  let disabled = false;
  if (cfg.autoDisable && failures >= cfg.consecutiveFailureLimit) {
    const { rowCount } = await getBackgroundPool().query("UPDATE outbound_destinations SET disabled_at = now(), updated_at = now() WHERE id = $1 AND disabled_at IS NULL", [destinationId]);
    disabled = (rowCount ?? 0) > 0;
    if (disabled) log.warn(`destination ${destinationId} disabled after ${failures} failures in a row`);
  }
  await alertsAfterFailure({ tenantId: c.tenant_id, destinationId, eventId, consecutiveFailures: failures, disabled, exhausted: c.eligible_for_retry && next === null });
}
