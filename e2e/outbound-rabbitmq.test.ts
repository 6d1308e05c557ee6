/**
 * The `rabbitmq` destination type (docs/outbound.md#destinations-and-their-types) against a real broker (Debian's
 * rabbitmq-server, e2e/support/rabbitmq.ts): a published event arrives on the exchange with its topic as
 * routing key, its data byte for byte and its metadata as headers; a missing exchange is a failed attempt.
 */
import { randomBytes } from "node:crypto";
import amqp from "amqplib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { eventually } from "./support/receiver";
import { type RabbitBroker, startRabbit } from "./support/rabbitmq";

let broker: RabbitBroker;
let key = "";
const T = `rabbit-${randomBytes(4).toString("hex")}`;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${BASE_URL}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  broker = await startRabbit();
  key = (await createOutboundKey("rabbit")).key;
  await call("PUT", `/tenants/${T}`);
}, 90_000);
afterAll(async () => broker?.stop(), 30_000);

it("an event is published to the exchange with the topic as routing key and the metadata as headers", async () => {
  const conn = await amqp.connect(broker.url);
  const ch = await conn.createChannel();
  await ch.assertExchange("events", "topic", { durable: false });
  const q = await ch.assertQueue("", { exclusive: true });
  await ch.bindQueue(q.queue, "events", "order.*");
  const got: amqp.ConsumeMessage[] = [];
  await ch.consume(q.queue, (m) => m && got.push(m), { noAck: true });
  const d = await call("POST", `/tenants/${T}/destinations`, {
    type: "rabbitmq",
    topics: ["order.paid"],
    config: { server_url: `127.0.0.1:${broker.port}`, exchange: "events" },
    credentials: { username: "guest", password: "guest" },
  });
  expect(d.status, JSON.stringify(d.json)).toBe(201);
  const p = await call("POST", "/publish", { tenant_id: T, topic: "order.paid", metadata: { region: "eu" }, data: { order: 7 } });
  const m = await eventually(() => got[0], 20_000);
  expect(m.fields.routingKey).toBe("order.paid");
  expect(m.content.toString()).toBe('{"order":7}');
  expect(m.properties.headers).toMatchObject({ "event-id": p.json.id, topic: "order.paid", region: "eu" });
  const attempts = await eventually(async () => (await call("GET", `/attempts?event_id=${p.json.id}`)).json.models[0]);
  expect(attempts).toMatchObject({ status: "success", destination_type: "rabbitmq", attempt_number: 0 });
  await conn.close();
}, 60_000);

it("a missing exchange is a failed attempt, not a crash", async () => {
  const d = await call("POST", `/tenants/${T}/destinations`, {
    type: "rabbitmq",
    topics: ["nowhere"],
    config: { server_url: `127.0.0.1:${broker.port}`, exchange: "no-such-exchange" },
    credentials: { username: "guest", password: "guest" },
  });
  const p = await call("POST", "/publish", { tenant_id: T, topic: "nowhere", eligible_for_retry: false, data: { x: 1 } });
  expect(p.json.destination_ids).toEqual([d.json.id]);
  const attempt = await eventually(async () => (await call("GET", `/attempts?event_id=${p.json.id}&include=response_data`)).json.models[0], 20_000);
  expect(attempt.status).toBe("failed");
  expect(["rabbitmq_error", "timeout"]).toContain(attempt.code);
}, 60_000);
