/**
 * Operator events (docs/outbound.md#publish-delivery-retries): posted to OUTBOUND_OPERATOR_EVENTS_URL when it
 * is set, as `{id, topic, time, tenant_id, data}` with `x-outbound-signature: v0=<hex HMAC-SHA256 of the
 * body>` keyed with OUTBOUND_OPERATOR_EVENTS_SECRET (no signature when it is empty), through the
 * delivery engine's HTTP sender (timeouts, address guard). Topics:
 * - `alert.destination.consecutive_failure` when failures in a row reach 50, 70, 90 and 100 % of
 *   OUTBOUND_ALERT_CONSECUTIVE_FAILURE_COUNT;
 * - `alert.destination.disabled` when auto-disable turns a destination off;
 * - `alert.attempt.exhausted_retries` when an event eligible for retry has no retry left (at most once
 *   per destination per hour and process).
 * - `alert.destination.circuit_opened` / `alert.destination.circuit_closed` when a destination's circuit
 *   breaker opens or closes (docs/outbound.md "Receiver-driven limits").
 * One try each; a failure is logged and never affects the delivery that caused it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { sendHttp } from "@/lib/delivery/http-sender";
import { base62 } from "@/lib/ids";
import { logger } from "@/lib/log";
import { outboundConfig } from "@/lib/outbound/settings";

const log = logger("outbound-alerts");
/** Suppression window of exhausted-retries alerts per destination, ms. */
const EXHAUSTED_WINDOW_MS = 3_600_000;
const lastExhausted = new Map<string, number>();

/** Posts one operator event; resolves whatever happens. */
async function postOperatorEvent(topic: string, tenantId: string, data: Record<string, unknown>): Promise<void> {
  const cfg = outboundConfig();
  if (!cfg.operatorEventsUrl) return;
  const body = Buffer.from(JSON.stringify({ id: `opevt_${base62(randomBytes(16))}`, topic, time: new Date().toISOString(), tenant_id: tenantId, data }));
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Hookyard-Outbound/1.0" };
  if (cfg.operatorEventsSecret)
    headers[`${cfg.webhookHeaderPrefix}signature`] = `v0=${createHmac("sha256", cfg.operatorEventsSecret).update(body).digest("hex")}`;
  const r = await sendHttp({ url: cfg.operatorEventsUrl, method: "POST", headers, body, timeoutMs: cfg.deliveryTimeoutMs });
  if (r.status === null || r.status >= 400) log.warn(`operator event ${topic} was not accepted: ${r.status ?? r.errorCode}`);
}

/** The alerts of a failed attempt: thresholds of failures in a row, auto-disable, exhausted retries. */
export async function alertsAfterFailure(a: {
  tenantId: string;
  destinationId: string;
  eventId: string;
  consecutiveFailures: number;
  disabled: boolean;
  exhausted: boolean;
}): Promise<void> {
  const max = outboundConfig().consecutiveFailureLimit;
  const thresholds = new Set([0.5, 0.7, 0.9, 1].map((p) => Math.max(1, Math.ceil(max * p))));
  const sends: Promise<void>[] = [];
  if (thresholds.has(a.consecutiveFailures)) {
    sends.push(
      postOperatorEvent("alert.destination.consecutive_failure", a.tenantId, {
        destination_id: a.destinationId,
        consecutive_failures: a.consecutiveFailures,
        max_consecutive_failures: max,
        will_disable: outboundConfig().autoDisable,
      }),
    );
  }
  if (a.disabled)
    sends.push(
      postOperatorEvent("alert.destination.disabled", a.tenantId, {
        destination_id: a.destinationId,
        consecutive_failures: a.consecutiveFailures,
        disabled_at: new Date().toISOString(),
      }),
    );
  if (a.exhausted && Date.now() - (lastExhausted.get(a.destinationId) ?? 0) >= EXHAUSTED_WINDOW_MS) {
    lastExhausted.set(a.destinationId, Date.now());
    sends.push(postOperatorEvent("alert.attempt.exhausted_retries", a.tenantId, { destination_id: a.destinationId, event_id: a.eventId }));
  }
  await Promise.all(sends);
}

/** A destination's circuit breaker opened or closed: its operator event. Resolves whatever happens. */
export async function alertCircuitTransition(t: {
  tenantId: string;
  destinationId: string;
  transition: "opened" | "closed";
  attempts: number;
  failures: number;
  nextProbeAt: Date | null;
}): Promise<void> {
  await postOperatorEvent(`alert.destination.circuit_${t.transition}`, t.tenantId, {
    destination_id: t.destinationId,
    state: t.transition === "opened" ? "open" : "closed",
    ...(t.transition === "opened" && { attempts: t.attempts, failures: t.failures, next_probe_at: t.nextProbeAt?.toISOString() ?? null }),
  });
}
