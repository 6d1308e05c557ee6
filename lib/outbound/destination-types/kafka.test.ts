/**
 * The `kafka` destination type (EXPERIMENTAL: no Kafka broker runs here, so no produce is tested; docs/outbound.md
 * "Kafka"): what can be tested without one: a server that accepts and never answers costs one
 * attempt's timeout, a closed port is a readable `kafka_error`, the address guard refuses seeds without
 * connecting, and the create-time checks.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { kafka } from "@/lib/outbound/destination-types/kafka";
import { deliveryOf, hangingServer } from "@/e2e/support/brokers";
import { freePort } from "@/e2e/support/servers";

beforeAll(() => vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1"));
afterAll(async () => {
  closeAllClients();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("a broker that accepts and never answers costs one attempt's timeout, and its producer is dropped", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await kafka.deliver(deliveryOf("des_kafka1", { brokers: `127.0.0.1:${hang.port}`, topic: "orders" }));
    expect(outcome).toMatchObject({ success: false, code: "timeout" });
    expect(outcome.response!.body).toMatch(new RegExp(`^no answer from 127\\.0\\.0\\.1:${hang.port} within 1000 ms$`));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(hang.connections()).toBeGreaterThan(0);
    expect(openClientIds()).not.toContain("des_kafka1");
  } finally {
    await hang.close();
  }
});

it("a closed port is a readable kafka_error naming only the broker and the error code", async () => {
  const port = await freePort();
  const outcome = await kafka.deliver(deliveryOf("des_kafka2", { brokers: `127.0.0.1:${port}`, topic: "orders" }));
  expect(outcome).toMatchObject({
    success: false,
    code: "kafka_error",
    response: { status_code: null, body: `could not connect to 127.0.0.1:${port} (ECONNREFUSED)` },
  });
});

it("the delivery address guard refuses metadata and, where the operator forbids private networks, loopback seeds without connecting", async () => {
  const hang = await hangingServer();
  try {
    const metadata = await kafka.deliver(deliveryOf("des_kafka3", { brokers: "169.254.169.254:9092", topic: "orders" }));
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await kafka.deliver(deliveryOf("des_kafka4", { brokers: `localhost:${hang.port}`, topic: "orders" }));
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

it("create checks the brokers list and asks for a user and password with a SASL mechanism", async () => {
  const asTenant = { byTenant: true, current: null };
  const issues: string[] = [];
  await kafka.validate(
    { config: { brokers: "k1:9092, k2", topic: "orders" }, credentials: { sasl_mechanism: "scram-sha-512", username: "u" } },
    issues,
    asTenant,
  );
  expect(issues).toEqual([
    "config.brokers failed pattern validation",
    "credentials.username and credentials.password are required with credentials.sasl_mechanism",
  ]);
  const ok = await kafka.validate(
    {
      config: { brokers: "k1:9092,[::1]:9093", topic: "orders", key_template: "{metadata.region}" },
      credentials: { sasl_mechanism: "plain", username: "u", password: "pass-word-1" },
    },
    [],
    asTenant,
  );
  expect(ok.config).toEqual({ brokers: "k1:9092,[::1]:9093", topic: "orders", key_template: "{metadata.region}", tls: "false" });
  expect(kafka.obfuscate(ok.credentials, Date.now())).toEqual({ sasl_mechanism: "plain", username: "u", password: "pass*******" });
  const none = await kafka.validate({ config: { brokers: "k1:9092", topic: "orders" }, credentials: {} }, [], asTenant);
  expect(none.credentials).toEqual({ sasl_mechanism: "none" });
});
