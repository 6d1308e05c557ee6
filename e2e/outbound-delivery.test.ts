/**
 * Outbound publish and delivery (docs/outbound.md#publish-delivery-retries,
 * docs/outbound.md#manual-retry) against the running server, its worker and real
 * receivers: publish 202 and duplicates, the data delivered byte for byte with the `x-outbound-*`
 * headers and a signature a receiver can check, events published together delivered once each with
 * their results recorded, Standard Webhooks verified with the `standardwebhooks`
 * library, the gateway type (a source of this deployment), topic and filter matching, events and
 * attempts lists with include and JWT scoping, `POST /retry`'s rules; and, on a server of its own with
 * a short schedule, automatic retries and auto-disable.
 */
import { createHmac, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBackgroundPool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { api, gatewayTeam } from "./support/gateway";
import { connectionTo } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

const run = randomBytes(4).toString("hex");
let admin = "";
let receiver: Receiver;
const T = `acme-${run}`;

async function call(token: string | null, method: string, path: string, body?: unknown, base = BASE_URL) {
  const res = await fetch(`${base}/outbound/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  admin = (await createOutboundKey(`delivery-${run}`)).key;
  receiver = await startReceiver();
  await call(admin, "PUT", `/tenants/${T}`);
});
afterAll(async () => receiver.close());

describe("publish and delivery", () => {
  let webhook: { id: string; credentials: { secret: string } };
  it("a published event is delivered to its webhook destination, byte for byte, signed", async () => {
    webhook = (
      await call(admin, "POST", `/tenants/${T}/destinations`, {
        type: "webhook",
        topics: ["user.created"],
        config: { url: `${receiver.url}/wh-${run}`, custom_headers: { "x-team": "blue" } },
      })
    ).json;
    const raw = `{"tenant_id":"${T}","topic":"user.created","metadata":{"source":"api"},"data":{ "b": 1,  "a": [2, 3] }}`;
    const published = await call(admin, "POST", "/publish", raw);
    expect(published.status, JSON.stringify(published.json)).toBe(202);
    expect(published.json).toMatchObject({ duplicate: false, destination_ids: [webhook.id] });
    expect(published.json.id).toMatch(/^evt_/);
    const got = await eventually(() => receiver.received.find((r) => r.url === `/wh-${run}`));
    expect(got.body.toString()).toBe('{ "b": 1,  "a": [2, 3] }');
    expect(got.headers).toMatchObject({
      "x-outbound-event-id": published.json.id,
      "x-outbound-topic": "user.created",
      "x-outbound-source": "api",
      "x-team": "blue",
      "content-type": "application/json",
    });
    expect(got.headers["x-outbound-timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(got.headers["x-outbound-signature"]).toBe(`v0=${createHmac("sha256", webhook.credentials.secret).update(got.body).digest("hex")}`);
    // Repeating the id delivers nothing again.
    const again = await call(admin, "POST", "/publish", { id: published.json.id, tenant_id: T, topic: "user.created", data: { b: 1 } });
    expect(again.json).toEqual({ id: published.json.id, duplicate: true, destination_ids: [webhook.id] });
    const attempts = await eventually(async () => {
      const { json } = await call(admin, "GET", `/attempts?event_id=${published.json.id}&include=response_data&include=event.data`);
      return json.models.length ? json.models : null;
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      status: "success",
      code: "200",
      attempt_number: 0,
      manual: false,
      event_id: published.json.id,
      destination_id: webhook.id,
      response_data: { status_code: 200, body: "ok" },
    });
    expect(attempts[0].event.data).toEqual({ b: 1, a: [2, 3] });
    expect(typeof attempts[0].latency_ms).toBe("number");
  });

  it("events published together each reach the sink once, and every delivery's result is recorded", async () => {
    // Deliveries ending together are recorded by one statement per batch (docs/scaling.md "Database":
    // it must run on PostgreSQL 14 too, or nothing is recorded and each event is sent again at lease end).
    const sink = (
      await call(admin, "POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["batch.sent"], config: { url: `${receiver.url}/batch-${run}` } })
    ).json;
    const ids: string[] = (
      await Promise.all(Array.from({ length: 20 }, (_, n) => call(admin, "POST", "/publish", { tenant_id: T, topic: "batch.sent", data: { n } })))
    ).map((p) => p.json.id);
    const recorded = await eventually(async () => {
      const { rows } = await getBackgroundPool().query(
        "SELECT event_id, status, attempts, locked_until FROM outbound_deliveries WHERE destination_id = $1 AND status <> 'pending'",
        [sink.id],
      );
      return rows.length === ids.length ? rows : null;
    });
    expect(recorded.map((r) => [r.status, r.attempts, r.locked_until])).toEqual(ids.map(() => ["success", 1, null]));
    const attempts = (await call(admin, "GET", `/attempts?destination_id=${sink.id}&limit=100`)).json.models;
    expect(attempts.map((a: { event_id: string; status: string; attempt_number: number }) => [a.event_id, a.status, a.attempt_number]).sort()).toEqual(
      ids.map((id) => [id, "success", 0]).sort(),
    );
    const arrived = receiver.received.filter((r) => r.url === `/batch-${run}`).map((r) => r.headers["x-outbound-event-id"]);
    expect(arrived.sort()).toEqual([...ids].sort());
  });

  it("topics and filters choose the destinations; an event matching nothing is still stored", async () => {
    const filtered = (
      await call(admin, "POST", `/tenants/${T}/destinations`, {
        type: "webhook",
        topics: "*",
        filter: { data: { amount: { $gte: 100 } } },
        config: { url: `${receiver.url}/big-${run}` },
      })
    ).json;
    const small = await call(admin, "POST", "/publish", { tenant_id: T, topic: "order.paid", data: { amount: 5 } });
    expect(small.json.destination_ids).toEqual([]);
    const big = await call(admin, "POST", "/publish", { tenant_id: T, topic: "order.paid", data: { amount: 500 } });
    expect(big.json.destination_ids).toEqual([filtered.id]);
    expect((await call(admin, "GET", `/events/${small.json.id}`)).json).toMatchObject({
      id: small.json.id,
      tenant_id: T,
      topic: "order.paid",
      eligible_for_retry: true,
      data: { amount: 5 },
    });
    const only = await call(admin, "POST", "/publish", { tenant_id: T, topic: "user.created", destination_id: filtered.id, data: { amount: 1 } });
    expect(only.json.destination_ids).toEqual([]);
    await eventually(() => receiver.received.some((r) => r.url === `/big-${run}` && JSON.parse(r.body.toString()).amount === 500));
  });

  it("Standard Webhooks deliveries verify with the standardwebhooks library", async () => {
    const std = (
      await call(admin, "POST", `/tenants/${T}/destinations`, {
        type: "standard_webhook",
        topics: ["invoice.sent"],
        config: { url: `${receiver.url}/std-${run}` },
      })
    ).json;
    const p = await call(admin, "POST", "/publish", { tenant_id: T, topic: "invoice.sent", data: { invoice: "in_1" } });
    const got = await eventually(() => receiver.received.find((r) => r.url === `/std-${run}`));
    const verified = new Webhook(std.credentials.secret).verify(got.body.toString(), got.headers as Record<string, string>);
    expect(verified).toEqual({ invoice: "in_1" });
    expect(got.headers["webhook-id"]).toBe(p.json.id);
  });

  it("the gateway type ingests into a source of this deployment, and its connection delivers it", async () => {
    const team = await gatewayTeam(); // the team linked to the outbound service by default
    const conn = await connectionTo(team, receiver);
    const gw = await call(admin, "POST", `/tenants/${T}/destinations`, { type: "gateway", topics: ["audit.logged"], config: { source_id: conn.source.id } });
    expect(gw.status, JSON.stringify(gw.json)).toBe(201);
    await call(admin, "POST", "/publish", { tenant_id: T, topic: "audit.logged", data: { who: "ada" } });
    const got = await eventually(() => receiver.received.find((r) => r.url.startsWith(`/${conn.tag}`)));
    expect(JSON.parse(got.body.toString())).toEqual({ who: "ada" });
    expect(got.headers["x-gateway-signature"]).toBeDefined();
    expect((await api(team, "GET", `/2025-07-01/requests?source_id=${conn.source.id}`)).json.count).toBe(1);
  });

  it("publish: admin only; validation errors", async () => {
    const jwt = (await call(admin, "GET", `/tenants/${T}/token`)).json.token;
    expect((await call(jwt, "POST", "/publish", { tenant_id: T, data: {} })).status).toBe(403);
    expect((await call(admin, "POST", "/publish", { tenant_id: T, data: [1] })).json).toEqual({
      status: 422,
      message: "validation error",
      data: ["data must be a valid JSON object"],
    });
    expect((await call(admin, "POST", "/publish", { data: {} })).json.data).toContain("tenant_id is required");
  });
});

describe("events, attempts and retry", () => {
  it("a tenant JWT sees only its tenant's events and attempts; lists page with null cursors", async () => {
    const other = `other-${run}`;
    await call(admin, "PUT", `/tenants/${other}`);
    await call(admin, "POST", "/publish", { tenant_id: other, topic: "x", data: { secret: true } });
    const jwt = (await call(admin, "GET", `/tenants/${T}/token`)).json.token;
    const mine = await call(jwt, "GET", "/events?limit=1000");
    expect(mine.json.models.length).toBeGreaterThan(0);
    expect(mine.json.models.every((e: { tenant_id: string }) => e.tenant_id === T)).toBe(true);
    expect(mine.json.pagination).toMatchObject({ order_by: "time", dir: "desc", next: null, prev: null });
    expect((await call(jwt, "GET", `/events?tenant_id=${other}`)).status).toBe(403);
    const theirs = (await call(admin, "GET", `/events?tenant_id=${other}`)).json.models[0];
    expect((await call(jwt, "GET", `/events/${theirs.id}`)).status).toBe(404);
    expect((await call(jwt, "GET", "/attempts")).json.models.every((a: { tenant_id: string }) => a.tenant_id === T)).toBe(true);
    const pageOne = await call(admin, "GET", `/events?tenant_id=${T}&limit=1`);
    expect(pageOne.json.pagination.next).not.toBeNull();
    const pageTwo = await call(admin, "GET", `/events?tenant_id=${T}&limit=1&next=${pageOne.json.pagination.next}`);
    expect(pageTwo.json.models[0].id).not.toBe(pageOne.json.models[0].id);
    expect((await call(admin, "GET", "/events?next=a&prev=b")).status).toBe(400);
  });

  it("POST /retry follows the spec's rules and records a manual attempt", async () => {
    const d = (
      await call(admin, "POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["retry.me"], config: { url: `${receiver.url}/retry-${run}` } })
    ).json;
    const p = await call(admin, "POST", "/publish", { tenant_id: T, topic: "retry.me", data: { n: 1 } });
    await eventually(async () => (await call(admin, "GET", `/attempts?event_id=${p.json.id}`)).json.models.length === 1);
    expect(await call(admin, "POST", "/retry", { event_id: p.json.id, destination_id: d.id })).toEqual({ status: 202, json: { success: true } });
    const attempts = await eventually(async () => {
      const { json } = await call(admin, "GET", `/tenants/${T}/destinations/${d.id}/attempts?event_id=${p.json.id}&dir=asc`);
      return json.models.length === 2 ? json.models : null;
    });
    expect(attempts.map((a: { attempt_number: number; manual: boolean }) => [a.attempt_number, a.manual])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect((await call(admin, "GET", `/tenants/${T}/destinations/${d.id}/attempts/${attempts[1].id}`)).json.id).toBe(attempts[1].id);
    expect((await call(admin, "POST", "/retry", { event_id: "evt_nothing", destination_id: d.id })).json).toEqual({ status: 404, message: "event not found" });
    expect((await call(admin, "POST", "/retry", { event_id: p.json.id, destination_id: "des_nothing" })).json).toEqual({
      status: 404,
      message: "destination not found",
    });
    const other = (
      await call(admin, "POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["something.else"], config: { url: `${receiver.url}/x` } })
    ).json;
    expect((await call(admin, "POST", "/retry", { event_id: p.json.id, destination_id: other.id })).json).toEqual({
      status: 400,
      message: "destination does not match event",
    });
    const never = (await call(admin, "POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["retry.me"], config: { url: `${receiver.url}/never` } }))
      .json;
    expect((await call(admin, "POST", "/retry", { event_id: p.json.id, destination_id: never.id })).json).toEqual({ status: 404, message: "event not found" });
    await call(admin, "PUT", `/tenants/${T}/destinations/${d.id}/disable`);
    expect((await call(admin, "POST", "/retry", { event_id: p.json.id, destination_id: d.id })).json).toEqual({
      status: 400,
      message: "Destination is disabled",
      data: { error: "destination_disabled" },
    });
    await call(admin, "DELETE", `/tenants/${T}/destinations/${d.id}`);
    // Attempts of a deleted destination stay readable through /attempts, not through its routes.
    expect((await call(admin, "GET", `/attempts?destination_id=${d.id}`)).json.models).toHaveLength(2);
    expect((await call(admin, "GET", `/tenants/${T}/destinations/${d.id}/attempts`)).status).toBe(404);
  });
});

describe("automatic retries and operator events (own server, schedule 1,1 s, auto-disable after 3)", () => {
  let server: RunningServer | undefined;
  let database: Awaited<ReturnType<typeof privateDatabase>> | undefined;
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });
  it("a failing destination is retried on the schedule, then disabled after failures in a row", async () => {
    database = await privateDatabase("outretry");
    const key = `hko_retry_${randomBytes(12).toString("hex")}`;
    server = await startServer({
      DATABASE_URL: database.url,
      OUTBOUND_API_KEY: key,
      OUTBOUND_RETRY_SCHEDULE: "1,1",
      OUTBOUND_AUTO_DISABLE_DESTINATION: "true",
      OUTBOUND_ALERT_CONSECUTIVE_FAILURE_COUNT: "3",
      OUTBOUND_OPERATOR_EVENTS_URL: `${receiver.url}/ops-${run}`,
      OUTBOUND_OPERATOR_EVENTS_SECRET: "op-secret",
    });
    receiver.respond((req) => ({ status: req.url.startsWith(`/down-${run}`) ? 503 : 200, body: "x" }));
    await call(key, "PUT", "/tenants/t", undefined, server.url);
    const d = (await call(key, "POST", "/tenants/t/destinations", { type: "webhook", topics: "*", config: { url: `${receiver.url}/down-${run}` } }, server.url))
      .json;
    const p = await call(key, "POST", "/publish", { tenant_id: "t", topic: "a", data: { x: 1 } }, server.url);
    const attempts = await eventually(async () => {
      const { json } = await call(key, "GET", `/attempts?event_id=${p.json.id}&dir=asc`, undefined, server!.url);
      return json.models.length === 3 ? json.models : null;
    }, 20_000);
    expect(attempts.map((a: { attempt_number: number; status: string; code: string }) => [a.attempt_number, a.status, a.code])).toEqual([
      [0, "failed", "503"],
      [1, "failed", "503"],
      [2, "failed", "503"],
    ]);
    const gap = Date.parse(attempts[1].delivered_at) - Date.parse(attempts[0].delivered_at);
    expect(gap).toBeGreaterThanOrEqual(900);
    await eventually(async () => (await call(key, "GET", `/tenants/t/destinations/${d.id}`, undefined, server!.url)).json.disabled_at !== null);
    // Operator events, signed: failures in a row at 2 and 3 of 3, the destination disabled, the retries exhausted.
    const ops = await eventually(() => {
      const got = receiver.received.filter((r) => r.url === `/ops-${run}`);
      return got.length >= 4 ? got : null;
    }, 15_000);
    for (const o of ops) expect(o.headers["x-outbound-signature"]).toBe(`v0=${createHmac("sha256", "op-secret").update(o.body).digest("hex")}`);
    const topics = ops
      .map((o) => JSON.parse(o.body.toString()))
      .map((e) => `${e.topic}:${e.data.consecutive_failures ?? ""}`)
      .sort();
    expect(topics).toEqual([
      "alert.attempt.exhausted_retries:",
      "alert.destination.consecutive_failure:2",
      "alert.destination.consecutive_failure:3",
      "alert.destination.disabled:3",
    ]);
    expect(JSON.parse(ops[0].body.toString())).toMatchObject({ tenant_id: "t", data: { destination_id: d.id } });
    const notEligible = await call(key, "POST", "/publish", { tenant_id: "t", topic: "a", eligible_for_retry: false, data: { x: 2 } }, server.url);
    expect(notEligible.json.destination_ids).toEqual([]);
  }, 60_000);
});

describe("metrics", () => {
  it("/metrics/events and /metrics/attempts count a tenant's traffic; a JWT is forced to its tenant", async () => {
    const M = `metrics-${run}`;
    await call(admin, "PUT", `/tenants/${M}`);
    await call(admin, "POST", `/tenants/${M}/destinations`, { type: "webhook", topics: "*", config: { url: `${receiver.url}/m-${run}` } });
    for (const topic of ["a", "a", "b"]) await call(admin, "POST", "/publish", { tenant_id: M, topic, data: { topic } });
    await eventually(async () => (await call(admin, "GET", `/attempts?tenant_id=${M}`)).json.models.length === 3);
    const range = `time[start]=${new Date(Date.now() - 3_600_000).toISOString()}&time[end]=${new Date(Date.now() + 60_000).toISOString()}`;
    const attempts = await call(
      admin,
      "GET",
      `/metrics/attempts?${range}&measures=count&measures=successful_count&measures=first_attempt_count&dimensions=topic&filters[tenant_id]=${M}`,
    );
    expect(attempts.status, JSON.stringify(attempts.json)).toBe(200);
    expect(attempts.json.data).toEqual([
      { dimensions: { topic: "a" }, metrics: { count: 2, successful_count: 2, first_attempt_count: 2 } },
      { dimensions: { topic: "b" }, metrics: { count: 1, successful_count: 1, first_attempt_count: 1 } },
    ]);
    expect(attempts.json.metadata).toMatchObject({ row_count: 2, truncated: false });
    const events = await call(admin, "GET", `/metrics/events?${range}&measures=count&filters[topic]=a&filters[tenant_id]=${M}`);
    expect(events.json.data).toEqual([{ metrics: { count: 2 } }]);
    const jwt = (await call(admin, "GET", `/tenants/${M}/token`)).json.token;
    expect((await call(jwt, "GET", `/metrics/events?${range}&measures=count`)).json.data).toEqual([{ metrics: { count: 3 } }]);
    expect((await call(jwt, "GET", `/metrics/events?${range}&measures=count&dimensions=tenant_id`)).status).toBe(403);
    expect((await call(jwt, "GET", `/metrics/events?${range}&measures=count&filters[tenant_id]=${T}`)).status).toBe(403);
    const bad = await call(admin, "GET", `/metrics/attempts?${range}&measures=bogus`);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/unknown measure "bogus"/);
    expect((await call(admin, "GET", `/metrics/attempts?measures=count`)).status).toBe(400);
  });
});
