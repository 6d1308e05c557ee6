/**
 * The pipeline end to end (docs/pipeline.md, docs/pipeline.md#what-a-destination-receives):
 * a request sent to a source URL becomes events through its connections' rules and
 * is delivered to a real local receiver, signed, with attempts recorded.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { attemptsOf as attempts, connectionTo, eventsIn, eventsOf, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

let team: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  team = await newTeam("pipeline");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

const forPath = (path: string) => receiver.received.filter((r) => r.url.startsWith(path));

describe("delivery", () => {
  it("delivers a request to the destination with path, query, method, headers and a verifiable signature", async () => {
    const c = await connectionTo(team, receiver);
    const body = JSON.stringify({ hello: "world", n: 1 });
    const res = await fetch(`${c.source.url}/orders/42?x=1&y=2`, { method: "POST", headers: { "content-type": "application/json", "x-custom": "kept" }, body });
    expect(res.status).toBe(200);
    const { request_id } = await res.json();
    const got = await eventually(() => forPath(`/${c.tag}/`)[0]);
    expect(got.method).toBe("POST");
    expect(got.url).toBe(`/${c.tag}/orders/42?x=1&y=2`);
    expect(got.body.toString()).toBe(body);
    expect(got.headers["x-custom"]).toBe("kept");
    expect(got.headers["x-gateway-original-method"]).toBe("POST");
    expect(got.headers["x-gateway-verified"]).toBe("false");
    expect(got.headers["x-gateway-request-id"]).toBe(request_id);
    expect(got.headers["x-gateway-event-id"]).toMatch(/^evt_/);
    expect(got.headers["idempotency-key"]).toBe(got.headers["x-gateway-event-id"]);
    const expected = createHmac("sha256", team.signingSecret).update(got.body).digest("base64");
    expect(got.headers["x-gateway-signature"]).toBe(expected);
    const [event] = await eventsIn(request_id, ["SUCCESSFUL"]);
    expect(event.attempts).toBe(1);
    expect(event.response_status).toBe(200);
    const [attempt] = await attempts(event.id);
    expect(attempt).toMatchObject({ status: "SUCCESSFUL", trigger: "INITIAL", attempt_number: 1, response_status: 200, body: "ok", http_method: "POST" });
    expect(attempt.id).toBe(got.headers["x-gateway-attempt-id"]);
  });

  it("a method the source does not allow is 405 with Allow, unless the URL allows it with ?x-gateway-allow-methods", async () => {
    const c = await connectionTo(team, receiver);
    const refused = await fetch(`${c.source.url}/ping?a=1`);
    expect(refused.status).toBe(405);
    expect(refused.headers.get("allow")).toBe("POST, PUT, PATCH, DELETE, OPTIONS");
    const other = await fetch(`${c.source.url}/ping?x-gateway-allow-methods=put`);
    expect(other.status).toBe(405);
    const allowed = await fetch(`${c.source.url}/ping?a=1&x-gateway-allow-methods=get,head`);
    expect(allowed.status).toBe(200);
    const { request_id } = await allowed.json();
    const got = await eventually(() => forPath(`/${c.tag}/ping`)[0]);
    expect(got.method).toBe("GET");
    expect(got.url).toBe(`/${c.tag}/ping?a=1&x-gateway-allow-methods=get,head`);
    expect(got.headers["x-gateway-request-id"]).toBe(request_id);
    const rejected = await api(team, "GET", `/2025-07-01/requests?source_id=${c.source.id}&rejection_cause=UNSUPPORTED_HTTP_METHOD`);
    expect(rejected.json.count).toBe(2);
  });

  it("a connection added to a busy source applies to the very next request, and a paused one at once", async () => {
    const first = await connectionTo(team, receiver);
    const r1 = await send(first.source.url);
    await eventsIn(r1.requestId, ["SUCCESSFUL"]);
    // A second connection on the same source, created right before the next request.
    const tag = `${first.tag}b`;
    const second = await api(team, "POST", "/2025-07-01/connections", {
      name: `conn-${tag}`,
      source_id: first.source.id,
      destination: { name: `dst-${tag}`, config: { url: `${receiver.url}/${tag}` } },
    });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    const r2 = await send(first.source.url);
    const events = await eventsIn(r2.requestId, ["SUCCESSFUL"], 2);
    expect(events.map((e) => e.webhook_id).sort()).toEqual([first.id, (second.json as { id: string }).id].sort());
    // Paused right before the next request: that request's event is held.
    expect((await api(team, "PUT", `/2025-07-01/connections/${first.id}/pause`)).status).toBe(200);
    const r3 = await send(first.source.url);
    const held = await eventually(async () => {
      const rows = await eventsOf(r3.requestId);
      return rows.length === 2 && rows.every((e) => e.status !== "QUEUED") ? rows : null;
    });
    expect(held.find((e) => e.webhook_id === first.id)?.status).toBe("HOLD");
  });

  it("retries with the connection's retry rule until the receiver succeeds", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "retry", strategy: "linear", count: 3, interval: 200 }] });
    const path = `/${c.tag}`;
    receiver.respond((req) => (req.url.startsWith(path) && forPath(path).length < 3 ? { status: 503, body: "busy" } : { status: 200, body: "ok" }));
    const res = await fetch(c.source.url, { method: "POST", body: "x" });
    const { request_id } = await res.json();
    const [event] = await eventsIn(request_id, ["SUCCESSFUL"]);
    receiver.respond({ status: 200, body: "ok" });
    expect(event.attempts).toBe(3);
    const list = await attempts(event.id);
    expect(list.map((a) => [a.status, a.response_status, a.trigger])).toEqual([
      ["FAILED", 503, "INITIAL"],
      ["FAILED", 503, "AUTOMATIC"],
      ["SUCCESSFUL", 200, "AUTOMATIC"],
    ]);
    const times = forPath(path).map((r) => r.at);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(180);
  });
});
