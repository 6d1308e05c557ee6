/**
 * Which network addresses a delivery may reach (docs/pipeline.md#refused-addresses). Three classes:
 * - **Cloud metadata** (AWS, GCP, Azure incl. its wire server, Alibaba, Oracle, Tencent, Scaleway, and the
 *   169.254.169.254 of DigitalOcean, Hetzner, OpenStack and others) is refused always: no setting and no
 *   allow-listed CIDR reaches it.
 * - **Never targets**: link-local (169.254.0.0/16, fe80::/10), unspecified (0.0.0.0/8, ::), broadcast,
 *   multicast, reserved and documentation ranges, 6to4, Teredo, deprecated IPv4-compatible IPv6; refused
 *   always too.
 * - **Private**: private, loopback, carrier-grade NAT, unique-local and site-local ranges, and local-use
 *   NAT64 (64:ff9b:1::/48); reached only when `allowPrivate` (DELIVERY_ALLOW_PRIVATE_NETWORKS) or when the
 *   address is inside one of `allowedCidrs` (DELIVERY_ALLOWED_CIDRS).
 * An IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-translated, NAT64, 6to4, Teredo) is judged by
 * that IPv4 address as well, so `::ffff:169.254.169.254` or `64:ff9b::a9fe:a9fe` is metadata.
 * The check runs where the connection is made ({@link guardedConnector}: the resolver's answer and the
 * socket's actual peer), never on a separate resolution, so DNS rebinding has no gap to use.
 */
import dns from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { buildConnector } from "undici";

type IP = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [IP, number];

/** Addresses of cloud instance-metadata and host services (CIDR, whose). */
const METADATA: ReadonlyArray<[string, string]> = [
  ["169.254.169.254/32", "the instance metadata service of AWS, GCP, Azure, Oracle, DigitalOcean, Hetzner, OpenStack and others"],
  ["169.254.170.2/32", "the AWS ECS task metadata service"],
  ["169.254.170.23/32", "the AWS EKS Pod Identity agent"],
  ["169.254.0.23/32", "the Tencent Cloud metadata service"],
  ["169.254.42.42/32", "the Scaleway metadata service"],
  ["168.63.129.16/32", "the Azure wire server"],
  ["100.100.100.200/32", "the Alibaba Cloud metadata service"],
  ["192.0.0.192/32", "the Oracle Cloud metadata service"],
  ["fd00:ec2::/32", "an AWS instance service (fd00:ec2::254 is its IPv6 metadata service)"],
  ["fd20:ce::254/128", "the GCP IPv6 metadata service"],
  ["fd00:c1::a9fe:a9fe/128", "the Oracle Cloud IPv6 metadata service"],
  ["fd00:42::42/128", "the Scaleway IPv6 metadata service"],
];
const METADATA_CIDRS: ReadonlyArray<[Cidr, string]> = METADATA.map(([cidr, whose]) => [ipaddr.parseCIDR(cidr), whose]);

/** Names of metadata services, refused before any resolution (their addresses are refused after it too). */
const METADATA_HOSTNAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.tencentyun.com",
  "instance-data",
  "instance-data.ec2.internal",
]);

const NEVER = new Set([
  "unspecified",
  "broadcast",
  "multicast",
  "linkLocal",
  "reserved",
  "benchmarking",
  "amt",
  "as112",
  "as112v6",
  "orchid2",
  "deprecatedOrchid",
  "discard",
  "segmentRouting",
  "6to4",
  "teredo",
]);
const PRIVATE = new Set(["private", "loopback", "carrierGradeNat", "uniqueLocal", "deprecatedSiteLocal"]);

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text);
const IPV4_COMPATIBLE = cidr("::/96");
const IPV4_TRANSLATED = cidr("::ffff:0:0:0/96");
const NAT64_WELL_KNOWN = cidr("64:ff9b::/96");
const NAT64_LOCAL = cidr("64:ff9b:1::/48");
const SIX_TO_FOUR = cidr("2002::/16");
const TEREDO = cidr("2001::/32");

/** What a delivery may reach besides public addresses (built from the settings by {@link addressPolicy}). */
export type AddressPolicy = {
  /** DELIVERY_ALLOW_PRIVATE_NETWORKS: every private-class address may be reached. */
  allowPrivate: boolean;
  /** DELIVERY_ALLOWED_CIDRS, parsed: private-class addresses inside these may be reached. */
  allowed: ReadonlyArray<Cidr>;
};

/**
 * The policy for `allowPrivate` and `allowedCidrs` ("10.0.0.0/8", "fd12::/16", or a bare address for
 * one host). Throws on a CIDR that does not parse (lib/config.ts validates them first).
 */
export function addressPolicy(allowPrivate: boolean, allowedCidrs: readonly string[] = []): AddressPolicy {
  return { allowPrivate, allowed: allowedCidrs.map(parseCidrOrAddress) };
}

/** "10.0.0.0/8" or "10.1.2.3" (= /32, /128 for IPv6) as a CIDR; throws when neither parses. */
function parseCidrOrAddress(text: string): Cidr {
  const t = text.trim();
  if (t.includes("/")) return ipaddr.parseCIDR(t);
  const ip = parseIp(t);
  return [ip, ip.kind() === "ipv4" ? 32 : 128];
}

const inCidr = (ip: IP, [net, bits]: Cidr) => ip.kind() === net.kind() && ip.match(net, bits);

const ipv4At = (bytes: number[], ...at: number[]) => new ipaddr.IPv4(at.map((i) => bytes[i]));

/** IPv4 addresses carried inside an IPv6 one, with the form's name; `strict` when the IPv4 address is the real peer. */
function embeddedIPv4(ip: ipaddr.IPv6): Array<{ ip: ipaddr.IPv4; form: string; strict: boolean }> {
  const b = ip.toByteArray();
  if (inCidr(ip, IPV4_COMPATIBLE)) return [{ ip: ipv4At(b, 12, 13, 14, 15), form: "IPv4-compatible", strict: true }];
  if (inCidr(ip, IPV4_TRANSLATED)) return [{ ip: ipv4At(b, 12, 13, 14, 15), form: "IPv4-translated", strict: true }];
  if (inCidr(ip, NAT64_WELL_KNOWN)) return [{ ip: ipv4At(b, 12, 13, 14, 15), form: "NAT64", strict: true }];
  if (inCidr(ip, NAT64_LOCAL)) {
    // RFC 6052 places the IPv4 address by prefix length (48, 56, 64 or 96 inside this /48), skipping byte 8.
    return [
      [6, 7, 9, 10],
      [7, 9, 10, 11],
      [9, 10, 11, 12],
      [12, 13, 14, 15],
    ].map((at) => ({ ip: ipv4At(b, ...at), form: "local-use NAT64", strict: false }));
  }
  if (inCidr(ip, SIX_TO_FOUR)) return [{ ip: ipv4At(b, 2, 3, 4, 5), form: "6to4", strict: true }];
  if (inCidr(ip, TEREDO)) {
    const client = new ipaddr.IPv4([12, 13, 14, 15].map((i) => b[i] ^ 0xff));
    return [
      { ip: client, form: "Teredo", strict: true },
      { ip: ipv4At(b, 4, 5, 6, 7), form: "Teredo server", strict: true },
    ];
  }
  return [];
}

/**
 * An IPv4 or IPv6 literal (brackets and zone dropped). IPv6 goes through the WHATWG URL parser first, which
 * writes every form in hex as the sender's URLs are: ipaddr.js alone reads "::a.b.c.d" (IPv4-compatible)
 * as IPv4-mapped.
 */
function parseIp(text: string): IP {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!bare.includes(":")) return ipaddr.IPv4.parse(bare);
  return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

const metadataOf = (ip: IP) => METADATA_CIDRS.find(([c]) => inCidr(ip, c))?.[1];

/**
 * Why `address` (an IPv4 or IPv6 literal, brackets and zone allowed) may not be reached under `policy`, or
 * null when it may. The reason is a sentence naming the class (it becomes the attempt's body).
 */
export function refusedAddressReason(address: string, policy: AddressPolicy): string | null {
  let ip: IP;
  try {
    ip = parseIp(address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  // :: and ::1 sit inside ::/96 (IPv4-compatible) but carry no IPv4 address.
  const unspecifiedOrLoopback = ip.kind() === "ipv6" && ["unspecified", "loopback"].includes(ip.range());
  const embedded = ip.kind() === "ipv6" && !unspecifiedOrLoopback ? embeddedIPv4(ip as ipaddr.IPv6) : [];

  const meta = metadataOf(ip);
  if (meta) return `${address} is ${meta} (cloud metadata: never a delivery target)`;
  for (const e of embedded) {
    const m = metadataOf(e.ip);
    if (m) return `${address} carries ${e.ip.toString()} (${e.form}), ${m} (cloud metadata: never a delivery target)`;
  }

  const range = ip.range();
  if (NEVER.has(range)) return `${address} is a ${range} address (never a delivery target)`;
  if (ip.kind() === "ipv6" && !unspecifiedOrLoopback && inCidr(ip, IPV4_COMPATIBLE)) {
    return `${address} is a deprecated IPv4-compatible address (never a delivery target)`;
  }
  for (const e of embedded) {
    const r = e.ip.range();
    if ((e.strict && NEVER.has(r)) || r === "linkLocal") return `${address} carries ${e.ip.toString()} (${e.form}), a ${r} address (never a delivery target)`;
  }

  const privateClass = PRIVATE.has(range)
    ? range
    : inCidr(ip, NAT64_LOCAL)
      ? "local-use NAT64"
      : embedded.find((e) => e.strict && PRIVATE.has(e.ip.range()))?.ip.range();
  if (!privateClass || policy.allowPrivate) return null;
  const candidates = [ip, ...embedded.filter((e) => e.strict).map((e) => e.ip)];
  if (policy.allowed.some((c) => candidates.some((x) => inCidr(x, c)))) return null;
  return `${address} is a ${privateClass} address (DELIVERY_ALLOW_PRIVATE_NETWORKS is off and DELIVERY_ALLOWED_CIDRS does not include it)`;
}

/**
 * Why a destination's host name (or IP literal, as in a URL) may not be reached before any resolution:
 * the names of metadata services, or an IP literal refused by {@link refusedAddressReason}. Null when
 * the name may be resolved (its addresses are checked then).
 */
export function refusedHostReason(host: string, policy: AddressPolicy): string | null {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (METADATA_HOSTNAMES.has(name)) return `${host} is a cloud metadata service (never a delivery target)`;
  // What net.connect takes as an address literal (it never looks those up).
  if (isIP(name)) return refusedAddressReason(name, policy);
  return null;
}

/** Error raised for a refused address; the HTTP sender classifies it as HOST_UNREACHABLE. */
export class RefusedAddressError extends Error {
  readonly code = "EREFUSEDADDRESS";
}

/** Resolves a host name to all its addresses (dns.lookup with `all: true` by default; tests inject their own). */
export type Resolver = (
  hostname: string,
  options: dns.LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, { ...options, all: true }, callback);

/**
 * A `net.connect` lookup: resolves with `resolve`, then refuses the connection (a {@link RefusedAddressError})
 * when any resolved address is refused under `policy`. What it returns is what the socket connects to.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, options, (err, list) => {
      if (err) return callback(err, "", 0);
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      for (const a of list) {
        const reason = refusedAddressReason(a.address, policy);
        if (reason) return callback(new RefusedAddressError(`${hostname} resolves to ${reason}`), "", 0);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The one address a connection to `host` (a name, or an IP literal with or without brackets) may be
 * opened to under `policy`, for connections not made by undici (the RabbitMQ destination type): metadata
 * names and refused literals fail before any resolution, a name resolves through {@link guardedLookup}
 * (every address it resolves to is checked; the first one is returned). Connect to the returned
 * `address` itself, never to `host` again, so the address checked is the address connected to (no DNS
 * rebinding gap); keep `host` for TLS (servername). Rejects with a {@link RefusedAddressError}, or the
 * resolver's error (ENOTFOUND, EAI_AGAIN…).
 */
export function guardedResolve(host: string, policy: AddressPolicy, resolve: Resolver = systemResolver): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, "");
  const reason = refusedHostReason(bare, policy);
  if (reason) return Promise.reject(new RefusedAddressError(reason));
  const literal = isIP(bare);
  if (literal) return Promise.resolve({ address: bare, family: literal });
  return new Promise((done, fail) => {
    guardedLookup(policy, resolve)(bare, { all: false }, (err, address, family) => {
      if (err) fail(err);
      else done({ address: address as string, family: family ?? (isIP(address as string) || 4) });
    });
  });
}

/**
 * An undici connector (Agent `connect` option) that enforces `policy` where the connection is made:
 * metadata host names and refused IP literals fail before connecting, host names resolve through
 * {@link guardedLookup}, and the connected socket's peer address is checked once more before undici
 * writes the request (an address that got past resolution in any way is still refused: the socket is
 * destroyed and the connection fails with a {@link RefusedAddressError}). `timeout` is the connect timeout, ms.
 */
export function guardedConnector(policy: AddressPolicy, options: { timeout?: number; resolve?: Resolver } = {}): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeout ?? 10_000, lookup: guardedLookup(policy, options.resolve) });
  return (opts, callback) => {
    const hostReason = refusedHostReason(opts.hostname, policy);
    if (hostReason) return callback(new RefusedAddressError(hostReason), null);
    connect(opts, (err, socket) => {
      if (err) return callback(err, null);
      const peer = socket.remoteAddress;
      const reason = peer ? refusedAddressReason(peer, policy) : `${opts.hostname}: the connection has no peer address`;
      if (!reason) return callback(null, socket);
      socket.destroy();
      callback(new RefusedAddressError(`${opts.hostname} connected to ${reason}`), null);
    });
  };
}
