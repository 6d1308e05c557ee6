/**
 * The `aws_kinesis` destination type's delivery against a real Kinesis server on loopback (kinesalite
 * from npm, in memory): the record and its partition key, a missing stream, a server that hangs, and the
 * address guard on the custom endpoint (docs/outbound.md "AWS Kinesis").
 */
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from "@aws-sdk/client-kinesis";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { awsKinesis, partitionKeyOf } from "@/lib/outbound/destination-types/aws-kinesis";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { deliveryOf, hangingServer, startKinesalite } from "@/e2e/support/brokers";

let kinesis: Awaited<ReturnType<typeof startKinesalite>>;
let reader: KinesisClient;
const KEYS = { key: "AKIAEXAMPLE", secret: "secret-example" };

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  kinesis = await startKinesalite("orders");
  reader = new KinesisClient({
    region: "us-east-1",
    endpoint: kinesis.endpoint,
    credentials: { accessKeyId: "a", secretAccessKey: "b" },
    requestHandler: new NodeHttpHandler(),
  });
});
afterAll(async () => {
  closeAllClients();
  reader?.destroy();
  await kinesis?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("puts one record per event: metadata and data, the rendered partition key, over one warm client", async () => {
  const config = { stream_name: "orders", region: "eu-west-1", endpoint: kinesis.endpoint, partition_key_template: "{topic}:{metadata.region}" };
  const d = deliveryOf("des_kin1", config, KEYS);
  const first = await awsKinesis.deliver(d);
  expect(first, JSON.stringify(first)).toMatchObject({ success: true, code: "ok", response: { body: expect.stringMatching(/^shardId-000000000000\/\d+$/) } });
  const second = await awsKinesis.deliver(deliveryOf("des_kin1", { ...config, partition_key_template: "" }, KEYS));
  expect(second.success).toBe(true);
  const { ShardIterator } = await reader.send(
    new GetShardIteratorCommand({ StreamName: "orders", ShardId: "shardId-000000000000", ShardIteratorType: "TRIM_HORIZON" }),
  );
  const { Records } = await reader.send(new GetRecordsCommand({ ShardIterator }));
  expect(Records!.map((r) => r.PartitionKey)).toEqual(["order.paid:eu", expect.stringMatching(/^evt_des_kin1_/)]);
  expect(JSON.parse(Buffer.from(Records![0].Data!).toString("utf8"))).toEqual({
    metadata: { "event-id": d.claimed.event_id, topic: "order.paid", timestamp: "2026-01-02T03:04:05Z", region: "eu" },
    data: { order: 7 },
  });
  expect(openClientIds()).toContain("des_kin1");
});

it("a missing stream is a failed attempt with AWS's status and error name", async () => {
  const outcome = await awsKinesis.deliver(deliveryOf("des_kin2", { stream_name: "missing", region: "us-east-1", endpoint: kinesis.endpoint }, KEYS));
  expect(outcome).toMatchObject({ success: false, code: "aws_kinesis_error", response: { status_code: 400, headers: {} } });
  expect(outcome.response!.body).toMatch(/^ResourceNotFoundException: Stream missing /);
  expect(openClientIds()).not.toContain("des_kin2");
});

it("a server that accepts and never answers costs one attempt's timeout", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await awsKinesis.deliver(
      deliveryOf("des_kin3", { stream_name: "orders", region: "us-east-1", endpoint: `http://127.0.0.1:${hang.port}` }, KEYS),
    );
    expect(outcome).toMatchObject({ success: false, code: "timeout", response: { body: `no answer from 127.0.0.1:${hang.port} within 1000 ms` } });
    expect(Date.now() - started).toBeLessThan(3000);
  } finally {
    await hang.close();
  }
});

it("the delivery address guard checks the endpoint: metadata never, loopback only where the operator allows private networks", async () => {
  const hang = await hangingServer();
  try {
    const metadata = await awsKinesis.deliver(deliveryOf("des_kin4", { stream_name: "orders", region: "us-east-1", endpoint: "http://169.254.169.254" }, KEYS));
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await awsKinesis.deliver(
      deliveryOf("des_kin5", { stream_name: "orders", region: "us-east-1", endpoint: `http://localhost:${hang.port}` }, KEYS),
    );
    expect(outcome).toMatchObject({ success: false, code: "host_unreachable" });
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});

it("a partition key is cut to Kinesis's 256 characters", () => {
  const { claimed } = deliveryOf("des_kin6", {});
  expect(partitionKeyOf(`${"x".repeat(300)}{event_id}`, claimed)).toBe("x".repeat(256));
  expect(partitionKeyOf(undefined, claimed)).toBe(claimed.event_id);
});
