/**
 * The `gcp_pubsub` destination type against a local HTTP server speaking the Pub/Sub emulator's REST
 * contract (e2e/support/pubsub-emulator.ts; its answers are FIXTURES transcribed from Google's documented
 * REST contract, not captured from a live emulator, which cannot be installed here): publish with
 * attributes and ordering key, the service account's OAuth2 token (JWT bearer grant) fetched once and
 * reused, a missing topic, a refused key, a server that hangs, the address guard, and create-time checks
 * (docs/outbound.md "Google Cloud Pub/Sub").
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { gcpPubSub } from "@/lib/outbound/destination-types/gcp-pubsub";
import { deliveryOf, hangingServer } from "@/e2e/support/brokers";
import { PUBSUB_FIXTURES, startPubSubEmulator } from "@/e2e/support/pubsub-emulator";

const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
let emulator: Awaited<ReturnType<typeof startPubSubEmulator>>;
let open: Awaited<ReturnType<typeof startPubSubEmulator>>;
const account = (tokenUri: string, key = pair.privateKey) =>
  JSON.stringify({
    type: "service_account",
    project_id: "acme-prod",
    private_key_id: "k1",
    private_key: key.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: "publisher@acme-prod.iam.gserviceaccount.com",
    token_uri: tokenUri,
  });

beforeAll(async () => {
  vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1");
  emulator = await startPubSubEmulator(["projects/acme-prod/topics/orders"], pair.publicKey);
  open = await startPubSubEmulator(["projects/local-dev/topics/orders"]);
});
afterAll(async () => {
  closeAllClients();
  await emulator?.stop();
  await open?.stop();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("publishes with the service account's token (fetched once, then reused): data, metadata as attributes, ordering key", async () => {
  const config = { project_id: "acme-prod", topic: "orders", endpoint: emulator.url, ordering_key_template: "{topic}" };
  const credentials = { service_account_json: account(`${emulator.url}/token`) };
  const d = deliveryOf("des_ps1", config, credentials);
  const first = await gcpPubSub.deliver(d);
  expect(first, JSON.stringify(first)).toMatchObject({ success: true, code: "ok", response: { body: "1" } });
  expect((await gcpPubSub.deliver(deliveryOf("des_ps1", config, credentials))).success).toBe(true);
  expect(emulator.grants).toHaveLength(1);
  expect(emulator.grants[0]).toMatchObject({ iss: "publisher@acme-prod.iam.gserviceaccount.com", scope: "https://www.googleapis.com/auth/pubsub" });
  expect(emulator.messages).toHaveLength(2);
  expect(emulator.messages[0]).toEqual({
    topic: "projects/acme-prod/topics/orders",
    data: '{"order":7}',
    attributes: { "event-id": d.claimed.event_id, topic: "order.paid", timestamp: "2026-01-02T03:04:05Z", region: "eu" },
    orderingKey: "order.paid",
    authorization: `Bearer ${PUBSUB_FIXTURES.token.access_token}`,
  });
  expect(openClientIds()).toContain("des_ps1");
});

it("an emulator endpoint without a service account publishes without auth", async () => {
  const outcome = await gcpPubSub.deliver(deliveryOf("des_ps2", { project_id: "local-dev", topic: "orders", endpoint: open.url }));
  expect(outcome).toMatchObject({ success: true, code: "ok" });
  expect(open.messages[0]).not.toHaveProperty("authorization");
  expect(open.messages[0]).not.toHaveProperty("orderingKey");
});

it("a missing topic and a refused key are failed attempts with Google's status and reason", async () => {
  const missing = await gcpPubSub.deliver(deliveryOf("des_ps3", { project_id: "local-dev", topic: "gone", endpoint: open.url }));
  expect(missing).toMatchObject({ success: false, code: "gcp_pubsub_error", response: { status_code: 404, body: "NOT_FOUND: Topic not found", headers: {} } });
  expect(openClientIds()).not.toContain("des_ps3");
  const refused = await gcpPubSub.deliver(
    deliveryOf(
      "des_ps4",
      { project_id: "acme-prod", topic: "orders", endpoint: emulator.url },
      { service_account_json: account(`${emulator.url}/token`, other.privateKey) },
    ),
  );
  expect(refused).toMatchObject({
    success: false,
    code: "gcp_pubsub_error",
    response: { status_code: 400, body: "token request: invalid_grant: Invalid JWT Signature." },
  });
  const noToken = await gcpPubSub.deliver(deliveryOf("des_ps5", { project_id: "acme-prod", topic: "orders", endpoint: emulator.url }));
  expect(noToken.response).toMatchObject({ status_code: 401, body: expect.stringMatching(/^UNAUTHENTICATED: /) });
});

it("a server that accepts and never answers costs one attempt's timeout; the guard refuses metadata and, by setting, loopback", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await gcpPubSub.deliver(deliveryOf("des_ps6", { project_id: "local-dev", topic: "orders", endpoint: `http://127.0.0.1:${hang.port}` }));
    expect(outcome).toMatchObject({ success: false, code: "timeout", response: { body: `no answer from 127.0.0.1:${hang.port} within 1000 ms` } });
    expect(Date.now() - started).toBeLessThan(3000);
    const metadata = await gcpPubSub.deliver(deliveryOf("des_ps7", { project_id: "local-dev", topic: "orders", endpoint: "http://169.254.169.254" }));
    expect(metadata).toMatchObject({ success: false, code: "host_unreachable" });
    await configureSender({ policy: addressPolicy(false) });
    const before = hang.connections();
    const loopback = await gcpPubSub.deliver(deliveryOf("des_ps8", { project_id: "local-dev", topic: "orders", endpoint: `http://localhost:${hang.port}` }));
    expect(loopback).toMatchObject({
      success: false,
      code: "host_unreachable",
      response: { body: expect.stringMatching(new RegExp(`^localhost:${hang.port} is not a permitted delivery target`)) },
    });
    expect(hang.connections()).toBe(before);
  } finally {
    await configureSender({});
    await hang.close();
  }
});

it("create checks the service account (required without an emulator endpoint) and obfuscates it on read", async () => {
  const asTenant = { byTenant: true, current: null };
  const issues: string[] = [];
  await gcpPubSub.validate({ config: { project_id: "acme-prod", topic: "orders" }, credentials: {} }, issues, asTenant);
  expect(issues).toEqual(["credentials.service_account_json is required (unless config.endpoint names an emulator)"]);
  const bad: string[] = [];
  await gcpPubSub.validate(
    { config: { project_id: "acme-prod", topic: "orders" }, credentials: { service_account_json: '{"client_email":"x"}' } },
    bad,
    asTenant,
  );
  expect(bad).toEqual(["credentials.service_account_json needs client_email and private_key (a service account key file)"]);
  const ok = await gcpPubSub.validate(
    { config: { project_id: "acme-prod", topic: "orders" }, credentials: { service_account_json: account("https://oauth2.googleapis.com/token") } },
    [],
    asTenant,
  );
  expect(gcpPubSub.obfuscate(ok.credentials, Date.now()).service_account_json).toMatch(/^\{"ty\*+$/);
  const emulatorOnly: string[] = [];
  await gcpPubSub.validate(
    { config: { project_id: "local-dev", topic: "orders", endpoint: "http://pubsub-emulator:8085" }, credentials: {} },
    emulatorOnly,
    asTenant,
  );
  expect(emulatorOnly).toEqual([]);
});
