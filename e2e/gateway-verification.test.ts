/**
 * Source verification over HTTP (docs/pipeline.md#verification): failures are
 * captured as VERIFICATION_FAILED and answered 401 (empty body) or 200 per provider type; verified
 * requests are delivered with `x-gateway-verified: true`; handshakes are answered.
 */
import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, receivedBy, requestRow, send } from "./support/pipeline";
import { type Receiver, startReceiver } from "./support/receiver";

let team: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  team = await newTeam("verification");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

describe("source verification", () => {
  it("generic HMAC: a valid signature is delivered as verified; a wrong or missing one is 401 with an empty body", async () => {
    const auth = { algorithm: "sha256", encoding: "hex", header_key: "X-Signature", webhook_secret_key: "hmac-secret" };
    const c = await connectionTo(team, receiver, { source: { config: { auth_type: "HMAC", auth } } });
    const body = JSON.stringify({ signed: true });
    const good = await send(c.source.url, body, {
      headers: { "content-type": "application/json", "x-signature": createHmac("sha256", "hmac-secret").update(body).digest("hex") },
    });
    expect(good.status).toBe(200);
    await eventsIn(good.requestId, ["SUCCESSFUL"]);
    expect((await requestRow(good.requestId)).verified).toBe(true);
    expect(receivedBy(receiver, c.tag)[0].headers["x-gateway-verified"]).toBe("true");

    const wrong = await fetch(c.source.url, { method: "POST", body, headers: { "x-signature": "deadbeef" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toBe("");
    const missing = await fetch(c.source.url, { method: "POST", body });
    expect(missing.status).toBe(401);
    const listed = await api(team, "GET", `/2025-07-01/requests?source_id=${c.source.id}&rejection_cause=VERIFICATION_FAILED`);
    expect(listed.json.count).toBe(2);
    expect(listed.json.models.every((r: { verified: boolean }) => r.verified === false)).toBe(true);
    expect(receivedBy(receiver, c.tag)).toHaveLength(1);
  });

  it("API_KEY in a header or the query, BASIC_AUTH: 401 when wrong", async () => {
    const key = await connectionTo(team, receiver, { source: { config: { auth_type: "API_KEY", auth: { header_key: "x-api-key", api_key: "k-123" } } } });
    expect((await send(key.source.url, {}, { headers: { "x-api-key": "k-123" } })).status).toBe(200);
    expect((await send(`${key.source.url}?x-api-key=k-123`, {})).status).toBe(200);
    expect((await fetch(key.source.url, { method: "POST", headers: { "x-api-key": "nope" } })).status).toBe(401);
    const basic = await connectionTo(team, receiver, { source: { config: { auth_type: "BASIC_AUTH", auth: { username: "u", password: "p" } } } });
    const auth = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}` });
    expect((await send(basic.source.url, {}, { headers: auth("u", "p") })).status).toBe(200);
    expect((await fetch(basic.source.url, { method: "POST", headers: auth("u", "x") })).status).toBe(401);
  });

  it("a source's custom_response replaces the empty body of a 401 (status stays 401) and answers accepted requests", async () => {
    const config = { auth_type: "API_KEY", auth: { header_key: "x-api-key", api_key: "k-9" }, custom_response: { content_type: "json", body: '{"ok":false}' } };
    const c = await connectionTo(team, receiver, { source: { config } });
    const refused = await fetch(c.source.url, { method: "POST", headers: { "x-api-key": "nope" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await refused.text()).toBe('{"ok":false}');
    const accepted = await fetch(c.source.url, { method: "POST", headers: { "x-api-key": "k-9" } });
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toBe('{"ok":false}');
  });

  it("a provider source (STRIPE) verifies with stripe's own signature; a failure is captured but answered 200", async () => {
    const secret = "whsec_e2e";
    const c = await connectionTo(team, receiver, { source: { type: "STRIPE", config: { auth: { webhook_secret_key: secret } } } });
    const payload = JSON.stringify({ id: "evt_1", type: "invoice.paid" });
    const header = new Stripe("sk_test_x").webhooks.generateTestHeaderString({ payload, secret });
    const good = await send(c.source.url, payload, { headers: { "content-type": "application/json", "stripe-signature": header } });
    await eventsIn(good.requestId, ["SUCCESSFUL"]);
    expect((await requestRow(good.requestId)).verified).toBe(true);
    const bad = await send(c.source.url, payload, { headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" } });
    expect(bad.status).toBe(200);
    expect((await requestRow(bad.requestId)).rejection_cause).toBe("VERIFICATION_FAILED");
  });

  it("answers a Slack url_verification challenge", async () => {
    const secret = "slack-secret";
    const c = await connectionTo(team, receiver, { source: { type: "SLACK", config: { auth: { webhook_secret_key: secret } } } });
    const body = JSON.stringify({ type: "url_verification", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
    const res = await fetch(c.source.url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "x-slack-signature": sig, "x-slack-request-timestamp": ts },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
  });

  it("a CORS preflight is answered even on a verifying source", async () => {
    const c = await connectionTo(team, receiver, { source: { config: { auth_type: "API_KEY", auth: { header_key: "x-api-key", api_key: "k" } } } });
    expect((await fetch(c.source.url, { method: "OPTIONS" })).status).toBe(204);
  });
});
