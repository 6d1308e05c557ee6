/**
 * Ordered delivery per key for outbound destinations (docs/outbound.md "Ordered delivery"), with real
 * processes: many publishes over many keys, a receiver that fails 20% of deliveries at random, and the
 * worker killed with SIGKILL mid-run. Every key's deliveries must arrive in the order they were published,
 * one at a time, and nothing may be lost. The short form runs in `npm test`; `npm run chaos:ordered-outbound`
 * runs the long form (ORDERED_EVENTS=10000 over ORDERED_KEYS=100). Also: `on_exhausted: "block"` holds a key
 * until it is released (by the tenant; another tenant gets a 404) or its delivery is retried (in its
 * place), and the API validates, shows and turns off the setting.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENTS, expectAllInOrder, KEYS, killWorkerOf, orderedReceiver } from "./support/ordered";
import { eventually } from "./support/receiver";
import { outboundCall } from "./support/outbound";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

const key = `hyo_ordered_${randomBytes(12).toString("hex")}`;

let database: Awaited<ReturnType<typeof privateDatabase>>;
let server: RunningServer | undefined;

beforeAll(async () => {
  database = await privateDatabase("oordered");
  server = await startServer({
    DATABASE_URL: database.url,
    OUTBOUND_API_KEY: key,
    // A short lease (2 × the timeout + 10 s): a killed worker's delivery is taken over within seconds.
    OUTBOUND_DELIVERY_TIMEOUT_SECONDS: "1",
    // 20 quick retries: a random failure is retried at once, an always-failing delivery exhausts in ~2 s.
    OUTBOUND_RETRY_SCHEDULE: Array(20).fill("0.1").join(","),
    PIPELINE_SWEEP_INTERVAL_MS: "500",
  });
  for (const t of ["t1", "t2"]) expect((await call("PUT", `/tenants/${t}`)).status).toBeLessThan(300);
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

/** `method path` on the self-hosted form of this file's server, as the operator or with `token`. */
async function call(method: string, path: string, body?: unknown, token = key) {
  const { status, json } = await outboundCall(token, method, path, body, { base: server!.url });
  return { status, json };
}

/** Publishes `{k, s}` for tenant t1 until it is accepted (202), so each key's publishes are accepted in sequence. Returns the event id. */
async function publishAccepted(k: string, s: number, extra: Record<string, unknown> = {}): Promise<string> {
  for (;;) {
    try {
      const r = await call("POST", "/publish", { tenant_id: "t1", topic: "orders", data: { k, s }, ...extra });
      if (r.status === 202) return r.json.id;
    } catch {
      // not answered: publish it again (the same data is a new event, delivered in its new place)
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tokenOf = async (tenant: string) => (await call("GET", `/tenants/${tenant}/token`)).json.token as string;

describe("outbound ordered delivery", () => {
  it(`${EVENTS} publishes over ${KEYS} keys, 20% failures, the worker killed mid-run: every key in publish order, one at a time, nothing lost`, async () => {
    const receiver = await orderedReceiver(0.2);
    try {
      const d = await call("POST", "/tenants/t1/destinations", {
        type: "webhook",
        topics: ["orders"],
        config: { url: `${receiver.url}/in` },
        ordering: { key: "data.k" },
      });
      expect(d.status, JSON.stringify(d.json)).toBe(201);
      expect(d.json.ordering).toEqual({ key: "data.k", on_exhausted: "skip" });

      let accepted = 0;
      const killed = { done: Promise.resolve() };
      const perKey = Math.ceil(EVENTS / KEYS);
      await Promise.all(
        Array.from({ length: KEYS }, async (_, i) => {
          for (let s = 0; s < perKey; s++) {
            await publishAccepted(`key-${i}`, s);
            // Halfway: kill the worker (the supervisor restarts it; publish keeps answering).
            if (++accepted === Math.floor((perKey * KEYS) / 2)) killed.done = killWorkerOf(server!);
          }
        }),
      );
      await killed.done;
      await expectAllInOrder(receiver.seen, KEYS, perKey);
      // Failures happened and were retried (the 20% is real), and none failed for good.
      expect(receiver.seen.received).toBeGreaterThan(perKey * KEYS);
      const { rows } = await database.client.query("SELECT status, count(*)::int AS n FROM outbound_deliveries WHERE destination_id = $1 GROUP BY status", [
        d.json.id,
      ]);
      expect(rows).toEqual([{ status: "success", n: perKey * KEYS }]);
    } finally {
      await receiver.close();
    }
  }, 600_000);

  it('`on_exhausted: "block"` holds a key; other keys go on; reads show it; another tenant cannot release it; the tenant releases it; a retry keeps its place', async () => {
    const failing = new Set(["b#0", "r#0"]);
    const receiver = await orderedReceiver(0, (k, s) => failing.has(`${k}#${s}`));
    try {
      const d = await call("POST", "/tenants/t1/destinations", {
        type: "webhook",
        topics: ["accounts"],
        config: { url: `${receiver.url}/in` },
        ordering: { key: "metadata.account", on_exhausted: "block" },
      });
      expect(d.status, JSON.stringify(d.json)).toBe(201);
      const id = d.json.id as string;
      const ids: Record<string, string> = {};
      for (const [k, s] of [
        ["b", 0],
        ["b", 1],
        ["c", 0],
        ["c", 1],
        ["r", 0],
        ["r", 1],
      ] as const)
        ids[`${k}#${s}`] = await publishAccepted(k, s, { topic: "accounts", metadata: { account: k } });
      // "c" goes on; "b" 0 and "r" 0 exhaust their retries and block their keys.
      await eventually(() => receiver.seen.succeeded.get("c")?.size === 2, 30_000);
      const [jwt1, jwt2] = [await tokenOf("t1"), await tokenOf("t2")];
      const blocked = await eventually(async () => {
        const g = await call("GET", `/tenants/t1/destinations/${id}`, undefined, jwt1);
        return g.json.ordering?.blocked_keys?.length === 2 ? g.json.ordering : null;
      }, 30_000);
      expect(blocked).toMatchObject({ key: "metadata.account", on_exhausted: "block" });
      expect(blocked.blocked_keys.map((b: { key: string; event_id: string }) => [b.key, b.event_id]).sort()).toEqual([
        ["b", ids["b#0"]],
        ["r", ids["r#0"]],
      ]);
      const listed = (await call("GET", "/tenants/t1/destinations")).json.find((x: { id: string }) => x.id === id);
      expect(listed.ordering.blocked_keys).toHaveLength(2);
      // Still blocked a while later: "b" 1 and "r" 1 have not been sent.
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.seen.succeeded.get("b")?.has(1) ?? false).toBe(false);
      expect(receiver.seen.succeeded.get("r")?.has(1) ?? false).toBe(false);

      // Another tenant: 404 through its own path and through t1's; nothing released.
      expect((await call("POST", `/tenants/t2/destinations/${id}/ordering/release`, { keys: ["b"] }, jwt2)).status).toBe(404);
      expect((await call("POST", `/tenants/t1/destinations/${id}/ordering/release`, { keys: ["b"] }, jwt2)).status).toBe(403);
      expect((await call("GET", `/tenants/t1/destinations/${id}`)).json.ordering.blocked_keys).toHaveLength(2);
      // A bad body is a 422 naming the field.
      const bad = await call("POST", `/tenants/t1/destinations/${id}/ordering/release`, { keys: "b" }, jwt1);
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.json.data)).toContain("keys");

      // The tenant releases "b": "b" 0 stays failed, "b" 1 goes.
      expect(await call("POST", `/tenants/t1/destinations/${id}/ordering/release`, { keys: ["b"] }, jwt1)).toEqual({ status: 200, json: { released: 1 } });
      await eventually(() => receiver.seen.succeeded.get("b")?.has(1), 30_000);
      const { rows } = await database.client.query("SELECT status FROM outbound_deliveries WHERE event_id = $1 AND destination_id = $2", [ids["b#0"], id]);
      expect(rows).toEqual([{ status: "failed" }]);

      // "r": a retry of the blocking delivery keeps its place: "r" 0 is delivered, then "r" 1.
      failing.delete("r#0");
      expect((await call("POST", "/retry", { event_id: ids["r#0"], destination_id: id }, jwt1)).status).toBeLessThan(300);
      await eventually(() => receiver.seen.succeeded.get("r")?.size === 2, 30_000);
      expect(receiver.seen.outOfOrder.filter((o) => o.startsWith("r#"))).toEqual([]);
      expect((await call("GET", `/tenants/t1/destinations/${id}`)).json.ordering.blocked_keys).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('`on_exhausted: "skip"` (default): a delivery out of retries lets the next of its key go, after it and never before', async () => {
    const receiver = await orderedReceiver(0, (k, s) => k === "x" && s === 0);
    try {
      const d = await call("POST", "/tenants/t1/destinations", {
        type: "webhook",
        topics: ["skips"],
        config: { url: `${receiver.url}/in` },
        ordering: { key: "data.k" },
      });
      expect(d.status, JSON.stringify(d.json)).toBe(201);
      // Not eligible for retry: "x" 0 fails once and is exhausted at once.
      const x0 = await publishAccepted("x", 0, { topic: "skips", eligible_for_retry: false });
      const x1 = await publishAccepted("x", 1, { topic: "skips", eligible_for_retry: false });
      await eventually(() => receiver.seen.succeeded.get("x")?.has(1), 30_000);
      const { rows } = await database.client.query(
        `SELECT a.event_id, a.status, a.time, o.ordering_blocked_at FROM outbound_attempts a JOIN outbound_deliveries o USING (event_id, destination_id)
          WHERE a.destination_id = $1 ORDER BY a.time`,
        [d.json.id],
      );
      expect(rows.map((r) => [r.event_id, r.status, r.ordering_blocked_at])).toEqual([
        [x0, "failed", null],
        [x1, "success", null],
      ]);
      expect((await call("GET", `/tenants/t1/destinations/${d.json.id}`)).json.ordering).toEqual({ key: "data.k", on_exhausted: "skip", blocked_keys: [] });
    } finally {
      await receiver.close();
    }
  });

  it("validates the setting (422 by field), leaves it out on unordered destinations, keeps it when absent and turns it off with null", async () => {
    const base = { type: "webhook", topics: ["none"], config: { url: "http://127.0.0.1:9/x" } };
    for (const ordering of [{ key: "query.a" }, { key: "data" }, { on_exhausted: "later" }, { key: "topic", extra: 1 }, "topic"]) {
      const r = await call("POST", "/tenants/t1/destinations", { ...base, ordering });
      expect(r.status, JSON.stringify(ordering)).toBe(422);
      expect(JSON.stringify(r.json.data)).toContain("ordering");
    }
    const plain = await call("POST", "/tenants/t1/destinations", base);
    expect(plain.status).toBe(201);
    expect(plain.json).not.toHaveProperty("ordering");
    expect((await call("GET", `/tenants/t1/destinations/${plain.json.id}`)).json).not.toHaveProperty("ordering");

    const jwt1 = await tokenOf("t1");
    const on = await call("PATCH", `/tenants/t1/destinations/${plain.json.id}`, { ordering: { key: null, on_exhausted: "block" } }, jwt1);
    expect(on.status, JSON.stringify(on.json)).toBe(200);
    expect(on.json.ordering).toEqual({ key: null, on_exhausted: "block" });
    const kept = await call("PATCH", `/tenants/t1/destinations/${plain.json.id}`, { metadata: { a: "1" } });
    expect(kept.json.ordering).toEqual({ key: null, on_exhausted: "block" });
    expect((await call("GET", `/tenants/t1/destinations/${plain.json.id}`)).json.ordering).toEqual({ key: null, on_exhausted: "block", blocked_keys: [] });
    // A key longer than 255 characters is kept as its SHA-256 (an index entry must stay small): the publish is accepted.
    await call("PATCH", `/tenants/t1/destinations/${plain.json.id}`, { topics: ["long"], ordering: { key: "data.k" } });
    const long = await call("POST", "/publish", { tenant_id: "t1", topic: "long", data: { k: "x".repeat(5000) } });
    expect(long.status).toBe(202);
    const { rows } = await database.client.query("SELECT ordering_key FROM outbound_deliveries WHERE event_id = $1", [long.json.id]);
    expect(rows).toEqual([{ ordering_key: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }]);
    const off = await call("PATCH", `/tenants/t1/destinations/${plain.json.id}`, { ordering: null });
    expect(off.status).toBe(200);
    expect(off.json).not.toHaveProperty("ordering");
    expect(off.json.config.url).toBe("http://127.0.0.1:9/x");
  });
});
