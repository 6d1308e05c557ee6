/**
 * What is sent for an event (docs/pipeline.md#what-a-destination-receives):
 * the destination URL plus the forwarded path and query, the original
 * method unless the destination overrides it, the original headers minus hop-by-hop ones, the
 * gateway's headers and the destination's auth.
 */
import { createHmac } from "node:crypto";
import { gatewaySignatureHeaders } from "@/lib/delivery/signing";

/** Headers never forwarded: hop-by-hop ones, those the sender recomputes, and any inbound `x-gateway-*`. */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
  "http2-settings",
]);

export type EventDelivery = {
  eventId: string;
  requestId: string;
  attemptId: string;
  attemptNumber: number;
  trigger: string;
  sourceName: string;
  connectionName: string;
  destinationName: string;
  verified: boolean;
  clientIp: string | null;
  /** The request as received, or as a transformation left it. */
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  destination: { type: string; config: Record<string, unknown>; auth: Record<string, unknown> | null };
  secrets: { current: string; previous: string | null };
  /** `{gatewayApiUrl}/2025-07-01/events/{id}`: where the event can be read (`x-gateway-event-url`). */
  eventUrl?: string;
  /** Seconds until the automatic retry should this attempt fail, null when none would follow (`x-gateway-will-retry-after`). */
  willRetryAfterS?: number | null;
};

/**
 * The headers the gateway adds to every delivery (an event's `data.appended_headers`;
 * docs/pipeline.md#what-a-destination-receives), plus `x-gateway-signature-2` while a rolled secret is
 * live, `x-gateway-original-ip` when known, and `accept` when the request had none.
 */
export const APPENDED_HEADERS = [
  "x-gateway-signature",
  "x-gateway-original-method",
  "x-gateway-verified",
  "x-gateway-event-id",
  "x-gateway-request-id",
  "x-gateway-attempt-id",
  "x-gateway-attempt-count",
  "x-gateway-attempt-trigger",
  "x-gateway-source-name",
  "x-gateway-connection-name",
  "x-gateway-destination-name",
  "x-gateway-event-url",
  "x-gateway-will-retry-after",
  "idempotency-key",
] as const;

/** A configuration value as text (the destination schema validates these settings as strings): a number or boolean as String() gives it, anything else `""`. */
const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "");

/** `config.url` + path (unless `path_forwarding_disabled`) + the query (merged with the URL's own). */
export function destinationUrl(config: Record<string, unknown>, path: string, query: string): string {
  const base = text(config.url);
  const [beforeQuery, ownQuery = ""] = base.split("?", 2) as [string, string?];
  const forwarded = config.path_forwarding_disabled === true || !path || path === "/" ? "" : path;
  const joined = forwarded ? beforeQuery.replace(/\/+$/, "") + (forwarded.startsWith("/") ? forwarded : `/${forwarded}`) : beforeQuery;
  const q = [ownQuery, query].filter(Boolean).join("&");
  return q ? `${joined}?${q}` : joined;
}

/**
 * The headers sent for `d` before destination auth: its own minus hop-by-hop ones and any inbound
 * `x-gateway-*` (names lower-cased), plus the gateway's (signature, ids, names, attempt count and trigger).
 * CLI deliveries (lib/cli-channel) send exactly these.
 */
export function deliveryHeaders(d: EventDelivery): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(d.headers)) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || lower.startsWith("x-gateway-")) continue;
    headers[lower] = value;
  }
  Object.assign(headers, gatewaySignatureHeaders(d.secrets, d.body), {
    "x-gateway-original-method": d.method,
    "x-gateway-verified": d.verified ? "true" : "false",
    "x-gateway-event-id": d.eventId,
    "x-gateway-request-id": d.requestId,
    "x-gateway-attempt-id": d.attemptId,
    "x-gateway-attempt-count": String(d.attemptNumber),
    "x-gateway-attempt-trigger": d.trigger,
    "x-gateway-source-name": d.sourceName,
    "x-gateway-connection-name": d.connectionName,
    "x-gateway-destination-name": d.destinationName,
    "x-gateway-event-url": d.eventUrl ?? "",
    "x-gateway-will-retry-after": d.willRetryAfterS == null ? "" : String(d.willRetryAfterS),
    "idempotency-key": d.eventId,
  });
  if (d.clientIp) headers["x-gateway-original-ip"] = d.clientIp;
  headers.accept ??= "application/json, text/plain, */*";
  return headers;
}

/**
 * The HTTP request to send for `d`: `{url, method, headers, body}`. A GET or HEAD (the destination's
 * `http_method`, or the request's) carries no body, so its signatures are over the empty body it sends
 * and it has no content-type: a receiver always checks them against the bytes it received.
 */
export function buildOutgoingRequest(d: EventDelivery): { url: string; method: string; headers: Record<string, string>; body: Buffer | null } {
  const config = d.destination.config;
  let url = destinationUrl(config, d.path, d.query);
  const method = (typeof config.http_method === "string" && config.http_method) || d.method;
  const body = method === "GET" || method === "HEAD" ? null : d.body;
  const headers = deliveryHeaders({ ...d, body });
  if (body === null && d.body) delete headers["content-type"];

  const auth = d.destination.auth ?? {};
  switch (config.auth_type) {
    case "CUSTOM_SIGNATURE":
      if (auth.key && auth.signing_secret) {
        const sign = (secret: unknown) =>
          createHmac("sha256", text(secret))
            .update(body ?? Buffer.alloc(0))
            .digest("base64");
        headers[text(auth.key).toLowerCase()] = sign(auth.signing_secret);
        // A rotated secret's predecessor signs `{key}-2` until its overlap ends (lib/gateway/destinations/custom-signature.ts).
        if (auth.previous_signing_secret && Date.parse(text(auth.previous_signing_secret_invalid_at)) > Date.now())
          headers[`${text(auth.key).toLowerCase()}-2`] = sign(auth.previous_signing_secret);
      }
      break;
    case "BASIC_AUTH":
      headers.authorization = `Basic ${Buffer.from(`${text(auth.username)}:${text(auth.password)}`).toString("base64")}`;
      break;
    case "BEARER_TOKEN":
      headers.authorization = `Bearer ${text(auth.token)}`;
      break;
    case "API_KEY":
      if (auth.key) {
        if (auth.to === "query") {
          const u = new URL(url);
          u.searchParams.append(text(auth.key), text(auth.api_key));
          url = u.toString();
        } else headers[text(auth.key).toLowerCase()] = text(auth.api_key);
      }
      break;
  }
  return { url, method, headers, body };
}
