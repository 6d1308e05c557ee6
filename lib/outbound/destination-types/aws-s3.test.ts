/**
 * The `aws_s3` destination type's delivery against a real S3 emulator on loopback (fauxqs, which serves
 * S3 beside SQS): the object's key, body, content type, user metadata and storage class, a missing
 * bucket, a server that hangs, the address guard on the custom endpoint, and the key templates
 * (docs/outbound.md "AWS S3", "Key templates").
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { awsS3, s3Metadata } from "@/lib/outbound/destination-types/aws-s3";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { renderTemplate } from "@/lib/outbound/destination-types/template";
import { deliveryOf, hangingServer } from "@/e2e/support/brokers";

let s3: FauxqsServer;
let endpoint = "";
let reader: S3Client;
const KEYS = { key: "AKIAEXAMPLE", secret: "secret-example" };

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  s3 = await startFauxqs({ port: 0, host: "127.0.0.1", logger: false });
  endpoint = `http://127.0.0.1:${s3.port}`;
  s3.createBucket("archive");
  reader = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: { accessKeyId: "a", secretAccessKey: "b" } });
});
afterAll(async () => {
  closeAllClients();
  reader?.destroy();
  await s3?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("writes one object per event under the rendered key: JSON body, metadata as user metadata, over one warm client", async () => {
  const config = { bucket: "archive", region: "eu-west-1", key_template: "{topic}/{date}/{hour}/{event_id}.json", storage_class: "STANDARD_IA", endpoint };
  const d = deliveryOf("des_s3a", config, KEYS);
  const first = await awsS3.deliver(d);
  expect(first, JSON.stringify(first)).toMatchObject({ success: true, code: "ok" });
  const key = `order.paid/2026-01-02/03/${d.claimed.event_id}.json`;
  expect(first.response!.body).toBe(key);
  expect((await awsS3.deliver(deliveryOf("des_s3a", config, KEYS))).success).toBe(true);
  const object = await reader.send(new GetObjectCommand({ Bucket: "archive", Key: key }));
  expect(await object.Body!.transformToString()).toBe('{"order":7}');
  expect(object.ContentType).toBe("application/json");
  expect(object.Metadata).toEqual({ "event-id": d.claimed.event_id, topic: "order.paid", timestamp: "2026-01-02T03:04:05Z", region: "eu" });
  expect(openClientIds()).toContain("des_s3a");
});

it("sends the storage class (fauxqs keeps none: a recording HTTP server answers the PUT)", async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => (seen.push(req.headers), req.resume(), req.on("end", () => res.end())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const port = (server.address() as AddressInfo).port;
    const config = { bucket: "archive", region: "eu-west-1", storage_class: "GLACIER_IR", endpoint: `http://127.0.0.1:${port}` };
    expect((await awsS3.deliver(deliveryOf("des_s3g", config, KEYS))).success).toBe(true);
    expect(seen[0]).toMatchObject({ "x-amz-storage-class": "GLACIER_IR", "content-type": "application/json", "x-amz-meta-region": "eu" });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

it("the default key is the event's time and id", async () => {
  const d = deliveryOf("des_s3b", { bucket: "archive", region: "us-east-1", endpoint }, KEYS);
  const outcome = await awsS3.deliver(d);
  expect(outcome.response!.body).toBe(`2026-01-02T03:04:05.678Z_${d.claimed.event_id}.json`);
});

it("a missing bucket is a failed attempt with AWS's status and error name", async () => {
  const outcome = await awsS3.deliver(deliveryOf("des_s3c", { bucket: "no-such-bucket", region: "us-east-1", endpoint }, KEYS));
  expect(outcome).toMatchObject({ success: false, code: "aws_s3_error", response: { status_code: 404, headers: {} } });
  expect(outcome.response!.body).toMatch(/^NoSuchBucket: /);
  expect(openClientIds()).not.toContain("des_s3c");
});

it("a server that accepts and never answers costs one attempt's timeout", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await awsS3.deliver(deliveryOf("des_s3d", { bucket: "archive", region: "us-east-1", endpoint: `http://127.0.0.1:${hang.port}` }, KEYS));
    expect(outcome).toMatchObject({ success: false, code: "timeout", response: { body: `no answer from 127.0.0.1:${hang.port} within 1000 ms` } });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(openClientIds()).not.toContain("des_s3d");
  } finally {
    await hang.close();
  }
});

it("the delivery address guard checks the endpoint: metadata never, loopback only where the operator allows private networks", async () => {
  const hang = await hangingServer();
  try {
    const metadata = await awsS3.deliver(deliveryOf("des_s3e", { bucket: "archive", region: "us-east-1", endpoint: "http://169.254.169.254" }, KEYS));
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await awsS3.deliver(deliveryOf("des_s3f", { bucket: "archive", region: "us-east-1", endpoint: `http://localhost:${hang.port}` }, KEYS));
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

it("key templates render every placeholder; metadata keys and values become valid object metadata", async () => {
  const { claimed } = deliveryOf("des_t", {});
  expect(renderTemplate("{year}/{month}/{day}/{hour}{minute}-{tenant_id}-{metadata.region}{metadata.none}-{time}", claimed)).toBe(
    "2026/01/02/0304-t-eu-2026-01-02T03:04:05.678Z",
  );
  expect(s3Metadata({ "Event-Id": "e", "a b": "café" })).toEqual({ "event-id": "e", a_b: "caf%C3%A9" });
  const issues: string[] = [];
  await awsS3.validate({ config: { bucket: "archive", region: "eu-west-1", key_template: "{nope}/{event_id" }, credentials: KEYS }, issues, {
    byTenant: true,
    current: null,
  });
  expect(issues).toEqual(["config.key_template failed pattern validation"]);
  const ok = await awsS3.validate({ config: { bucket: "archive", region: "eu-west-1" }, credentials: KEYS }, [], { byTenant: true, current: null });
  expect(ok.config).toEqual({ bucket: "archive", region: "eu-west-1", key_template: "{time}_{event_id}.json", storage_class: "STANDARD" });
  expect(awsS3.obfuscate(ok.credentials, Date.now())).toEqual({ key: "AKIA*******", secret: "secr**********" });
});
