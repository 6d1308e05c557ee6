/**
 * The `nats` destination type's delivery against a real nats-server with JetStream on loopback
 * (e2e/support/brokers.ts): core publish with metadata headers, JetStream with the stream's ack and the
 * event id as message id, a subject no stream captures, a broker that hangs, and the address guard
 * (docs/outbound.md "NATS").
 */
import { connect, type Msg, type NatsConnection } from "nats";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { nats } from "@/lib/outbound/destination-types/nats";
import { type Broker, deliveryOf, hangingServer, startNats } from "@/e2e/support/brokers";

let server: Broker;
let nc: NatsConnection;

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  server = await startNats();
  nc = await connect({ servers: `127.0.0.1:${server.port}` });
});
afterAll(async () => {
  closeAllClients();
  await nc?.close();
  await server?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("publishes the event to the subject with its metadata as headers, over one warm connection", async () => {
  const got: Msg[] = [];
  const sub = nc.subscribe("orders.paid", { callback: (_err, m) => got.push(m) });
  await nc.flush();
  const config = { server_url: `nats://127.0.0.1:${server.port}`, subject: "orders.paid" };
  for (let i = 0; i < 2; i++) expect(await nats.deliver(deliveryOf("des_nats1", config))).toMatchObject({ success: true, code: "ok" });
  await vi.waitFor(() => expect(got).toHaveLength(2));
  expect(got[0].string()).toBe('{"order":7}');
  expect(got[0].headers?.get("topic")).toBe("order.paid");
  expect(got[0].headers?.get("region")).toBe("eu");
  expect(got[0].headers?.get("timestamp")).toBe("2026-01-02T03:04:05Z");
  expect(got[0].headers?.get("event-id")).toMatch(/^evt_des_nats1_/);
  expect(openClientIds()).toContain("des_nats1");
  sub.unsubscribe();
});

it("with JetStream, succeeds once the stream acknowledges; the event id is the message id", async () => {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: "EVENTS", subjects: ["events.>"] });
  const config = { server_url: `127.0.0.1:${server.port}`, subject: "events.orders", jetstream: "true" };
  const d = deliveryOf("des_nats2", config);
  const first = await nats.deliver(d);
  expect(first).toMatchObject({ success: true, code: "ok" });
  expect(JSON.parse(first.response!.body)).toEqual({ stream: "EVENTS", seq: 1, duplicate: false });
  const again = await nats.deliver(d); // the same event again (a retry after a lost ack): one message in the stream
  expect(JSON.parse(again.response!.body)).toEqual({ stream: "EVENTS", seq: 1, duplicate: true });
  const m = await jsm.streams.getMessage("EVENTS", { seq: 1 });
  expect(m.string()).toBe('{"order":7}');
  expect(m.header.get("Nats-Msg-Id")).toBe(d.claimed.event_id);
  expect(m.header.get("region")).toBe("eu");
});

it("with JetStream, a subject no stream captures is a failed attempt saying so", async () => {
  const outcome = await nats.deliver(deliveryOf("des_nats3", { server_url: `127.0.0.1:${server.port}`, subject: "nowhere", jetstream: "true" }));
  expect(outcome).toMatchObject({
    success: false,
    code: "nats_error",
    response: { status_code: null, body: "no JetStream stream listens on nowhere", headers: {} },
  });
});

it("a broker that accepts and never answers costs one attempt's timeout, and its client is dropped", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await nats.deliver(deliveryOf("des_nats4", { server_url: `127.0.0.1:${hang.port}`, subject: "x" }));
    expect(outcome).toMatchObject({ success: false, code: "timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(hang.connections()).toBe(1);
    expect(openClientIds()).not.toContain("des_nats4");
  } finally {
    await hang.close();
  }
});

it("the delivery address guard refuses metadata and, where the operator forbids private networks, loopback addresses without connecting", async () => {
  const hang = await hangingServer();
  try {
    expect(await nats.deliver(deliveryOf("des_nats5", { server_url: "169.254.169.254:4222", subject: "x" }))).toMatchObject({ code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await nats.deliver(deliveryOf("des_nats6", { server_url: `nats://localhost:${hang.port}`, subject: "x" }));
    expect(outcome).toMatchObject({ success: false, code: "host_unreachable" });
    expect(outcome.response!.body).toMatch(new RegExp(`^localhost:${hang.port} is not a permitted delivery target`));
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});
