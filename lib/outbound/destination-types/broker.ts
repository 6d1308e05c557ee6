/**
 * What the broker and cloud destination types share (docs/outbound.md "Addresses a destination may reach",
 * "Connections"): the address guard of the HTTP sender applied to every host they connect to, a bound
 * on every step of an attempt (one attempt's timeout, never a worker), and attempt outcomes shaped like
 * the webhook type's (`code`, and `response_data` `{status_code, body, headers}` with a readable body
 * that names nothing of the operator's network).
 */
import { guardedResolve, RefusedAddressError } from "@/lib/delivery/address-guard";
import { deliveryPolicy, deliveryResolver } from "@/lib/delivery/http-sender";
import type { Field } from "@/lib/outbound/destination-types/fields";
import type { Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

/** A failed step of a delivery with the `code` and the text its attempt records (nothing of the operator's network). */
export class BrokerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "BrokerError";
  }
}

/** What a tenant reads on an attempt refused by the address guard: the target as written, no resolved address. */
export const refusedText = (target: string) =>
  `${target} is not a permitted delivery target (cloud metadata, link-local and reserved addresses never are; private networks only where the operator allows them)`;

/** The pattern of a `host:port` field (`[IPv6 address]:port` for an IPv6 address). */
export const HOST_PORT_PATTERN = "^(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:\\[\\]]+):\\d{1,5}$";

/** `host:port` or `[IPv6]:port` split (brackets removed); throws a BrokerError with `code` for anything else. */
export function hostPort(target: string, code: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:/\s]+):(\d{1,5})$/.exec(target);
  if (!m) throw new BrokerError(code, `${target} is not host:port`);
  return { host: m[1].replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

/**
 * The one address a connection to `host` may be opened to (lib/delivery/address-guard.ts guardedResolve
 * under the HTTP sender's policy and resolver): connect to it, never to `host` again, and keep `host`
 * for TLS. Rejects with a BrokerError: `host_unreachable` for a refused host (the body names only
 * `target`), `code` when the name does not resolve (only the resolver's error code).
 */
export async function guardHost(host: string, target: string, code: string): Promise<string> {
  try {
    return (await guardedResolve(host, deliveryPolicy(), deliveryResolver())).address;
  } catch (err) {
    if (err instanceof RefusedAddressError) throw new BrokerError("host_unreachable", refusedText(target));
    throw new BrokerError(code, `could not resolve ${host} (${(err as NodeJS.ErrnoException).code ?? "lookup failed"})`);
  }
}

/** `[address]` for an IPv6 address, else `address` (the host part of a URL or a `host:port`). */
export const urlHost = (address: string) => (address.includes(":") ? `[${address}]` : address);

/**
 * `work` bounded by the attempt timeout (OUTBOUND_DELIVERY_TIMEOUT_SECONDS, or `ms`): rejects with
 * BrokerError `timeout` naming `target` when it does not settle in time (then `onTimeout` runs, e.g.
 * to drop the client). The work itself is not cancelled; the caller drops what it used.
 */
export function withTimeout<T>(work: Promise<T>, target: string, ms = outboundConfig().deliveryTimeoutMs): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BrokerError("timeout", `no answer from ${target} within ${ms} ms`)), ms);
    work.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (err) => (clearTimeout(timer), reject(err instanceof Error ? err : new Error(String(err)))),
    );
  });
}

/** A successful attempt that took since `started` (performance.now()). */
export const succeeded = (started: number, body = ""): Outcome => ({
  success: true,
  code: "ok",
  latencyMs: Math.round(performance.now() - started),
  response: body ? { status_code: null, body, headers: {} } : null,
});

/**
 * A failed attempt from `err`: a BrokerError keeps its code and text; any other error is `code` with the
 * error's own code (`ECONNREFUSED`…) when it has one, so no socket message reaches the tenant, else its
 * message (a broker's own answer: `NOGROUP`, `permission denied`…).
 */
export function failed(started: number, err: unknown, code: string, target: string): Outcome {
  const latencyMs = Math.round(performance.now() - started);
  const e = err as NodeJS.ErrnoException;
  let reason: { code: string; body: string };
  if (err instanceof BrokerError) reason = { code: err.code, body: err.message };
  else if (typeof e?.code === "string" && /^E[A-Z]+$/.test(e.code))
    reason =
      e.code === "ETIMEDOUT"
        ? { code: "timeout", body: `no connection to ${target} (ETIMEDOUT)` }
        : { code, body: `could not connect to ${target} (${e.code})` };
  else reason = { code, body: (e instanceof Error ? e.message : String(err)) || code };
  return { success: false, code: reason.code, latencyMs, response: { status_code: null, body: reason.body, headers: {} } };
}

/** The `username` and (sensitive) `password` credential fields of a broker; `required` for both or neither. */
export const userPassword = (required: boolean): Field[] => [
  { key: "username", type: "text", label: "Username", description: "", required },
  { key: "password", type: "text", label: "Password", description: "", required, sensitive: true },
];

/** A stable text of what a client was opened with (the client pool's fingerprint). */
export const fingerprintOf = (config: Record<string, string>, credentials: Record<string, string>) => JSON.stringify([config, credentials]);
