import { describe, expect, it } from "vitest";
import { DESTINATION_TYPES, destinationType, OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { ZDestinationCreateByType } from "@/lib/outbound/destinations";
import { outboundOpenApi } from "@/lib/outbound/openapi";
// The one written-out list of the types and their order, which the API tests (e2e/outbound-api.test.ts) check too.
import { OUTBOUND_TYPE_NAMES } from "@/e2e/support/client";
import { OUTBOUND_ROUTES } from "@/lib/outbound/routes";

const asAdmin = { byTenant: false, current: null };

describe("the outbound destination types", () => {
  it("are the HTTP types, gateway, then the brokers and cloud queues, in that order, and GET /destination-types lists their schemas", () => {
    expect(OUTBOUND_DESTINATION_TYPES.names()).toEqual(OUTBOUND_TYPE_NAMES);
    expect(DESTINATION_TYPES.map((t) => t.type)).toEqual(OUTBOUND_TYPE_NAMES);
    expect(Object.keys(DESTINATION_TYPES[0])).toEqual(["type", "label", "description", "icon", "instructions", "config_fields", "credential_fields"]);
    expect(destinationType("rabbitmq")!.credential_fields.map((f) => [f.key, f.sensitive ?? false])).toEqual([
      ["username", false],
      ["password", true],
    ]);
    expect(destinationType("fax")).toBeUndefined();
  });

  it("are exactly the types the API accepts and documents: no registered type missing, no other accepted", () => {
    const names = OUTBOUND_DESTINATION_TYPES.names();
    expect(ZDestinationCreateByType.options.map((o) => (o.shape.type as { value: unknown }).value)).toEqual(names);
    for (const type of names) expect(destinationType(type)?.type).toBe(type);
    for (const type of ["fax", "Webhook", ""]) expect(ZDestinationCreateByType.safeParse({ type, topics: "*" }).success, type).toBe(false);
    for (const form of ["self-hosted", "managed"] as const) {
      const doc = outboundOpenApi(form, OUTBOUND_ROUTES) as { components: { schemas: Record<string, { properties?: { type?: { enum?: string[] } } }> } };
      expect(doc.components.schemas.Destination.properties?.type?.enum).toEqual(names);
      for (const type of names) expect(Object.keys(doc.components.schemas)).toContain(`${type}_config`);
    }
  });

  it("derive their zod schemas from the same field tables", () => {
    const rabbit = OUTBOUND_DESTINATION_TYPES.get("rabbitmq");
    expect(rabbit.schema.config.safeParse({ server_url: "mq.example:5672", tls: true }).success).toBe(true);
    expect(rabbit.schema.config.safeParse({ server_url: "mq.example" }).success).toBe(false);
    expect(rabbit.schema.credentials.safeParse({ username: "u" }).success).toBe(false);
  });

  it("validate config, then credentials, with the messages of the API's 422", async () => {
    const issues: string[] = [];
    const { credentials } = await OUTBOUND_DESTINATION_TYPES.get("webhook").validate(
      { config: { custom_headers: { "content-type": "x" } }, credentials: {} },
      issues,
      asAdmin,
    );
    expect(issues).toEqual(["config.custom_headers.content-type cannot be set", "config.url is required"]);
    expect(credentials.secret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const rabbitIssues: string[] = [];
    const rabbit = await OUTBOUND_DESTINATION_TYPES.get("rabbitmq").validate(
      { config: { server_url: "mq:5672", colour: "red" }, credentials: { rotate_secret: true } },
      rabbitIssues,
      asAdmin,
    );
    expect(rabbitIssues).toEqual([
      "config.colour is forbidden",
      "credentials.username is required",
      "credentials.password is required",
      "credentials.rotate_secret is forbidden",
    ]);
    expect(rabbit.config).toEqual({ server_url: "mq:5672", tls: "false" });

    const sw = await OUTBOUND_DESTINATION_TYPES.get("standard_webhook").validate({ config: { url: "https://x.test/h" }, credentials: {} }, [], asAdmin);
    expect(sw.credentials.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("treat a sensitive `secret` (the AWS secret access key) as a plain credential: a tenant sets it, nothing is generated, it is obfuscated", async () => {
    const sqs = OUTBOUND_DESTINATION_TYPES.get("aws_sqs");
    const issues: string[] = [];
    const v = await sqs.validate(
      { config: { queue_url: "https://sqs.eu-west-1.amazonaws.com/1/q" }, credentials: { key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" } },
      issues,
      { byTenant: true, current: null },
    );
    expect(issues).toEqual([]);
    expect(v.credentials).toEqual({ key: "AKIAEXAMPLEKEY", secret: "wJalrXUtnFEMIEXAMPLE" });
    expect(sqs.obfuscate(v.credentials, Date.now())).toEqual({ key: "AKIA**********", secret: "wJal****************" });
    const missing: string[] = [];
    await sqs.validate({ config: { queue_url: "https://q" }, credentials: { rotate_secret: true } }, missing, asAdmin);
    expect(missing).toEqual(["credentials.key is required", "credentials.secret is required", "credentials.rotate_secret is forbidden"]);
    expect(sqs.schema.credentials.safeParse({ key: "k", secret: "s", session: "t" }).success).toBe(true);
    expect(sqs.schema.credentials.safeParse({ key: "k", secret: "s", rotate_secret: true }).success).toBe(false);
  });

  it("keep the stored credentials when an update does not name them, and forbid a tenant to set a secret", async () => {
    const stored = { secret: "whsec_old" };
    const kept = await OUTBOUND_DESTINATION_TYPES.get("webhook").validate({ config: { url: "https://x.test/h" } }, [], { byTenant: true, current: stored });
    expect(kept.credentials).toBe(stored);
    const issues: string[] = [];
    await OUTBOUND_DESTINATION_TYPES.get("webhook").validate({ config: { url: "https://x.test/h" }, credentials: { secret: "whsec_mine" } }, issues, {
      byTenant: true,
      current: stored,
    });
    expect(issues).toEqual(["credentials.secret is forbidden"]);
  });

  it("obfuscate sensitive credentials and drop an expired previous secret", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(OUTBOUND_DESTINATION_TYPES.get("rabbitmq").obfuscate({ username: "guest", password: "correct-horse" }, now)).toEqual({
      username: "guest",
      password: "corr*********",
    });
    expect(OUTBOUND_DESTINATION_TYPES.get("rabbitmq").obfuscate({ username: "guest", password: "pw" }, now)).toEqual({ username: "guest", password: "**" });
    const webhook = OUTBOUND_DESTINATION_TYPES.get("webhook");
    expect(webhook.obfuscate({ secret: "whsec_new", previous_secret: "whsec_old", previous_secret_invalid_at: "2025-12-31T00:00:00Z" }, now)).toEqual({
      secret: "whsec_new",
    });
    expect(webhook.obfuscate({ secret: "whsec_new", previous_secret: "whsec_old", previous_secret_invalid_at: "2026-01-02T00:00:00Z" }, now)).toEqual({
      secret: "whsec_new",
      previous_secret: "whsec_old",
      previous_secret_invalid_at: "2026-01-02T00:00:00Z",
    });
  });

  it("describe their targets as the API shows them", () => {
    expect(OUTBOUND_DESTINATION_TYPES.get("webhook").target({ url: "https://x.test/h" }, undefined)).toEqual({
      target: "https://x.test/h",
      target_url: "https://x.test/h",
    });
    expect(OUTBOUND_DESTINATION_TYPES.get("gateway").target({ source_id: "src_abc" }, undefined)).toEqual({ target: "src_abc" });
    expect(OUTBOUND_DESTINATION_TYPES.get("rabbitmq").target({ server_url: "mq:5672", exchange: "orders" }, undefined)).toEqual({ target: "mq:5672 → orders" });
    expect(OUTBOUND_DESTINATION_TYPES.get("rabbitmq").target({ server_url: "mq:5672" }, undefined)).toEqual({ target: "mq:5672" });
  });
});
