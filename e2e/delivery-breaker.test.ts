/**
 * The circuit breaker's whole cycle on the shared database, driven through the engine's own functions as a
 * worker calls them (docs/pipeline.md "Receiver-driven limits"): failures open it, a failed probe opens it
 * again with a doubled cool-down, a good probe closes it, and for outbound each opening and closing is an
 * operator event (docs/outbound.md "Receiver-driven limits") posted, signed, to OUTBOUND_OPERATOR_EVENTS_URL.
 * The delivery path around it (events waiting without spending retries) is e2e/delivery-limits.test.ts.
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type BreakerTransition, destinationGate, type Gate, noteAnswer, onBreakerTransition, readDeliveryStates } from "@/lib/delivery/destination-state";
import { alertCircuitTransition } from "@/lib/outbound/alerts";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const COOLDOWN_MS = 1_000;
let receiver: Receiver;
const transitions: BreakerTransition[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  // This process's settings, read on first use (after this): breakers on, a short cool-down, the operator events' receiver.
  Object.assign(process.env, {
    DELIVERY_BREAKER_ENABLED: "true",
    DELIVERY_BREAKER_MIN_ATTEMPTS: "4",
    DELIVERY_BREAKER_FAILURE_RATE: "0.5",
    DELIVERY_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
    DELIVERY_ALLOW_PRIVATE_NETWORKS: "true",
    OUTBOUND_OPERATOR_EVENTS_URL: `${receiver.url}/ops`,
    OUTBOUND_OPERATOR_EVENTS_SECRET: "breaker-secret",
  });
  // As lib/worker/index.ts wires it.
  onBreakerTransition("outbound", async (t) => {
    transitions.push(t);
    await alertCircuitTransition({ ...t, tenantId: t.ownerId });
  });
});
afterAll(() => receiver?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const open = (g: Gate): g is Gate & { ok: true } => g.ok;

it("failures open it; a failed probe opens it again for twice the cool-down; a good probe closes it; outbound sends both operator events", async () => {
  const id = `des_breaker_${randomBytes(8).toString("hex")}`;
  const tenant = `tenant-${randomBytes(4).toString("hex")}`;
  const state = async () => (await readDeliveryStates("outbound", [id])).get(id)!;

  // Four failed deliveries (the minimum, all failed) open it once the counts are written.
  for (let i = 0; i < 4; i++) {
    const g = await destinationGate("outbound", id, tenant, 5_000);
    if (!open(g)) throw new Error(`delivery ${i} was refused: ${JSON.stringify(g)}`);
    expect(g.probe).toBe(false);
    expect(await noteAnswer(g, { status: 500, success: false, sent: true })).toBeNull();
  }
  const opened = await eventually(() => transitions.find((t) => t.destinationId === id && t.transition === "opened"), 5_000);
  expect(opened).toMatchObject({ product: "outbound", ownerId: tenant, attempts: 4, failures: 4 });
  const first = await state();
  expect(first.circuit.state).toBe("open");
  expect(Date.parse(first.circuit.next_probe_at!) - Date.parse(first.circuit.changed_at!)).toBe(COOLDOWN_MS);
  // While it cools down, nothing goes.
  expect(await destinationGate("outbound", id, tenant, 5_000)).toMatchObject({ ok: false, reason: "open" });

  // After the cool-down one delivery is the probe; it fails: open again, for twice as long, and no new "opened".
  await sleep(Math.max(0, Date.parse(first.circuit.next_probe_at!) - Date.now()) + 50);
  const probe = await destinationGate("outbound", id, tenant, 5_000);
  if (!open(probe)) throw new Error(`the probe was refused: ${JSON.stringify(probe)}`);
  expect(probe.probe).toBe(true);
  // Another delivery meanwhile waits for the probe's answer.
  expect(await destinationGate("outbound", id, tenant, 5_000)).toMatchObject({ ok: false, reason: "open" });
  await noteAnswer(probe, { status: 502, success: false, sent: true });
  const reopened = await state();
  expect(reopened.circuit.state).toBe("open");
  expect(Date.parse(reopened.circuit.next_probe_at!) - Date.parse(reopened.circuit.changed_at!)).toBe(2 * COOLDOWN_MS);
  expect(await destinationGate("outbound", id, tenant, 5_000)).toMatchObject({ ok: false, reason: "open" });
  await sleep(COOLDOWN_MS + 50);
  // One cool-down later it is still open (the doubled one has not passed).
  expect(await destinationGate("outbound", id, tenant, 5_000)).toMatchObject({ ok: false, reason: "open" });

  // After the doubled cool-down a good probe closes it.
  await sleep(Math.max(0, Date.parse(reopened.circuit.next_probe_at!) - Date.now()) + 50);
  const second = await destinationGate("outbound", id, tenant, 5_000);
  if (!open(second)) throw new Error(`the second probe was refused: ${JSON.stringify(second)}`);
  expect(second.probe).toBe(true);
  await noteAnswer(second, { status: 200, success: true, sent: true });
  expect((await state()).circuit).toMatchObject({ state: "closed", next_probe_at: null });
  const after = await destinationGate("outbound", id, tenant, 5_000);
  expect(after).toMatchObject({ ok: true, probe: false });
  expect(transitions.filter((t) => t.destinationId === id).map((t) => t.transition)).toEqual(["opened", "closed"]);

  // The operator events: signed, one per transition, saying what happened.
  const ops = await eventually(() => {
    const got = receiver.received.filter((r) => r.url === "/ops").map((r) => ({ r, e: JSON.parse(r.body.toString()) }));
    const mine = got.filter(({ e }) => e.data.destination_id === id);
    return mine.length >= 2 ? mine : null;
  }, 10_000);
  for (const { r } of ops) expect(r.headers["x-outbound-signature"]).toBe(`v0=${createHmac("sha256", "breaker-secret").update(r.body).digest("hex")}`);
  const byTopic = Object.fromEntries(ops.map(({ e }) => [e.topic, e]));
  expect(Object.keys(byTopic).sort()).toEqual(["alert.destination.circuit_closed", "alert.destination.circuit_opened"]);
  expect(byTopic["alert.destination.circuit_opened"]).toMatchObject({
    tenant_id: tenant,
    data: { destination_id: id, state: "open", attempts: 4, failures: 4, next_probe_at: opened.nextProbeAt!.toISOString() },
  });
  expect(byTopic["alert.destination.circuit_closed"]).toMatchObject({ tenant_id: tenant, data: { destination_id: id, state: "closed" } });
}, 30_000);
