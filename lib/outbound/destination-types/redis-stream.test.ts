/**
 * The `redis_stream` destination type's delivery against a real redis-server on loopback
 * (e2e/support/brokers.ts): the entry's fields, the warm client, a broker that hangs, the address guard,
 * a refused password, and the client closed once its destination is gone (docs/outbound.md "Redis Streams").
 */
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds, reconcileClients } from "@/lib/outbound/destination-types/clients";
import { redisStream } from "@/lib/outbound/destination-types/redis-stream";
import { type Broker, deliveryOf, hangingServer, startRedis } from "@/e2e/support/brokers";

let redis: Broker;
let reader: ReturnType<typeof createClient>;
const PASSWORD = "s3cret-pass";

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  redis = await startRedis(PASSWORD);
  reader = createClient({ socket: { host: "127.0.0.1", port: redis.port }, password: PASSWORD });
  await reader.connect();
});
afterAll(async () => {
  closeAllClients();
  await reader?.close();
  await redis?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

const clients = async () => (await reader.sendCommand<string>(["CLIENT", "LIST"])).trim().split("\n").length - 1;

it("appends the event to the stream: data byte for byte and one field per metadata key, over one warm client", async () => {
  const config = { server_url: `127.0.0.1:${redis.port}`, stream: "events", maxlen: "1000" };
  const first = await redisStream.deliver(deliveryOf("des_redis1", config, { password: PASSWORD }));
  expect(first).toMatchObject({ success: true, code: "ok" });
  const second = await redisStream.deliver(deliveryOf("des_redis1", config, { password: PASSWORD }));
  expect(second.success).toBe(true);
  const entries = await reader.sendCommand<[string, string[]][]>(["XRANGE", "events", "-", "+"]);
  expect(entries).toHaveLength(2);
  expect(first.response?.body).toBe(entries[0][0]);
  const fields = Object.fromEntries(entries[0][1].flatMap((v, i, a) => (i % 2 ? [] : [[v, a[i + 1]]])));
  expect(fields).toEqual({
    "event-id": expect.stringMatching(/^evt_des_redis1_/),
    topic: "order.paid",
    timestamp: "2026-01-02T03:04:05Z",
    region: "eu",
    data: '{"order":7}',
  });
  expect(await clients()).toBe(1); // the destination's one client, kept open between deliveries
  expect(openClientIds()).toContain("des_redis1");
});

it("a changed config replaces the destination's client; closing the old one leaves the new one open", async () => {
  const base = { server_url: `127.0.0.1:${redis.port}`, stream: "moved-a" };
  expect((await redisStream.deliver(deliveryOf("des_redis7", base, { password: PASSWORD }))).success).toBe(true);
  expect((await redisStream.deliver(deliveryOf("des_redis7", { ...base, stream: "moved-b" }, { password: PASSWORD }))).success).toBe(true);
  await new Promise((r) => setTimeout(r, 200)); // the old client's end event has fired
  expect(openClientIds()).toContain("des_redis7");
  expect(await reader.sendCommand<number>(["XLEN", "moved-b"])).toBe(1);
});

it("a refused password is a failed attempt with Redis's own reason", async () => {
  const outcome = await redisStream.deliver(deliveryOf("des_redis2", { server_url: `redis://127.0.0.1:${redis.port}/0`, stream: "x" }, { password: "wrong" }));
  expect(outcome).toMatchObject({ success: false, code: "redis_error", response: { status_code: null, headers: {} } });
  expect(outcome.response!.body).toMatch(/WRONGPASS|invalid username-password/);
  expect(openClientIds()).not.toContain("des_redis2");
});

it("a broker that accepts and never answers costs one attempt's timeout, and its client is dropped", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await redisStream.deliver(deliveryOf("des_redis3", { server_url: `127.0.0.1:${hang.port}`, stream: "x" }, { password: "p" }));
    expect(outcome).toMatchObject({ success: false, code: "timeout" });
    expect(outcome.response!.body).toBe(`no answer from 127.0.0.1:${hang.port} within 1000 ms`);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(hang.connections()).toBe(1);
    expect(openClientIds()).not.toContain("des_redis3");
  } finally {
    await hang.close();
  }
});

it("a closed port is a readable redis_error naming only the target and the error code", async () => {
  const stopped = await startRedis();
  await stopped.stop();
  const outcome = await redisStream.deliver(deliveryOf("des_redis4", { server_url: `127.0.0.1:${stopped.port}`, stream: "x" }));
  expect(outcome).toMatchObject({ success: false, code: "redis_error", response: { body: `could not connect to 127.0.0.1:${stopped.port} (ECONNREFUSED)` } });
});

it("the delivery address guard refuses metadata and, where the operator forbids private networks, loopback addresses without connecting", async () => {
  const hang = await hangingServer();
  try {
    const metadata = await redisStream.deliver(deliveryOf("des_redis5", { server_url: "169.254.169.254:6379", stream: "x" }));
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    for (const server_url of [`127.0.0.1:${hang.port}`, `localhost:${hang.port}`, `redis://[::1]:${hang.port}`]) {
      const outcome = await redisStream.deliver(deliveryOf("des_redis6", { server_url, stream: "x" }));
      const target = server_url.replace("redis://", "");
      expect([server_url, outcome.code, outcome.response?.body]).toEqual([
        server_url,
        "host_unreachable",
        `${target} is not a permitted delivery target (cloud metadata, link-local and reserved addresses never are; private networks only where the operator allows them)`,
      ]);
    }
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});

it("a client whose destination is deleted or disabled is closed by the next check", async () => {
  // des_redis1's client is open (first test); no such destination exists in the database.
  expect(openClientIds()).toContain("des_redis1");
  await reconcileClients();
  expect(openClientIds()).not.toContain("des_redis1");
  await vi.waitFor(async () => expect(await clients()).toBe(0));
});
