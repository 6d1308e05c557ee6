/**
 * Which network addresses a delivery may reach (design "The delivery engine": addresses that are never
 * legitimate targets are refused, private ranges are configurable). Never allowed: link-local
 * (169.254.0.0/16, fe80::/10, which holds the cloud metadata services), unspecified, broadcast,
 * multicast and reserved ranges. Private, loopback, carrier-grade NAT and unique-local ranges are
 * allowed when `allowPrivate` (DELIVERY_ALLOW_PRIVATE_NETWORKS, default true for self-hosting).
 */
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

const NEVER = new Set(["unspecified", "broadcast", "multicast", "linkLocal", "reserved", "benchmarking", "amt", "as112", "as112v6", "orchid2", "discard", "deprecated", "6to4", "teredo"]);
const PRIVATE = new Set(["private", "loopback", "carrierGradeNat", "uniqueLocal"]);

/** Why `address` (an IPv4 or IPv6 literal) may not be reached, or null when it may. */
export function refusedAddressReason(address: string, allowPrivate: boolean): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.replace(/^\[|\]$/g, ""));
  } catch {
    return `${address} is not an IP address`;
  }
  const range = ip.range();
  if (NEVER.has(range)) return `${address} is a ${range} address (never a delivery target)`;
  if (PRIVATE.has(range) && !allowPrivate) return `${address} is a ${range} address (DELIVERY_ALLOW_PRIVATE_NETWORKS is off)`;
  return null;
}

/** Error raised for a refused address; classified as HOST_UNREACHABLE. */
export class RefusedAddressError extends Error {
  readonly code = "EREFUSEDADDRESS";
}

/**
 * A `net.connect` lookup that resolves like the system resolver, then refuses the connection when any
 * resolved address is refused by {@link refusedAddressReason} (checked after resolution, so a DNS name
 * pointing at 169.254.169.254 is refused too).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      for (const a of list) {
        const reason = refusedAddressReason(a.address, allowPrivate);
        if (reason) return callback(new RefusedAddressError(`${hostname} resolves to ${reason}`), "", 0);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction;
}
