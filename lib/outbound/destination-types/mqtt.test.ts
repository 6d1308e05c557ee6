/**
 * The `mqtt` destination type's delivery against a real mosquitto on loopback (e2e/support/brokers.ts):
 * QoS 1 publish with the metadata as MQTT 5 user properties over one warm client, QoS 0, a broker that
 * hangs, and the address guard (docs/outbound.md "MQTT").
 */
import { connectAsync, type IPublishPacket, type MqttClient } from "mqtt";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { mqtt } from "@/lib/outbound/destination-types/mqtt";
import { type Broker, deliveryOf, hangingServer, startMosquitto } from "@/e2e/support/brokers";

let broker: Broker;
let reader: MqttClient;
const got: IPublishPacket[] = [];

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  broker = await startMosquitto();
  reader = await connectAsync({ host: "127.0.0.1", port: broker.port, protocolVersion: 5, reconnectPeriod: 0 });
  reader.on("message", (_t, _p, packet) => got.push(packet));
  await reader.subscribeAsync("orders/#", { qos: 1 });
});
afterAll(async () => {
  closeAllClients();
  await reader?.endAsync(true);
  await broker?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("publishes at QoS 1 with the metadata as user properties, over one warm client", async () => {
  const config = { server_url: `mqtt://127.0.0.1:${broker.port}`, topic: "orders/paid" };
  for (let i = 0; i < 2; i++) expect(await mqtt.deliver(deliveryOf("des_mqtt1", config))).toMatchObject({ success: true, code: "ok" });
  await vi.waitFor(() => expect(got).toHaveLength(2));
  expect(got[0].topic).toBe("orders/paid");
  expect(got[0].qos).toBe(1);
  expect(got[0].payload.toString()).toBe('{"order":7}');
  expect(got[0].properties?.userProperties).toEqual({
    "event-id": expect.stringMatching(/^evt_des_mqtt1_/),
    topic: "order.paid",
    timestamp: "2026-01-02T03:04:05Z",
    region: "eu",
  });
  expect(got[0].properties?.contentType).toBe("application/json");
  expect(openClientIds()).toContain("des_mqtt1");
});

it("publishes at QoS 0 when configured", async () => {
  got.length = 0;
  const outcome = await mqtt.deliver(deliveryOf("des_mqtt2", { server_url: `127.0.0.1:${broker.port}`, topic: "orders/zero", qos: "0" }));
  expect(outcome.success).toBe(true);
  await vi.waitFor(() => expect(got.map((p) => [p.topic, p.qos])).toEqual([["orders/zero", 0]]));
});

it("a broker that accepts and never answers costs one attempt's timeout, and its client is dropped", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await mqtt.deliver(deliveryOf("des_mqtt3", { server_url: `127.0.0.1:${hang.port}`, topic: "x" }));
    expect(outcome).toMatchObject({
      success: false,
      code: "timeout",
      response: { status_code: null, body: `no answer from 127.0.0.1:${hang.port} within 1000 ms` },
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(hang.connections()).toBe(1);
    expect(openClientIds()).not.toContain("des_mqtt3");
  } finally {
    await hang.close();
  }
});

it("a closed port is a readable mqtt_error naming only the target and the error code", async () => {
  const hang = await hangingServer();
  const port = hang.port;
  await hang.close();
  const outcome = await mqtt.deliver(deliveryOf("des_mqtt4", { server_url: `127.0.0.1:${port}`, topic: "x" }));
  expect(outcome).toMatchObject({ success: false, code: "mqtt_error", response: { body: `could not connect to 127.0.0.1:${port} (ECONNREFUSED)` } });
});

it("the delivery address guard refuses metadata and, where the operator forbids private networks, loopback addresses without connecting", async () => {
  const hang = await hangingServer();
  try {
    expect(await mqtt.deliver(deliveryOf("des_mqtt5", { server_url: "[fd00:ec2::254]:1883", topic: "x" }))).toMatchObject({ code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await mqtt.deliver(deliveryOf("des_mqtt6", { server_url: `mqtt://localhost:${hang.port}`, topic: "x" }));
    expect(outcome).toMatchObject({ success: false, code: "host_unreachable" });
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});
