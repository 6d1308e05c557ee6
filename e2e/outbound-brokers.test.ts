/**
 * The broker and cloud destination types through the API (docs/outbound.md "Redis Streams", "NATS", "MQTT",
 * "AWS SQS", "AWS S3", "AWS Kinesis", "Google Cloud Pub/Sub"; Pub/Sub against the REST stand-in of e2e/support/pubsub-emulator.ts),
 * each against a real server on loopback started here (e2e/support/brokers.ts): created on both API
 * forms, credentials obfuscated on read, listed by type, updated (the next delivery goes where the new
 * config says), disabled (no delivery), enabled and deleted; a published event arrives with its data
 * and metadata and is recorded as an attempt; a failed one is retried by hand; key templates take JMESPath
 * (docs/outbound.md "Key templates").
 */
import { randomBytes } from "node:crypto";
import { connect, type Msg, type NatsConnection } from "nats";
import { connectAsync, type IPublishPacket, type MqttClient } from "mqtt";
import { createClient } from "redis";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from "@aws-sdk/client-kinesis";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { type Broker, startKinesalite, startMosquitto, startNats, startRedis } from "./support/brokers";
import { startPubSubEmulator } from "./support/pubsub-emulator";
import { BASE_URL } from "./support/client";
import { eventually } from "./support/receiver";

let key = "";
const T = `brokers-${randomBytes(4).toString("hex")}`;
const PASSWORD = "redis-pass-0123";
let redis: Broker, nats: Broker, mosquitto: Broker;
let sqs: FauxqsServer;
let kinesis: Awaited<ReturnType<typeof startKinesalite>>;
let pubsub: Awaited<ReturnType<typeof startPubSubEmulator>>;
const AWS_READER = { region: "us-east-1", credentials: { accessKeyId: "a", secretAccessKey: "b" }, requestHandler: new NodeHttpHandler() };
let redisReader: ReturnType<typeof createClient>;
let natsReader: NatsConnection;
let mqttReader: MqttClient;
const natsGot: Msg[] = [];
const mqttGot: IPublishPacket[] = [];

async function call(method: string, path: string, body?: unknown, form = "api/v1") {
  const res = await fetch(`${BASE_URL}/outbound/${form}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const publish = async (topic: string, data: unknown, extra: Record<string, unknown> = {}) =>
  (await call("POST", "/publish", { tenant_id: T, topic, metadata: { region: "eu" }, data, ...extra })).json as { id: string; destination_ids: string[] };
const attemptsOf = (eventId: string, n = 1) =>
  eventually(async () => {
    const models = (await call("GET", `/attempts?event_id=${eventId}&include=response_data`)).json.models as Record<string, unknown>[];
    return models.length >= n && models;
  }, 20_000);

beforeAll(async () => {
  [redis, nats, mosquitto, sqs, kinesis, pubsub] = await Promise.all([
    startRedis(PASSWORD),
    startNats(),
    startMosquitto(),
    startFauxqs({ port: 0, host: "127.0.0.1", logger: false }),
    startKinesalite("hy-one", "hy-two"),
    startPubSubEmulator(["projects/hy-project/topics/hy-one", "projects/hy-project/topics/hy-two"]),
  ]);
  sqs.createQueue("hy-one");
  sqs.createQueue("hy-two");
  sqs.createBucket("hy-one");
  sqs.createBucket("hy-two");
  redisReader = createClient({ socket: { host: "127.0.0.1", port: redis.port }, password: PASSWORD });
  await redisReader.connect();
  natsReader = await connect({ servers: `127.0.0.1:${nats.port}` });
  natsReader.subscribe("hy.>", { callback: (_e, m) => natsGot.push(m) });
  await natsReader.flush();
  mqttReader = await connectAsync({ host: "127.0.0.1", port: mosquitto.port, protocolVersion: 5, reconnectPeriod: 0 });
  mqttReader.on("message", (_t, _p, packet) => mqttGot.push(packet));
  await mqttReader.subscribeAsync("hy/#", { qos: 1 });
  key = (await createOutboundKey("brokers")).key;
  await call("PUT", `/tenants/${T}`);
}, 60_000);
afterAll(async () => {
  await redisReader?.close();
  await natsReader?.close();
  await mqttReader?.endAsync(true);
  await Promise.all([redis?.stop(), nats?.stop(), mosquitto?.stop(), sqs?.stop(), kinesis?.stop(), pubsub?.stop()]);
});

/** The fields of the stream's entries, as objects. */
const streamOf = async (stream: string) =>
  (await redisReader.sendCommand<[string, string[]][]>(["XRANGE", stream, "-", "+"])).map(([, f]) =>
    Object.fromEntries(f.flatMap((v, i) => (i % 2 ? [] : [[v, f[i + 1]]]))),
  );

type Case = {
  type: string;
  config: (topic: string) => Record<string, string>;
  credentials: Record<string, string>;
  obfuscated: Record<string, string>;
  /** The config PATCH that moves deliveries elsewhere. */
  moved: () => Record<string, string>;
  /** What arrived at `where` (stream, subject or topic): bodies and metadata. */
  received: (where: string) => Promise<{ body: string; meta: Record<string, string> }[]>;
  where: [string, string];
};

const cases: Case[] = [
  {
    type: "redis_stream",
    config: () => ({ server_url: `127.0.0.1:${redis.port}`, stream: "hy-one", maxlen: "100" }),
    credentials: { password: PASSWORD },
    obfuscated: { password: "redi***********" },
    moved: () => ({ stream: "hy-two" }),
    received: async (stream) => (await streamOf(stream)).map(({ data, ...meta }) => ({ body: data, meta })),
    where: ["hy-one", "hy-two"],
  },
  {
    type: "nats",
    config: () => ({ server_url: `nats://127.0.0.1:${nats.port}`, subject: "hy.one" }),
    credentials: {},
    obfuscated: {},
    moved: () => ({ subject: "hy.two" }),
    received: (subject) =>
      Promise.resolve(
        natsGot
          .filter((m) => m.subject === subject)
          .map((m) => ({ body: m.string(), meta: Object.fromEntries(m.headers!.keys().map((k) => [k, m.headers!.get(k)])) })),
      ),
    where: ["hy.one", "hy.two"],
  },
  {
    type: "mqtt",
    config: () => ({ server_url: `mqtt://127.0.0.1:${mosquitto.port}`, topic: "hy/one" }),
    credentials: { username: "hookyard", password: "mqtt-password" },
    obfuscated: { username: "hookyard", password: "mqtt*********" },
    moved: () => ({ topic: "hy/two" }),
    received: (topic) =>
      Promise.resolve(
        mqttGot
          .filter((p) => p.topic === topic)
          .map((p) => ({ body: p.payload.toString(), meta: (p.properties?.userProperties ?? {}) as Record<string, string> })),
      ),
    where: ["hy/one", "hy/two"],
  },

  {
    type: "aws_sqs",
    config: () => ({ queue_url: `http://127.0.0.1:${sqs.port}/000000000000/hy-one`, endpoint: `http://127.0.0.1:${sqs.port}` }),
    credentials: { key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" },
    obfuscated: { key: "AKIA**********", secret: "wJal****************" },
    moved: () => ({ queue_url: `http://127.0.0.1:${sqs.port}/000000000000/hy-two` }),
    received: (queue) =>
      Promise.resolve(
        (sqs.inspectQueue(queue)?.messages.ready ?? []).map((m) => ({
          body: m.body,
          meta: JSON.parse(m.messageAttributes.metadata.StringValue!) as Record<string, string>,
        })),
      ),
    where: ["hy-one", "hy-two"],
  },

  {
    type: "aws_s3",
    config: () => ({ bucket: "hy-one", region: "eu-west-1", key_template: "{topic}/{event_id}.json", endpoint: `http://127.0.0.1:${sqs.port}` }),
    credentials: { key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" },
    obfuscated: { key: "AKIA**********", secret: "wJal****************" },
    moved: () => ({ bucket: "hy-two" }),
    received: async (bucket) => {
      const s3 = new S3Client({ ...AWS_READER, endpoint: `http://127.0.0.1:${sqs.port}`, forcePathStyle: true });
      try {
        const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
        return await Promise.all(
          (listed.Contents ?? []).map(async ({ Key }) => {
            const o = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
            return { body: await o.Body!.transformToString(), meta: o.Metadata ?? {} };
          }),
        );
      } finally {
        s3.destroy();
      }
    },
    where: ["hy-one", "hy-two"],
  },

  {
    type: "aws_kinesis",
    config: () => ({ stream_name: "hy-one", region: "us-east-1", endpoint: kinesis.endpoint }),
    credentials: { key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" },
    obfuscated: { key: "AKIA**********", secret: "wJal****************" },
    moved: () => ({ stream_name: "hy-two" }),
    received: async (stream) => {
      const reader = new KinesisClient({ ...AWS_READER, endpoint: kinesis.endpoint });
      try {
        const it = { StreamName: stream, ShardId: "shardId-000000000000", ShardIteratorType: "TRIM_HORIZON" as const };
        const { ShardIterator } = await reader.send(new GetShardIteratorCommand(it));
        const { Records } = await reader.send(new GetRecordsCommand({ ShardIterator }));
        return (Records ?? []).map((r) => {
          const record = JSON.parse(Buffer.from(r.Data!).toString("utf8")) as { metadata: Record<string, string>; data: unknown };
          return { body: JSON.stringify(record.data), meta: record.metadata };
        });
      } finally {
        reader.destroy();
      }
    },
    where: ["hy-one", "hy-two"],
  },

  {
    type: "gcp_pubsub",
    config: () => ({ project_id: "hy-project", topic: "hy-one", endpoint: pubsub.url }),
    credentials: {},
    obfuscated: {},
    moved: () => ({ topic: "hy-two" }),
    received: (topic) =>
      Promise.resolve(pubsub.messages.filter((m) => m.topic === `projects/hy-project/topics/${topic}`).map((m) => ({ body: m.data, meta: m.attributes }))),
    where: ["hy-one", "hy-two"],
  },
];

describe.each(cases)("$type destinations", (c) => {
  it("are created, read (credentials obfuscated), listed, updated, disabled, enabled and deleted; deliveries carry data and metadata", async () => {
    const topic = `t.${c.type}`;
    const d = await call("POST", `/tenants/${T}/destinations`, { type: c.type, topics: [topic], config: c.config(topic), credentials: c.credentials });
    expect(d.status, JSON.stringify(d.json)).toBe(201);
    expect(d.json).toMatchObject({ type: c.type, credentials: c.obfuscated, disabled_at: null });
    expect(d.json.target).toContain(c.where[0]);
    const path = `/tenants/${T}/destinations/${d.json.id}`;
    expect((await call("GET", path)).json.credentials).toEqual(c.obfuscated);
    expect((await call("GET", `/tenants/${T}/destinations?type=${c.type}`)).json.map((x: { id: string }) => x.id)).toEqual([d.json.id]);

    const p = await publish(topic, { n: 1 });
    expect(p.destination_ids).toEqual([d.json.id]);
    const [attempt] = await attemptsOf(p.id);
    expect(attempt).toMatchObject({ status: "success", code: "ok", destination_type: c.type, attempt_number: 0 });
    const [got] = await eventually(async () => (await c.received(c.where[0])).length > 0 && c.received(c.where[0]));
    expect(got.body).toBe('{"n":1}');
    expect(got.meta).toMatchObject({ "event-id": p.id, topic, region: "eu" });

    const patched = await call("PATCH", path, { config: c.moved() });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.config).toMatchObject(c.moved());
    const p2 = await publish(topic, { n: 2 });
    await attemptsOf(p2.id);
    const moved = await eventually(async () => (await c.received(c.where[1])).length > 0 && c.received(c.where[1]));
    expect(moved.map((m) => [m.body, m.meta["event-id"]])).toEqual([['{"n":2}', p2.id]]);

    expect((await call("PUT", `${path}/disable`)).json.disabled_at).not.toBeNull();
    expect((await publish(topic, { n: 3 })).destination_ids).toEqual([]);
    expect((await call("PUT", `${path}/enable`)).json.disabled_at).toBeNull();
    expect((await call("DELETE", path)).status).toBeLessThan(300);
    expect((await call("GET", path)).status).toBe(404);
  }, 60_000);
});

it("the managed form creates and reads a broker destination too", async () => {
  const d = await call(
    "POST",
    `/tenants/${T}/destinations`,
    { type: "nats", topics: ["managed"], config: { server_url: `127.0.0.1:${nats.port}`, subject: "hy.managed", jetstream: "on" } },
    "2025-07-01",
  );
  expect(d.status, JSON.stringify(d.json)).toBe(201);
  expect((await call("GET", `/tenants/${T}/destinations/${d.json.id}`, undefined, "2025-07-01")).json.config).toEqual({
    server_url: `127.0.0.1:${nats.port}`,
    subject: "hy.managed",
    jetstream: "true",
  });
  expect((await call("DELETE", `/tenants/${T}/destinations/${d.json.id}`, undefined, "2025-07-01")).status).toBeLessThan(300);
});

it("a failed delivery is a readable attempt, and a manual retry delivers it once the broker accepts", async () => {
  await redisReader.set("hy-wrongtype", "a string, not a stream");
  const d = await call("POST", `/tenants/${T}/destinations`, {
    type: "redis_stream",
    topics: ["retry.me"],
    config: { server_url: `127.0.0.1:${redis.port}`, stream: "hy-wrongtype" },
    credentials: { password: PASSWORD },
  });
  const p = await publish("retry.me", { r: 1 }, { eligible_for_retry: false });
  const [failed] = await attemptsOf(p.id);
  expect(failed).toMatchObject({ status: "failed", code: "redis_error", response_data: { status_code: null, headers: {} } });
  expect((failed.response_data as { body: string }).body).toMatch(/^WRONGTYPE/);
  await redisReader.del("hy-wrongtype");
  expect(await call("POST", "/retry", { event_id: p.id, destination_id: d.json.id })).toEqual({ status: 202, json: { success: true } });
  const attempts = await attemptsOf(p.id, 2);
  expect(attempts.find((a) => a.manual)).toMatchObject({ status: "success", attempt_number: 1 });
  expect((await streamOf("hy-wrongtype")).map((f) => f.data)).toEqual(['{"r":1}']);
}, 60_000);

it("key templates take the real product's JMESPath: its default S3 key names the object; a bad expression is a 422 naming the field", async () => {
  const credentials = { key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" };
  const bad = await call("POST", `/tenants/${T}/destinations`, {
    type: "aws_kinesis",
    topics: ["jmespath.keys"],
    config: { stream_name: "hy-one", region: "us-east-1", endpoint: kinesis.endpoint, partition_key_template: "join('', [data.id" },
    credentials,
  });
  expect(bad.status).toBe(422);
  expect(bad.json.data).toEqual(['config.partition_key_template is not a valid JMESPath expression: Syntax error: invalid token (EOF): ""']);

  sqs.createBucket("hy-keys");
  const keyTemplate = `join('', [time.rfc3339_nano, '_', metadata."event-id", '.json'])`;
  const d = await call("POST", `/tenants/${T}/destinations`, {
    type: "aws_s3",
    topics: ["jmespath.keys"],
    config: { bucket: "hy-keys", region: "eu-west-1", key_template: keyTemplate, endpoint: `http://127.0.0.1:${sqs.port}` },
    credentials,
  });
  expect(d.status, JSON.stringify(d.json)).toBe(201);
  expect(d.json.config.key_template).toBe(keyTemplate);
  const p = await publish("jmespath.keys", { k: 1 }, { time: "2026-11-20T10:11:12.345Z" });
  const [attempt] = await attemptsOf(p.id);
  expect(attempt).toMatchObject({ status: "success", response_data: { body: `2026-11-20T10:11:12.345Z_${p.id}.json` } });
  expect((await call("DELETE", `/tenants/${T}/destinations/${d.json.id}`)).status).toBeLessThan(300);
}, 60_000);
