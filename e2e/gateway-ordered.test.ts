/**
 * Ordered delivery per key (docs/pipeline.md "Ordered delivery"), with real processes: many events over
 * many keys, a receiver that fails 20% of deliveries at random, and the worker killed with SIGKILL
 * mid-run. Every key's deliveries must arrive in the order its events were accepted, one at a time,
 * and nothing may be lost. The short form runs in `npm test`; `npm run chaos:ordered` runs the long form
 * (ORDERED_EVENTS=10000 over ORDERED_KEYS=100). Also: `on_exhausted: "block"` holds a key until it is
 * released, and the API shows the setting and the blocked keys.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/receiver";
import { EVENTS, expectAllInOrder, KEYS, killWorkerOf, orderedReceiver } from "./support/ordered";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

const apiKey = `hky_ordered_${randomBytes(12).toString("hex")}`;

let database: Awaited<ReturnType<typeof privateDatabase>>;
let server: RunningServer | undefined;

beforeAll(async () => {
  database = await privateDatabase("ordered");
  // A short lease: a killed worker's delivery is taken over within seconds.
  server = await startServer({
    DATABASE_URL: database.url,
    GATEWAY_API_KEY: apiKey,
    DELIVERY_LEASE_MS: "3000",
    PIPELINE_SWEEP_INTERVAL_MS: "500",
  });
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server!.url}/api/2025-07-01${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Sends `{k, s}` to `sourceUrl` until it is accepted (a 200), so each key's events are accepted in sequence. */
async function sendAccepted(sourceUrl: string, k: string, s: number): Promise<void> {
  for (;;) {
    try {
      const r = await fetch(sourceUrl, { method: "POST", body: JSON.stringify({ k, s }), headers: { "content-type": "application/json" } });
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not answered: send it again (a duplicate of an accepted event is delivered in its place too)
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("ordered delivery", () => {
  it(`${EVENTS} events over ${KEYS} keys, 20% failures, the worker killed mid-run: every key in accepted order, one at a time, nothing lost`, async () => {
    const receiver = await orderedReceiver(0.2);
    try {
      const c = await call("POST", "/connections", {
        name: "ordered",
        source: { name: "ordered-src" },
        destination: { name: "ordered-dst", config: { url: `${receiver.url}/in` }, ordering: { key: "body.k" } },
        rules: [{ type: "retry", strategy: "linear", count: 50, interval: 200 }],
      });
      expect(c.status, JSON.stringify(c.json)).toBe(200);
      expect(c.json.destination.ordering).toEqual({ key: "body.k", on_exhausted: "skip" });
      const sourceUrl = c.json.source.url.replace(/^https?:\/\/[^/]+/, server!.url);

      let accepted = 0;
      const killed = { done: Promise.resolve() };
      const perKey = Math.ceil(EVENTS / KEYS);
      await Promise.all(
        Array.from({ length: KEYS }, async (_, i) => {
          const k = `key-${i}`;
          for (let s = 0; s < perKey; s++) {
            await sendAccepted(sourceUrl, k, s);
            // Halfway: kill the worker (the supervisor restarts it; ingestion keeps answering).
            if (++accepted === Math.floor((perKey * KEYS) / 2)) killed.done = killWorkerOf(server!);
          }
        }),
      );
      await killed.done;
      // Every event of every key arrives (answered 2xx) in the end.
      await expectAllInOrder(receiver.seen, KEYS, perKey);
      // Failures happened and were retried (the 20% is real), and no event failed for good.
      expect(receiver.seen.received).toBeGreaterThan(perKey * KEYS);
      const { rows } = await database.client.query("SELECT status, count(*)::int AS n FROM events GROUP BY status");
      expect(rows.filter((r) => r.status !== "SUCCESSFUL")).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 600_000);

  it('`on_exhausted: "block"` holds a key after its retries; other keys go on; the API shows the blocked key; a release lets the next go', async () => {
    // Key "b" event 0 always fails; everything else succeeds.
    const receiver = await orderedReceiver(0, (k, s) => k === "b" && s === 0);
    try {
      const c = await call("POST", "/connections", {
        name: "ordered-block",
        source: { name: "ordered-block-src" },
        destination: { name: "ordered-block-dst", config: { url: `${receiver.url}/in` }, ordering: { key: "headers.x-key", on_exhausted: "block" } },
        rules: [{ type: "retry", strategy: "linear", count: 1, interval: 100 }],
      });
      expect(c.status, JSON.stringify(c.json)).toBe(200);
      const sourceUrl = c.json.source.url.replace(/^https?:\/\/[^/]+/, server!.url);
      const send = (k: string, s: number) =>
        fetch(sourceUrl, { method: "POST", body: JSON.stringify({ k, s }), headers: { "content-type": "application/json", "x-key": k } });
      for (const [k, s] of [
        ["b", 0],
        ["b", 1],
        ["c", 0],
        ["c", 1],
      ] as const)
        expect((await send(k, s)).status).toBe(200);
      // "c" goes on; "b" 0 fails twice (first attempt and one retry) and blocks "b".
      await eventually(() => receiver.seen.succeeded.get("c")?.size === 2, 30_000);
      const destinationId = c.json.destination.id;
      const blocked = await eventually(async () => {
        const d = await call("GET", `/destinations/${destinationId}`);
        return d.json.ordering?.blocked_keys?.length === 1 ? d.json.ordering : null;
      }, 30_000);
      expect(blocked).toMatchObject({ key: "headers.x-key", on_exhausted: "block", blocked_keys: [{ key: "b" }] });
      // Still blocked a while later: "b" 1 has not been sent.
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.seen.succeeded.get("b")?.has(1) ?? false).toBe(false);
      const release = await call("POST", `/destinations/${destinationId}/ordering/release`, { keys: ["b"] });
      expect(release).toEqual({ status: 200, json: { released: 1 } });
      await eventually(() => receiver.seen.succeeded.get("b")?.has(1), 30_000);
      const after = await call("GET", `/destinations/${destinationId}`);
      expect(after.json.ordering.blocked_keys).toEqual([]);
      // The blocking event stays FAILED; the setting can be turned off (null) without touching other fields.
      const off = await call("PUT", `/destinations/${destinationId}`, { ordering: null });
      expect(off.status).toBe(200);
      expect(off.json.ordering).toBeUndefined();
      expect(off.json.config.url).toBe(`${receiver.url}/in`);
      expect(receiver.seen.outOfOrder.filter((o) => !o.startsWith("b#1"))).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("an unordered destination has no ordering field (created by plain SQL or in a connection's transaction)", async () => {
    const plain = await call("POST", "/destinations", { name: "plain", config: { url: "http://127.0.0.1:9/x" } });
    expect(plain.status).toBe(200);
    expect(plain.json).not.toHaveProperty("ordering");
    expect((await call("GET", `/destinations/${plain.json.id}`)).json).not.toHaveProperty("ordering");
    const c = await call("POST", "/connections", {
      name: "plain-c",
      source: { name: "plain-src" },
      destination: { name: "plain-dst", config: { url: "http://127.0.0.1:9/y" } },
    });
    expect(c.status).toBe(200);
    expect(c.json.destination).not.toHaveProperty("ordering");
  });

  it("refuses a bad ordering setting with a 422 naming the field", async () => {
    const r = await call("POST", "/destinations", { name: "bad-ordering", config: { url: "http://127.0.0.1:9/x" }, ordering: { key: "query.a" } });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.json)).toContain("ordering.key");
  });
});
