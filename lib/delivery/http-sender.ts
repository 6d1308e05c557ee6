/**
 * The HTTP sender of the delivery engine (docs/pipeline.md#delivery-engine): undici with a timeout,
 * a capped response body, no redirects followed, refused addresses, and network failures mapped to
 * the attempts' `error_code` values (docs/gateway-api.md#attempts). Shared by the gateway
 * and, later, the outbound service.
 * It uses undici's dispatch API (a handler per request, one timer for the whole exchange), not
 * `request()` with an abort signal and a body stream: a delivery is the worker's most frequent piece of
 * work, and that costs about half the CPU per request.
 */
import { Agent, type Dispatcher, errors as undiciErrors } from "undici";
import { getConfig } from "@/lib/config";
import { activeTraceparent } from "@/lib/tracing";
import { type AddressPolicy, addressPolicy, guardedConnector, RefusedAddressError, refusedHostReason, type Resolver } from "@/lib/delivery/address-guard";

type OutgoingRequest = {
  url: string;
  method: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer | null;
  /** Total time allowed, ms (default DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
};

export type SendResult = {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Response body as text, cut to DELIVERY_RESPONSE_MAX_BYTES; or the failure's description. */
  body: string | null;
  /** The spec's error code for a failure without a response (TIMEOUT, CONNECTION_REFUSED, …); null with a response. */
  errorCode: string | null;
  /** ms from sending to the response headers; null without a response. */
  responseLatency: number | null;
  /** ms from sending to the end of the response (or the failure). */
  deliveryLatency: number;
  /** When the request was sent, and when its response ended. */
  deliveredAt: Date;
  respondedAt: Date | null;
  /** The `Retry-After` header of a 429 or 503 answer, as sent (lib/delivery/destination-state.ts reads it). */
  retryAfter?: string;
};

let agent: Agent | undefined;
let overrides: { policy?: AddressPolicy; resolve?: Resolver } = {};
let configPolicy: AddressPolicy | undefined;

/**
 * The address policy of the settings (DELIVERY_ALLOW_PRIVATE_NETWORKS, DELIVERY_ALLOWED_CIDRS), or the
 * override of {@link configureSender}: the one policy of every connection a delivery opens (HTTP here,
 * RabbitMQ in lib/outbound/delivery.ts).
 */
export function deliveryPolicy(): AddressPolicy {
  if (overrides.policy) return overrides.policy;
  const config = getConfig();
  configPolicy ??= addressPolicy(config.deliveryAllowPrivateNetworks, config.deliveryAllowedCidrs);
  return configPolicy;
}

function getAgent(): Agent {
  // The address check lives in the connector: what it checks is what the socket connects to.
  // Sockets per origin: at least one per delivery a destination may have in flight
  // (DELIVERY_DESTINATION_CONCURRENCY), so its ceiling, not the pool, bounds its deliveries.
  agent ??= new Agent({
    keepAliveTimeout: 10_000,
    connections: Math.max(64, getConfig().deliveryDestinationConcurrency),
    connect: guardedConnector(deliveryPolicy(), { timeout: 10_000, resolve: overrides.resolve }),
  });
  return agent;
}

/** The resolver of every delivery connection: the override of {@link configureSender}, else undefined (the system's). */
export const deliveryResolver = (): Resolver | undefined => overrides.resolve;

/**
 * Replaces the address policy and/or the resolver (tests: a resolver they control; embedders), closing
 * pooled connections so the next delivery connects under them. `{}` restores the settings and the system resolver.
 */
export async function configureSender(options: { policy?: AddressPolicy; resolve?: Resolver }): Promise<void> {
  await closeSender();
  overrides = options;
}

const CODE_MAP: Record<string, string> = {
  ECONNREFUSED: "CONNECTION_REFUSED",
  ECONNRESET: "CONNECTION_RESET",
  EPIPE: "CONNECTION_RESET",
  ENOTFOUND: "DNS_LOOKUP_FAILED",
  EAI_AGAIN: "DNS_LOOKUP_FAILED",
  EAI_FAIL: "DNS_LOOKUP_FAILED",
  EHOSTUNREACH: "HOST_UNREACHABLE",
  EREFUSEDADDRESS: "HOST_UNREACHABLE",
  ENETUNREACH: "NETWORK_UNREACHABLE",
  ETIMEDOUT: "TIMEOUT",
  UND_ERR_CONNECT_TIMEOUT: "TIMEOUT",
  UND_ERR_HEADERS_TIMEOUT: "TIMEOUT",
  UND_ERR_BODY_TIMEOUT: "TIMEOUT",
  UND_ERR_SOCKET: "SOCKET_CLOSED",
  UND_ERR_CLOSED: "SOCKET_CLOSED",
  DEPTH_ZERO_SELF_SIGNED_CERT: "SELF_SIGNED_CERT",
  SELF_SIGNED_CERT_IN_CHAIN: "SELF_SIGNED_CERT",
  ERR_TLS_CERT_ALTNAME_INVALID: "ERR_TLS_CERT_ALTNAME_INVALID",
  CERT_HAS_EXPIRED: "SSL_CERT_EXPIRED",
  UNABLE_TO_GET_ISSUER_CERT: "UNABLE_TO_GET_ISSUER_CERT",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "SSL_ERROR_CA_UNKNOWN",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "SSL_ERROR_CA_UNKNOWN",
  ERR_SSL_WRONG_VERSION_NUMBER: "ERR_SSL_WRONG_VERSION_NUMBER",
  ERR_INVALID_CHAR: "INVALID_CHARACTER",
  ERR_INVALID_HTTP_TOKEN: "INVALID_CHARACTER",
  ERR_INVALID_URL: "INVALID_URL",
  UND_ERR_INVALID_ARG: "INVALID_CHARACTER",
  HPE_INVALID_CONSTANT: "PROTOCOL_ERROR",
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: "PROTOCOL_ERROR",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "PROTOCOL_ERROR",
};

/** The spec's error code for a failed send (`err` as thrown by undici, possibly wrapping a system error). */
function classifyNetworkError(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: string }).code;
    if (code && CODE_MAP[code]) return CODE_MAP[code];
    if (e instanceof RefusedAddressError) return "HOST_UNREACHABLE";
    if ((e as Error).name === "TimeoutError" || (e as Error).name === "AbortError") return "TIMEOUT";
    if (code?.startsWith("ERR_SSL") || code?.startsWith("ERR_TLS")) return "SSL_ERROR_CA_UNKNOWN";
    if (code?.startsWith("HPE_")) return "PROTOCOL_ERROR";
    e = (e as { cause?: unknown }).cause;
  }
  return "UNKNOWN";
}

function describe(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const m = (e as Error).message;
    if (m && !parts.includes(m)) parts.push(m);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(": ") || String(err);
}

/**
 * `headers` with the W3C `traceparent` of the active span (the delivery attempt's, lib/delivery/attempt-span.ts)
 * replacing any the request had; `headers` itself when tracing is off or no span is active
 * (docs/operations.md "Traces").
 */
function withTraceparent(headers: Record<string, string>): Record<string, string> {
  const traceparent = activeTraceparent();
  if (!traceparent) return headers;
  const out: Record<string, string> = { traceparent };
  for (const [name, value] of Object.entries(headers)) if (name !== "traceparent" && name !== "tracestate") out[name] = value;
  return out;
}

/**
 * Sends one request and never throws: every outcome is a {@link SendResult}. Redirects are not
 * followed (a 3xx is an answer like any other). A URL that is not http(s) fails with INVALID_URL; a host
 * refused by the address guard (lib/delivery/address-guard.ts: metadata always, private
 * networks by setting), before or after resolution or by the connected peer, fails with HOST_UNREACHABLE.
 */
export async function sendHttp(req: OutgoingRequest): Promise<SendResult> {
  const config = getConfig();
  const timeoutMs = req.timeoutMs ?? config.deliveryTimeoutMs;
  const started = performance.now();
  const deliveredAt = new Date();
  const failure = (errorCode: string, message: string): SendResult => ({
    status: null,
    body: message,
    errorCode,
    responseLatency: null,
    deliveryLatency: Math.round(performance.now() - started),
    deliveredAt,
    respondedAt: null,
  });

  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return failure("INVALID_URL", `${req.url} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return failure("INVALID_URL", `${url.protocol} URLs cannot be delivered to`);
  // The URL parser has turned odd spellings (2852039166, 0251.0376.0251.0376, 0xa9fea9fe, 169.254.43518)
  // into the address; refuse metadata names and refused literals without a connection.
  const reason = refusedHostReason(url.hostname, deliveryPolicy());
  if (reason) return failure("HOST_UNREACHABLE", reason);

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    let controller: Dispatcher.DispatchController | null = null;
    let status: number | null = null;
    let responseLatency: number | null = null;
    let retryAfter: string | undefined;
    const max = config.deliveryResponseMaxBytes;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timeoutMessage = `no complete answer within ${timeoutMs} ms`;
    // The whole exchange has `timeoutMs`: a request not started yet is answered at once and aborted when
    // it starts; one under way is aborted.
    const timer = setTimeout(() => {
      timedOut = true;
      controller?.abort(new Error(timeoutMessage));
      finish(failure("TIMEOUT", timeoutMessage));
    }, timeoutMs);
    const onError = (err: Error) => {
      if (timedOut) return finish(failure("TIMEOUT", timeoutMessage));
      if (err instanceof undiciErrors.InvalidArgumentError) return finish(failure("INVALID_CHARACTER", describe(err)));
      finish(failure(classifyNetworkError(err), describe(err)));
    };
    // undici's dispatch API: no streams, promises or abort signals per request, the cheapest way it sends.
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (timedOut) c.abort(new Error(timeoutMessage));
      },
      onResponseStart(_c, statusCode, headers) {
        // 1xx informational answers come first: the final status wins.
        status = statusCode;
        if (statusCode === 429 || statusCode === 503) {
          const h = headers["retry-after"];
          retryAfter = Array.isArray(h) ? h[0] : h;
        }
        responseLatency = Math.round(performance.now() - started);
      },
      onResponseData(_c, chunk) {
        if (kept < max) {
          chunks.push(chunk.subarray(0, max - kept));
          kept += Math.min(chunk.length, max - kept);
        }
      },
      onResponseEnd() {
        finish({
          status,
          body: chunks.length ? Buffer.concat(chunks).toString("utf8") : "",
          errorCode: null,
          responseLatency,
          deliveryLatency: Math.round(performance.now() - started),
          deliveredAt,
          respondedAt: new Date(),
          ...(retryAfter !== undefined && { retryAfter }),
        });
      },
      onResponseError(_c, err) {
        onError(err);
      },
    };
    try {
      getAgent().dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: withTraceparent(req.headers),
          body: req.body && req.method !== "GET" && req.method !== "HEAD" ? req.body : undefined,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        handler,
      );
    } catch (err) {
      onError(err as Error);
    }
  });
}

/** Closes pooled connections (shutdown, tests). */
export async function closeSender(): Promise<void> {
  const a = agent;
  agent = undefined;
  await a?.close().catch(() => {});
}
