/**
 * The `rabbitmq` destination type's bounds without a broker (docs/outbound.md "Connections"): a server
 * that accepts and never answers the AMQP handshake costs one attempt's timeout and leaves no client
 * open; a refused host never connects. Deliveries to a real broker: e2e/outbound-rabbitmq.test.ts.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addressPolicy } from "@/lib/delivery/address-guard";
import { configureSender } from "@/lib/delivery/http-sender";
import { closeAllClients, openClientIds } from "@/lib/outbound/destination-types/clients";
import { rabbitmq } from "@/lib/outbound/destination-types/rabbitmq";
import { deliveryOf, hangingServer } from "@/e2e/support/brokers";

beforeAll(() => vi.stubEnv("OUTBOUND_DELIVERY_TIMEOUT_SECONDS", "1"));
afterAll(async () => {
  closeAllClients();
  await configureSender({});
  vi.unstubAllEnvs();
});

it("a broker that accepts and never answers costs one attempt's timeout, and its client is dropped", async () => {
  const hang = await hangingServer();
  try {
    const started = Date.now();
    const outcome = await rabbitmq.deliver(deliveryOf("des_rabbit1", { server_url: `127.0.0.1:${hang.port}` }, { username: "u", password: "p" }));
    expect(outcome).toMatchObject({ success: false, code: "timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(hang.connections()).toBe(1);
    expect(openClientIds()).not.toContain("des_rabbit1");
  } finally {
    await hang.close();
  }
});

it("where the operator forbids private networks, a loopback broker is refused without a connection", async () => {
  const hang = await hangingServer();
  try {
    await configureSender({ policy: addressPolicy(false) });
    const outcome = await rabbitmq.deliver(deliveryOf("des_rabbit2", { server_url: `localhost:${hang.port}` }, { username: "u", password: "p" }));
    expect(outcome).toMatchObject({ success: false, code: "host_unreachable" });
    expect(hang.connections()).toBe(0);
  } finally {
    await configureSender({});
    await hang.close();
  }
});
