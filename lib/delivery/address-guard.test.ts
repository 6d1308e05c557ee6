/**
 * The delivery address guard (lib/delivery/address-guard.ts, docs/pipeline.md#refused-addresses): every address form under each
 * setting, through a resolver the test controls, and the connector undici connects with.
 */
import type dns from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressPolicy, guardedConnector, guardedLookup, guardedResolve, refusedAddressReason, type Resolver } from "@/lib/delivery/address-guard";

/** Cloud metadata addresses and every IPv6 form that carries one: refused under any setting. */
const METADATA = [
  "169.254.169.254", // AWS, GCP, Azure, Oracle, DigitalOcean, Hetzner, OpenStack
  "169.254.170.2", // AWS ECS task metadata
  "169.254.0.23", // Tencent
  "169.254.42.42", // Scaleway
  "168.63.129.16", // Azure wire server
  "100.100.100.200", // Alibaba
  "192.0.0.192", // Oracle
  "fd00:ec2::254", // AWS IPv6
  "fd00:ec2::23",
  "fd20:ce::254", // GCP IPv6
  "fd00:c1::a9fe:a9fe", // Oracle IPv6
  "fd00:42::42", // Scaleway IPv6
  "::ffff:169.254.169.254", // IPv4-mapped
  "::ffff:a9fe:a9fe",
  "[::ffff:a9fe:a9fe]",
  "::ffff:100.100.100.200",
  "::ffff:168.63.129.16",
  "::169.254.169.254", // IPv4-compatible
  "::a9fe:a9fe",
  "::ffff:0:169.254.169.254", // IPv4-translated
  "64:ff9b::a9fe:a9fe", // NAT64 well-known prefix
  "64:ff9b::168.63.129.16",
  "64:ff9b::100.100.100.200",
  "64:ff9b:1::a9fe:a9fe", // local-use NAT64, /96 format
  "64:ff9b:1:a9fe:a9:fe00::", // local-use NAT64, /48 format
  "2002:a9fe:a9fe::1", // 6to4
  "2001:0:4136:e378:8000:63bf:5601:5601", // Teredo, client 169.254.169.254 (inverted)
];

/** Never delivery targets, under any setting. */
const NEVER = [
  "169.254.1.1",
  "fe80::1",
  "fe80::1%eth0",
  "0.0.0.0",
  "0.1.2.3",
  "::",
  "255.255.255.255",
  "224.0.0.1",
  "ff02::1",
  "240.0.0.1",
  "192.0.2.1",
  "198.18.0.1",
  "2001:db8::1",
  "100::1",
  "2002:808:808::1", // 6to4 of a public address
  "2001::1", // Teredo
  "::8.8.8.8", // deprecated IPv4-compatible
  "::ffff:169.254.1.1",
  "::ffff:0.0.0.0",
  "::ffff:224.0.0.1",
  "64:ff9b::169.254.1.1",
  "64:ff9b::0.0.0.0",
  "64:ff9b::255.255.255.255",
];

/** Private-class addresses: reached with private networks allowed or inside an allowed CIDR. */
const PRIVATE = [
  "10.1.2.3",
  "172.16.0.1",
  "192.168.1.1",
  "127.0.0.1",
  "::1",
  "100.64.0.1",
  "fd12::1",
  "fc00::1",
  "fec0::1",
  "::ffff:10.1.2.3",
  "::ffff:127.0.0.1",
  "::ffff:0:10.1.2.3",
  "64:ff9b::10.1.2.3",
  "64:ff9b::127.0.0.1",
  "64:ff9b:1::808:808",
];

const PUBLIC = ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "64:ff9b::808:808"];

const privateOn = addressPolicy(true);
const privateOff = addressPolicy(false);
const someCidrs = addressPolicy(false, ["10.0.0.0/8", "127.0.0.1", "fd12::/16"]);
/** Allows every private address by CIDR, and more: metadata and never-targets must still be refused. */
const everything = addressPolicy(true, ["0.0.0.0/0", "::/0", "169.254.0.0/16", "100.64.0.0/10", "fd00::/8", "168.63.129.16/32", "64:ff9b::/96"]);

describe("refusedAddressReason", () => {
  it.each(METADATA)("%s is cloud metadata under every setting", (address) => {
    for (const policy of [privateOn, privateOff, someCidrs, everything]) {
      expect(refusedAddressReason(address, policy)).toMatch(/cloud metadata: never a delivery target/);
    }
  });

  it.each(NEVER)("%s is never a delivery target, under every setting", (address) => {
    for (const policy of [privateOn, privateOff, someCidrs, everything]) {
      expect(refusedAddressReason(address, policy)).toMatch(/never a delivery target/);
    }
  });

  it.each(PRIVATE)("%s is refused with private networks off and allowed with them on", (address) => {
    expect(refusedAddressReason(address, privateOff)).toMatch(/DELIVERY_ALLOW_PRIVATE_NETWORKS is off/);
    expect(refusedAddressReason(address, privateOn)).toBeNull();
    expect(refusedAddressReason(address, everything)).toBeNull();
  });

  it.each(PUBLIC)("%s (public) is allowed under every setting", (address) => {
    for (const policy of [privateOn, privateOff, someCidrs, everything]) expect(refusedAddressReason(address, policy)).toBeNull();
  });

  it("DELIVERY_ALLOWED_CIDRS allows the private addresses inside them (also as carried IPv4), and no others", () => {
    for (const a of [
      "10.1.2.3",
      "10.255.0.1",
      "::ffff:10.1.2.3",
      "::ffff:0:10.1.2.3",
      "64:ff9b::10.1.2.3",
      "127.0.0.1",
      "::ffff:127.0.0.1",
      "fd12::1",
      "fd12:ffff::9",
    ]) {
      expect(refusedAddressReason(a, someCidrs), a).toBeNull();
    }
    for (const a of ["127.0.0.2", "192.168.1.1", "172.16.0.1", "::1", "fd13::1", "100.64.0.1", "64:ff9b:1::808:808"]) {
      expect(refusedAddressReason(a, someCidrs), a).toMatch(/DELIVERY_ALLOWED_CIDRS does not include it/);
    }
  });

  it("an address that is not one is refused", () => {
    expect(refusedAddressReason("example.com", privateOn)).toMatch(/not an IP address/);
  });
});

/** A resolver the test controls: answers `hostname` with the given addresses. */
function resolverOf(answers: (hostname: string) => string[]): Resolver {
  return (hostname, _options, callback) =>
    queueMicrotask(() =>
      callback(
        null,
        answers(hostname).map((address): dns.LookupAddress => ({ address: address.replace(/^\[|\]$/g, ""), family: address.includes(":") ? 6 : 4 })),
      ),
    );
}

/** Runs the guarded lookup for `hostname` (all answers); resolves with the error or the addresses. */
function lookUp(policy: ReturnType<typeof addressPolicy>, answers: string[], all = true): Promise<{ err: NodeJS.ErrnoException | null; result: unknown }> {
  const lookup = guardedLookup(
    policy,
    resolverOf(() => answers),
  );
  return new Promise((resolve) => lookup("hooks.customer.test", { all }, (err, address) => resolve({ err, result: address })));
}

describe("guardedLookup with a resolver the test controls", () => {
  it.each([...METADATA, ...NEVER])("a name that resolves to %s is refused under every setting", async (address) => {
    for (const policy of [privateOn, privateOff, someCidrs, everything]) {
      const { err } = await lookUp(policy, [address]);
      expect(err?.code).toBe("EREFUSEDADDRESS");
      expect(err?.message).toMatch(/^hooks\.customer\.test resolves to .*never a delivery target/);
    }
  });

  it.each(PRIVATE)("a name that resolves to %s follows DELIVERY_ALLOW_PRIVATE_NETWORKS", async (address) => {
    expect((await lookUp(privateOff, [address])).err?.code).toBe("EREFUSEDADDRESS");
    const allowed = await lookUp(privateOn, [address]);
    expect(allowed.err).toBeNull();
    expect(allowed.result).toEqual([{ address: address.replace(/^\[|\]$/g, ""), family: address.includes(":") ? 6 : 4 }]);
  });

  it("one refused address among the answers refuses the name (no public-first, metadata-second)", async () => {
    expect((await lookUp(privateOn, ["93.184.216.34", "169.254.169.254"])).err?.code).toBe("EREFUSEDADDRESS");
    expect((await lookUp(privateOn, ["2606:4700::1111", "64:ff9b::a9fe:a9fe"])).err?.code).toBe("EREFUSEDADDRESS");
    expect((await lookUp(privateOff, ["93.184.216.34", "10.0.0.1"])).err?.code).toBe("EREFUSEDADDRESS");
  });

  it("without `all` the first allowed answer is returned", async () => {
    const { err, result } = await lookUp(privateOff, ["93.184.216.34", "8.8.8.8"], false);
    expect(err).toBeNull();
    expect(result).toBe("93.184.216.34");
  });
});

describe("guardedResolve (connections undici does not make: RabbitMQ)", () => {
  const NAMES: Record<string, string> = {
    "meta.customer.test": "169.254.169.254",
    "meta6.customer.test": "fd00:ec2::254",
    "ten.customer.test": "10.1.2.3",
    "home.customer.test": "192.168.0.5",
    "lo.customer.test": "127.0.0.1",
    "broker.customer.test": "93.184.216.34",
  };
  let lookups = 0;
  const resolve = resolverOf((name) => (lookups++, [NAMES[name] ?? "203.0.113.1"]));
  const outcome = (host: string, policy: ReturnType<typeof addressPolicy>) =>
    guardedResolve(host, policy, resolve).then(
      (r) => r.address,
      (err: NodeJS.ErrnoException) => err.code,
    );

  it("metadata and other never-targets, literal or resolved, are refused under every setting", async () => {
    for (const policy of [privateOn, privateOff, everything]) {
      for (const host of [
        "169.254.169.254",
        "[fd00:ec2::254]",
        "fd00:ec2::254",
        "::ffff:169.254.169.254",
        "0.0.0.0",
        "meta.customer.test",
        "meta6.customer.test",
      ]) {
        expect([host, await outcome(host, policy)]).toEqual([host, "EREFUSEDADDRESS"]);
      }
    }
  });

  it("metadata host names and IP literals are refused or answered without a lookup", async () => {
    lookups = 0;
    expect(await outcome("metadata.google.internal", everything)).toBe("EREFUSEDADDRESS");
    expect(await outcome("10.0.0.1", privateOff)).toBe("EREFUSEDADDRESS");
    expect(await outcome("10.0.0.1", privateOn)).toBe("10.0.0.1");
    expect(await outcome("[2606:4700::1111]", privateOff)).toBe("2606:4700::1111");
    expect(lookups).toBe(0);
  });

  it("private ranges (10/8, 192.168/16, 127/8), literal or resolved, follow DELIVERY_ALLOW_PRIVATE_NETWORKS and DELIVERY_ALLOWED_CIDRS", async () => {
    for (const host of ["10.0.0.1", "192.168.1.1", "127.0.0.1", "ten.customer.test", "home.customer.test", "lo.customer.test"]) {
      expect([host, await outcome(host, privateOff)]).toEqual([host, "EREFUSEDADDRESS"]);
      expect([host, await outcome(host, privateOn)]).toEqual([host, NAMES[host] ?? host]);
    }
    expect(await outcome("ten.customer.test", someCidrs)).toBe("10.1.2.3");
    expect(await outcome("home.customer.test", someCidrs)).toBe("EREFUSEDADDRESS");
  });

  it("a public name resolves to the address to connect to; a failed lookup keeps its code", async () => {
    expect(await guardedResolve("broker.customer.test", privateOff, resolve)).toEqual({ address: "93.184.216.34", family: 4 });
    const failing: Resolver = (_h, _o, cb) => queueMicrotask(() => cb(Object.assign(new Error("nope"), { code: "ENOTFOUND" }), []));
    await expect(guardedResolve("nowhere.customer.test", privateOff, failing)).rejects.toMatchObject({ code: "ENOTFOUND" });
  });
});

describe("guardedConnector (the check inside undici's connect)", () => {
  let port = 0;
  let served = 0;
  const server = http.createServer((_req, res) => {
    served++;
    res.writeHead(200, { connection: "close" }).end("ok");
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  /** A GET through an Agent whose connector guards with `policy` and `resolve`; the status or the error code. */
  async function get(url: string, policy: ReturnType<typeof addressPolicy>, resolve?: Resolver): Promise<number | string> {
    const agent = new Agent({ connect: guardedConnector(policy, { timeout: 2_000, resolve }) });
    try {
      const res = await request(url, { dispatcher: agent });
      await res.body.text();
      return res.statusCode;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? String(err);
    } finally {
      await agent.close();
    }
  }

  it("an IP literal host (which net.connect never looks up) is checked too", async () => {
    const before = served;
    expect(await get(`http://127.0.0.1:${port}/`, privateOff)).toBe("EREFUSEDADDRESS");
    expect(served).toBe(before);
    expect(await get(`http://127.0.0.1:${port}/`, privateOn)).toBe(200);
    expect(await get(`http://127.0.0.1:${port}/`, addressPolicy(false, ["127.0.0.0/8"]))).toBe(200);
  });

  it("metadata host names are refused before any resolution", async () => {
    let resolved = 0;
    const resolve: Resolver = (_h, _o, cb) => (resolved++, cb(null, [{ address: "127.0.0.1", family: 4 }]));
    for (const name of ["metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata.tencentyun.com", "metadata", "instance-data"]) {
      expect(await get(`http://${name}:${port}/`, everything, resolve)).toBe("EREFUSEDADDRESS");
    }
    expect(resolved).toBe(0);
  });

  it("a name is connected to only if its resolved address is allowed", async () => {
    const toLocal = resolverOf(() => ["127.0.0.1"]);
    const before = served;
    expect(await get(`http://hooks.customer.test:${port}/`, privateOff, toLocal)).toBe("EREFUSEDADDRESS");
    expect(served).toBe(before);
    expect(await get(`http://hooks.customer.test:${port}/`, privateOn, toLocal)).toBe(200);
    expect(await get(`http://hooks.customer.test:${port}/`, someCidrs, toLocal)).toBe(200);
    expect(served).toBe(before + 2);
  });

  it("DNS rebinding: each connection is checked against its own resolution", async () => {
    // First answer: the (allowed) receiver; every later one: the metadata service.
    let calls = 0;
    const rebinding = resolverOf(() => (calls++ === 0 ? ["127.0.0.1"] : ["169.254.169.254"]));
    const agent = new Agent({ connect: guardedConnector(privateOn, { timeout: 2_000, resolve: rebinding }) });
    try {
      const first = await request(`http://rebind.customer.test:${port}/`, { dispatcher: agent });
      expect(first.statusCode).toBe(200);
      await first.body.text();
      // The receiver closed the connection: the next request connects again, and resolves again.
      const second = await request(`http://rebind.customer.test:${port}/`, { dispatcher: agent }).catch((err: NodeJS.ErrnoException) => err);
      expect(second).toBeInstanceOf(Error);
      expect((second as NodeJS.ErrnoException).code).toBe("EREFUSEDADDRESS");
      expect((second as Error).message).toMatch(/rebind\.customer\.test resolves to 169\.254\.169\.254/);
      expect(calls).toBe(2);
    } finally {
      await agent.close();
    }
  });
});
