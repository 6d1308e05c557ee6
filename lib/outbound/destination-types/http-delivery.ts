/**
 * The HTTP delivery shared by the `webhook` and `standard_webhook` types (docs/outbound.md "Delivery"):
 * a `POST` of the event's data to `config.url` with the destination's custom headers and the type's
 * signature headers, through the delivery engine's sender (timeouts, response cap, address guard).
 */
import { createHmac } from "node:crypto";
import { sendHttp } from "@/lib/delivery/http-sender";
import type { OutboundDelivery, Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

/** Largest stored response body, bytes. */
const RESPONSE_MAX_BYTES = 131_072;

/** Hex HMAC-SHA256 of `body` with `secret`. */
export const hmacHex = (secret: string, body: Buffer) => createHmac("sha256", secret).update(body).digest("hex");

/** Whether the credentials' previous secret still signs (its `previous_secret_invalid_at` is in the future). */
export const previousSecretValid = (credentials: Record<string, string>) =>
  Boolean(credentials.previous_secret) && Date.parse(credentials.previous_secret_invalid_at ?? "") > Date.now();

/**
 * The headers of an HTTP delivery before signing: the destination's custom headers (names lower-cased),
 * `content-type`, `user-agent`, then `extra` (the type's metadata headers).
 */
export function httpHeaders(d: OutboundDelivery, extra: Record<string, string>): Record<string, string> {
  const custom = d.config.custom_headers ? (JSON.parse(d.config.custom_headers) as Record<string, string>) : {};
  return {
    ...Object.fromEntries(Object.entries(custom).map(([k, v]) => [k.toLowerCase(), v])),
    "content-type": "application/json",
    "user-agent": "Hookyard-Outbound/1.0",
    ...extra,
  };
}

/**
 * POSTs the event to `config.url` with `headersOf(d)` (or, after a transformation, to the URL and with
 * the headers it returned, `d.request`), then what `sign` adds over the body sent (`d.claimed.data`).
 * The outcome: success below 400, `code` the status or the sender's error code (lower-cased), the
 * response body kept up to 128 KiB. Never throws.
 */
export async function deliverHttp(
  d: OutboundDelivery,
  headersOf: (d: OutboundDelivery) => Record<string, string>,
  sign: (headers: Record<string, string>) => void,
): Promise<Outcome> {
  const headers = { ...(d.request?.headers ?? headersOf(d)) };
  sign(headers);
  const url = d.request?.url ?? d.config.url;
  const r = await sendHttp({ url, method: "POST", headers, body: d.claimed.data, timeoutMs: outboundConfig().deliveryTimeoutMs });
  const body = (r.body ?? "").length > RESPONSE_MAX_BYTES ? `Response body exceeded ${RESPONSE_MAX_BYTES} bytes and was not stored` : (r.body ?? "");
  const ok = r.status !== null && r.status < 400;
  return {
    success: ok,
    code: r.status !== null ? String(r.status) : (r.errorCode ?? "network_error").toLowerCase(),
    latencyMs: r.deliveryLatency,
    response: r.status !== null ? { status_code: r.status, body, headers: {} } : null,
    ...(r.retryAfter !== undefined && { retryAfter: r.retryAfter }),
  };
}

/** The target of an HTTP type: its URL, also as `target_url`. */
export const httpTarget = (config: Record<string, string>) => ({ target: config.url ?? "", ...(config.url ? { target_url: config.url } : {}) });
