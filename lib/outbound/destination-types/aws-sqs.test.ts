/**
 * The `aws_sqs` destination type's delivery against a real SQS emulator on loopback (fauxqs from the
 * npm registry, started here): body and metadata attribute, FIFO deduplication by event id, a missing
 * queue, a server that hangs, and the address guard on the custom endpoint (docs/outbound.md "AWS SQS, S3 and Kinesis").
 */
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { awsSqs, regionOfQueueUrl } from "@/lib/outbound/destination-types/aws-sqs";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { deliveryOf, hangingServer } from "@/e2e/support/brokers";

let sqs: FauxqsServer;
let endpoint = "";
const KEYS = { key: "AKIAEXAMPLE", secret: "secret-example" };

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  sqs = await startFauxqs({ port: 0, host: "127.0.0.1", logger: false });
  endpoint = `http://127.0.0.1:${sqs.port}`;
});
afterAll(async () => {
  closeAllClients();
  await sqs?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("sends the event as the message body with its metadata as the metadata attribute, over one warm client", async () => {
  const { queueUrl } = sqs.createQueue("orders");
  const config = { queue_url: queueUrl, endpoint };
  const first = await awsSqs.deliver(deliveryOf("des_sqs1", config, KEYS));
  expect(first, JSON.stringify(first)).toMatchObject({ success: true, code: "ok" });
  expect((await awsSqs.deliver(deliveryOf("des_sqs1", config, KEYS))).success).toBe(true);
  const messages = sqs.inspectQueue("orders")!.messages.ready;
  expect(messages).toHaveLength(2);
  expect(messages[0].body).toBe('{"order":7}');
  expect(messages[0].messageId).toBe(first.response!.body);
  expect(JSON.parse(messages[0].messageAttributes.metadata.StringValue!)).toEqual({
    "event-id": expect.stringMatching(/^evt_des_sqs1_/),
    topic: "order.paid",
    timestamp: "2026-01-02T03:04:05Z",
    region: "eu",
  });
  expect(openClientIds()).toContain("des_sqs1");
});

it("a FIFO queue gets the event id as deduplication id: the same event twice is one message", async () => {
  const { queueUrl } = sqs.createQueue("orders.fifo", { attributes: { FifoQueue: "true" } });
  const d = deliveryOf("des_sqs2", { queue_url: queueUrl, endpoint }, KEYS);
  expect((await awsSqs.deliver(d)).success).toBe(true);
  expect((await awsSqs.deliver(d)).success).toBe(true);
  const messages = sqs.inspectQueue("orders.fifo")!.messages.ready;
  expect(messages).toHaveLength(1);
  expect(messages[0].messageGroupId).toBe("order.paid");
  expect(messages[0].messageDeduplicationId).toBe(d.claimed.event_id);
});

it("a missing queue is a failed attempt with AWS's status and error name", async () => {
  const outcome = await awsSqs.deliver(deliveryOf("des_sqs3", { queue_url: `${endpoint}/000000000000/missing`, endpoint }, KEYS));
  expect(outcome).toMatchObject({ success: false, code: "aws_sqs_error", response: { status_code: 400, headers: {} } });
  expect(outcome.response!.body).toMatch(/^(AWS\.SimpleQueueService\.NonExistentQueue|QueueDoesNotExist): /);
});

it("a server that accepts and never answers costs one attempt's timeout", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await awsSqs.deliver(
      deliveryOf("des_sqs4", { queue_url: `http://127.0.0.1:${hang.port}/000000000000/q`, endpoint: `http://127.0.0.1:${hang.port}` }, KEYS),
    );
    expect(outcome).toMatchObject({ success: false, code: "timeout", response: { body: `no answer from 127.0.0.1:${hang.port} within 1000 ms` } });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(openClientIds()).not.toContain("des_sqs4");
  } finally {
    await hang.close();
  }
});

it("the delivery address guard checks the endpoint: metadata never, loopback only where the operator allows private networks", async () => {
  const hang = await hangingServer();
  try {
    const metadata = await awsSqs.deliver(
      deliveryOf("des_sqs5", { queue_url: "http://169.254.169.254/000000000000/q", endpoint: "http://169.254.169.254" }, KEYS),
    );
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await awsSqs.deliver(
      deliveryOf("des_sqs6", { queue_url: `http://localhost:${hang.port}/0/q`, endpoint: `http://localhost:${hang.port}` }, KEYS),
    );
    expect(outcome).toMatchObject({
      success: false,
      code: "host_unreachable",
      response: { body: expect.stringMatching(new RegExp(`^localhost:${hang.port} is not a permitted delivery target`)) },
    });
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});

it("reads the region from an AWS queue URL", () => {
  expect(regionOfQueueUrl("https://sqs.eu-west-1.amazonaws.com/123/q")).toBe("eu-west-1");
  expect(regionOfQueueUrl("http://127.0.0.1:4566/000000000000/q")).toBe("us-east-1");
});
