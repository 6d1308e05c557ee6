/**
 * The real product's official TypeScript client (`@hookdeck/outpost-sdk`) drives both of
 * Hookyard's outbound forms unmodified (docs/outbound.md#moving-from-the-real-product): tenants, destinations, destination types,
 * topics, publish, events, attempts, retry and metrics, each answer parsed by the client's own schemas.
 */
import { randomBytes } from "node:crypto";
import { Outpost } from "@hookdeck/outpost-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL, OUTBOUND_TYPE_NAMES } from "./support/client";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

let key = "";
let receiver: Receiver;
beforeAll(async () => {
  key = (await createOutboundKey(`sdk-${randomBytes(3).toString("hex")}`)).key;
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

describe.each([
  ["self-hosted", "/outbound/api/v1"],
  ["managed", "/outbound/2025-07-01"],
])("the official client against the %s form", (_name, base) => {
  it("tenants, destinations, types, topics, publish, events, attempts, retry, metrics", async () => {
    const outpost = new Outpost({ apiKey: key, serverURL: `${BASE_URL}${base}` });
    const tenantId = `sdk-${randomBytes(4).toString("hex")}`;
    const tenant = await outpost.tenants.upsert(tenantId, { metadata: { plan: "pro" } });
    expect(tenant.id).toBe(tenantId);
    expect((await outpost.tenants.get(tenantId)).metadata).toEqual({ plan: "pro" });
    const list = await outpost.tenants.list({ limit: 10 });
    expect(list.models?.length).toBeGreaterThan(0);
    const { token } = await outpost.tenants.getToken(tenantId);
    expect(typeof token).toBe("string");
    expect((await outpost.tenants.getPortalUrl(tenantId, "dark")).redirectUrl).toContain("/portal?token=");
    const types = await outpost.schemas.listDestinationTypes();
    expect(types.map((t) => t.type)).toEqual(OUTBOUND_TYPE_NAMES);
    expect(types.find((t) => t.type === "aws_sqs")?.credentialFields?.map((f) => f.key)).toEqual(["key", "secret", "session"]);
    expect(Array.isArray(await outpost.topics.list())).toBe(true);
    const destination = await outpost.destinations.create(tenantId, {
      type: "webhook",
      topics: "*",
      config: { url: `${receiver.url}/sdk-${tenantId}` },
    } as never);
    const destinationId = (destination as { id: string }).id;
    expect(destinationId).toMatch(/^des_/);
    expect((await outpost.destinations.list(tenantId)).length).toBe(1);
    await outpost.destinations.get(tenantId, destinationId);
    await outpost.destinations.disable(tenantId, destinationId);
    await outpost.destinations.enable(tenantId, destinationId);
    const published = await outpost.publish({ tenantId, topic: "user.created", data: { user_id: "u_1" } });
    expect(published.id).toMatch(/^evt_/);
    await eventually(() => receiver.received.some((r) => r.url === `/sdk-${tenantId}`));
    const events = await outpost.events.list({ tenantId, limit: 10 });
    expect(events.models?.map((e) => e.id)).toContain(published.id);
    await outpost.events.get(published.id);
    const attempts = await eventually(async () => {
      const page = await outpost.attempts.list({ tenantId, eventId: published.id, limit: 10 });
      return page.models?.length ? page.models : null;
    });
    await outpost.attempts.get(attempts[0].id!);
    await outpost.retry({ eventId: published.id, destinationId });
    const start = new Date(Date.now() - 3_600_000);
    const end = new Date(Date.now() + 60_000);
    const metrics = await outpost.metrics.getAttemptMetrics({ time: { start, end }, measures: ["count"], filters: { tenantId: [tenantId] } } as never);
    expect(metrics.data?.[0]?.metrics).toBeDefined();
    await outpost.destinations.delete(tenantId, destinationId);
    await outpost.tenants.delete(tenantId);
  }, 60_000);
});
