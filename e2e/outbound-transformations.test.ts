/**
 * Transformations of outbound destinations (docs/outbound.md "Transformations") against the running
 * server, its worker and a real receiver: create with a transformation, bad code refused with a 422 that
 * says why (nothing written), the test run on a sample and on an event, the delivered request changed at
 * the receiver (body, headers, path and query; signed over the body sent), the output kept with the
 * attempt, a failing transformation giving one failed attempt with its reason (nothing sent, the retry
 * left to the schedule), tenant isolation, and what OUTBOUND_PORTAL_TRANSFORMATIONS lets a tenant do.
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBackgroundPool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const run = randomBytes(4).toString("hex");
const A = `tx-a-${run}`;
const B = `tx-b-${run}`;
const TOPIC = `order.created`;
let admin = "";
let jwtA = "";
let receiver: Receiver;

async function call(token: string, method: string, path: string, body?: unknown, base = "api/v1") {
  const res = await fetch(`${BASE_URL}/outbound/${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** The deployment's PORTAL_TRANSFORMATIONS setting (managed form's PATCH /config); null restores the default. */
const setAccess = async (value: "edit" | "read" | "off" | null) =>
  expect((await call(admin, "PATCH", "/config", { PORTAL_TRANSFORMATIONS: value }, "2025-07-01")).status).toBe(200);

const RESHAPE = `addHandler("transform", (request, context) => {
  console.log("topic", context.event.topic);
  request.body = { order: request.body.id, total_cents: Math.round(request.body.total * 100) };
  request.headers["x-shop"] = "demo";
  delete request.headers["x-outbound-topic"];
  request.path = request.path + "/orders";
  request.query = "v=2";
  return request;
});`;

beforeAll(async () => {
  admin = (await createOutboundKey(`tx-${run}`)).key;
  receiver = await startReceiver();
  for (const t of [A, B]) expect((await call(admin, "PUT", `/tenants/${t}`)).status).toBe(201);
  jwtA = (await call(admin, "GET", `/tenants/${A}/token`)).json.token;
});
afterAll(async () => {
  await setAccess(null);
  await receiver.close();
});

describe("outbound destination transformations", () => {
  let dest: { id: string; transformation: string; credentials: { secret: string } };

  it("code that does not parse, or never registers its handler, is a 422 naming the problem, and nothing is written", async () => {
    const base = { type: "webhook", topics: [TOPIC], config: { url: `${receiver.url}/bad-${run}` } };
    const syntax = await call(admin, "POST", `/tenants/${A}/destinations`, { ...base, transformation: 'addHandler("transform", (r) => {' });
    expect(syntax.status).toBe(422);
    expect(syntax.json.data).toHaveLength(1);
    expect(syntax.json.data[0]).toMatch(/^transformation: SyntaxError/);
    const noHandler = await call(admin, "POST", `/tenants/${A}/destinations`, { ...base, transformation: "const x = 1;" });
    expect(noHandler.status).toBe(422);
    expect(noHandler.json.data).toEqual(['transformation: the code never calls addHandler("transform", (request, context) => …)']);
    const throws = await call(admin, "POST", `/tenants/${A}/destinations`, { ...base, transformation: 'throw new Error("nope")' });
    expect(throws.json.data).toEqual(["transformation: Error: nope"]);
    const wrongType = await call(admin, "POST", `/tenants/${A}/destinations`, { ...base, transformation: 42 });
    expect(wrongType.status).toBe(422);
    expect((await call(admin, "GET", `/tenants/${A}/destinations`)).json).toEqual([]);
  });

  it("a destination is created with a transformation, answered on reads; destinations without one keep their shape", async () => {
    const created = await call(admin, "POST", `/tenants/${A}/destinations`, {
      type: "webhook",
      topics: [TOPIC],
      config: { url: `${receiver.url}/tx-${run}`, custom_headers: { "x-team": "blue" } },
      transformation: RESHAPE,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.transformation).toBe(RESHAPE);
    dest = created.json;
    expect((await call(admin, "GET", `/tenants/${A}/destinations/${dest.id}`)).json.transformation).toBe(RESHAPE);
    const plain = await call(admin, "POST", `/tenants/${B}/destinations`, { type: "webhook", topics: "*", config: { url: `${receiver.url}/b-${run}` } });
    expect(plain.status).toBe(201);
    expect("transformation" in plain.json).toBe(false);
  });

  it("the test run answers the transformed request, the console and no error; failing code answers its error with 200", async () => {
    const sample = await call(admin, "POST", `/tenants/${A}/destinations/${dest.id}/transformation/test`, { sample: { data: { id: "o_1", total: 12.5 } } });
    expect(sample.status, JSON.stringify(sample.json)).toBe(200);
    expect(sample.json).toMatchObject({
      log_level: "info",
      console: [{ type: "log", message: `topic ${TOPIC}` }],
      request: { body: { order: "o_1", total_cents: 1250 }, url: `${receiver.url}/tx-${run}/orders?v=2`, path: `/tx-${run}/orders`, query: "v=2" },
    });
    expect(sample.json.request.headers).toMatchObject({ "x-shop": "demo", "x-team": "blue", "x-outbound-event-id": "evt_sample" });
    expect(sample.json.request.headers["x-outbound-topic"]).toBeUndefined();
    expect(sample.json.error).toBeUndefined();

    const failing = await call(admin, "POST", `/tenants/${A}/destinations/${dest.id}/transformation/test`, {
      code: 'addHandler("transform", (r) => { console.warn("before"); throw new TypeError("no total"); });',
    });
    expect(failing.status).toBe(200);
    expect(failing.json.log_level).toBe("fatal");
    expect(failing.json.error).toMatch(/^TypeError: no total/);
    expect(failing.json.request).toBeUndefined();
    expect(failing.json.console[0]).toEqual({ type: "warn", message: "before" });

    const bad = await call(admin, "POST", `/tenants/${A}/destinations/${dest.id}/transformation/test`, { event_id: "evt_x", sample: {} });
    expect(bad.status).toBe(422);
    expect((await call(admin, "POST", `/tenants/${A}/destinations/des_nope${run}/transformation/test`, {})).status).toBe(404);
  });

  it("a delivery is sent as transformed, signed over the body sent, and its attempt keeps the output", async () => {
    const published = await call(admin, "POST", "/publish", { tenant_id: A, topic: TOPIC, data: { id: "o_2", total: 3 } });
    expect(published.status).toBe(202);
    const attempt = await eventually(async () => (await call(admin, "GET", `/attempts?event_id=${published.json.id}&include=transformation`)).json.models[0]);
    expect(attempt, JSON.stringify(attempt)).toMatchObject({ status: "success", code: "200" });
    const got = receiver.received.find((r) => r.url.startsWith(`/tx-${run}`))!;
    expect(got.url).toBe(`/tx-${run}/orders?v=2`);
    expect(JSON.parse(got.body.toString())).toEqual({ order: "o_2", total_cents: 300 });
    expect(got.headers).toMatchObject({ "x-shop": "demo", "x-team": "blue", "x-outbound-event-id": published.json.id });
    expect(got.headers["x-outbound-topic"]).toBeUndefined();
    expect(got.headers["x-outbound-signature"]).toBe(`v0=${createHmac("sha256", dest.credentials.secret).update(got.body).digest("hex")}`);

    expect(attempt.transformation).toMatchObject({
      log_level: "info",
      request: { body: { order: "o_2", total_cents: 300 }, url: `${receiver.url}/tx-${run}/orders?v=2` },
      console: [{ type: "log", message: `topic ${TOPIC}` }],
    });
    // Only on request, as response_data.
    expect("transformation" in (await call(admin, "GET", `/attempts/${attempt.id}`)).json).toBe(false);

    // The test run on this event gives what was delivered.
    const onEvent = await call(admin, "POST", `/tenants/${A}/destinations/${dest.id}/transformation/test`, { event_id: published.json.id });
    expect(onEvent.json.request.body).toEqual({ order: "o_2", total_cents: 300 });
  });

  it("a failing transformation fails the attempt with its reason, sends nothing, and leaves the retry to the schedule", async () => {
    const patched = await call(admin, "PATCH", `/tenants/${A}/destinations/${dest.id}`, {
      transformation: 'addHandler("transform", (r) => { if (!r.body.total) throw new Error("total is required"); return r; });',
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    const before = receiver.received.length;
    const published = await call(admin, "POST", "/publish", { tenant_id: A, topic: TOPIC, data: { id: "o_3" } });
    const attempt = await eventually(async () => (await call(admin, "GET", `/attempts?event_id=${published.json.id}&include=transformation`)).json.models[0]);
    expect(attempt).toMatchObject({ status: "failed", code: "transformation_error", attempt_number: 0 });
    expect(attempt.transformation.log_level).toBe("fatal");
    expect(attempt.transformation.error).toMatch(/^Error: total is required/);
    expect(attempt.latency_ms).toBeUndefined();
    // The delivery waits for its retry (OUTBOUND_RETRY_INTERVAL_SECONDS, 30 s by default): no second attempt now.
    const { rows } = await getBackgroundPool().query<{ status: string; wait: number }>(
      "SELECT status, extract(epoch FROM next_attempt_at - now()) AS wait FROM outbound_deliveries WHERE event_id = $1",
      [published.json.id],
    );
    expect(rows[0].status).toBe("pending");
    expect(Number(rows[0].wait)).toBeGreaterThan(10);
    expect((await call(admin, "GET", `/attempts?event_id=${published.json.id}`)).json.models).toHaveLength(1);
    expect(receiver.received.slice(before).filter((r) => r.url.startsWith(`/tx-${run}`))).toEqual([]);
    // Removing it (null) delivers the next events as published.
    const cleared = await call(admin, "PATCH", `/tenants/${A}/destinations/${dest.id}`, { transformation: null });
    expect("transformation" in cleared.json).toBe(false);
  });

  it("a tenant cannot test-run or change another tenant's transformation, nor run one on another tenant's event", async () => {
    const otherDest = (await call(admin, "GET", `/tenants/${B}/destinations`)).json[0].id as string;
    await setAccess("edit");
    expect((await call(jwtA, "POST", `/tenants/${B}/destinations/${otherDest}/transformation/test`, { code: RESHAPE })).status).toBe(403);
    expect((await call(jwtA, "PATCH", `/tenants/${B}/destinations/${otherDest}`, { transformation: RESHAPE })).status).toBe(403);
    // Another tenant's destination id under the tenant's own path is not found.
    expect((await call(jwtA, "POST", `/tenants/${A}/destinations/${otherDest}/transformation/test`, { code: RESHAPE })).status).toBe(404);
    const eventB = await call(admin, "POST", "/publish", { tenant_id: B, topic: TOPIC, data: { id: "o_b", total: 1 } });
    const onOther = await call(jwtA, "POST", `/tenants/${A}/destinations/${dest.id}/transformation/test`, { code: RESHAPE, event_id: eventB.json.id });
    expect(onOther.status).toBe(404);
    expect(onOther.json.message).toBe("event not found");
    expect((await call(admin, "GET", `/tenants/${B}/destinations/${otherDest}`)).json.transformation).toBeUndefined();
  });

  it("OUTBOUND_PORTAL_TRANSFORMATIONS: edit lets a tenant change and try code; read shows and runs the saved code only; off hides it", async () => {
    const mine = `/tenants/${A}/destinations/${dest.id}`;
    await setAccess("edit");
    const edited = await call(jwtA, "PATCH", mine, { transformation: RESHAPE });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    expect(edited.json.transformation).toBe(RESHAPE);
    expect((await call(jwtA, "POST", `${mine}/transformation/test`, { code: RESHAPE, sample: { data: { id: "x", total: 1 } } })).status).toBe(200);

    await setAccess("read");
    expect((await call(jwtA, "GET", mine)).json.transformation).toBe(RESHAPE);
    const refused = await call(jwtA, "PATCH", mine, { transformation: 'addHandler("transform", (r) => r);' });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe("transformations cannot be changed with a tenant token on this deployment");
    // Other changes still go through, as does the same code given back.
    expect((await call(jwtA, "PATCH", mine, { metadata: { team: "a" }, transformation: RESHAPE })).status).toBe(200);
    expect((await call(jwtA, "POST", `${mine}/transformation/test`, { code: RESHAPE })).status).toBe(403);
    const saved = await call(jwtA, "POST", `${mine}/transformation/test`, { sample: { data: { id: "y", total: 2 } } });
    expect(saved.status).toBe(200);
    expect(saved.json.request.body).toEqual({ order: "y", total_cents: 200 });

    await setAccess("off");
    const hidden = await call(jwtA, "GET", mine);
    expect(hidden.status).toBe(200);
    expect(hidden.json.transformation).toBeUndefined();
    expect((await call(jwtA, "GET", `/tenants/${A}/destinations`)).json[0].transformation).toBeUndefined();
    expect((await call(jwtA, "POST", `${mine}/transformation/test`, {})).status).toBe(403);
    // The operator still sees it.
    expect((await call(admin, "GET", mine)).json.transformation).toBe(RESHAPE);
  });
});
