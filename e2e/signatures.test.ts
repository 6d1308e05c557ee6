/**
 * Signatures as a receiver checks them, with code independent of the signer (Node's crypto HMAC and
 * crypto.verify): secret rotation with an overlap window for every signing scheme (the gateway signature,
 * outbound `webhook` and `standard_webhook`: both signatures during the window, only the new one from its
 * end on), through the gateway API (POST /signing-secret/rotate) and the outbound API as a tenant (as the
 * portal does), and asymmetric Standard Webhooks signatures (ed25519, `v1a`, `whpk_` public key).
 * docs/gateway-api.md#signing-secret, docs/outbound.md "Signing secrets".
 */
import { createHmac, createPublicKey, randomBytes, verify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { api, newTeam } from "./support/gateway";
import { outboundCall } from "./support/outbound";
import { connectionTo, eventsIn, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

/** The rotation overlap of these tests: long enough for a delivery on a busy machine, short enough to wait out. */
const WINDOW_S = 4;
const run = randomBytes(4).toString("hex");
const T = `sig-${run}`;
let admin = "";
let jwt = "";
let receiver: Receiver;

beforeAll(async () => {
  admin = (await createOutboundKey(`signatures-${run}`)).key;
  receiver = await startReceiver();
  expect((await outboundCall(admin, "PUT", `/tenants/${T}`)).status).toBe(201);
  jwt = (await outboundCall(admin, "GET", `/tenants/${T}/token`)).json.token;
});
afterAll(async () => receiver.close());

const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));
const hmac64 = (key: string | Buffer, content: Buffer | string) => createHmac("sha256", key).update(content).digest("base64");

/** Standard Webhooks checks of one signature header, each by its own scheme: `v1` HMAC with a `whsec_` secret, `v1a` ed25519 with a `whpk_` key. */
function standardVerifies(h: Record<string, unknown>, body: Buffer, signature: string, key: string): boolean {
  const content = Buffer.concat([Buffer.from(`${String(h["webhook-id"])}.${String(h["webhook-timestamp"])}.`), body]);
  const [version, sig] = signature.split(",");
  if (key.startsWith("whsec_")) return version === "v1" && sig === hmac64(Buffer.from(key.slice(6), "base64"), content);
  const x = Buffer.from(key.slice(5), "base64").toString("base64url");
  return version === "v1a" && verify(null, content, createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }), Buffer.from(sig, "base64"));
}

/** Publishes one event to topic `topic` and answers what the receiver got at `/path`. */
async function publishTo(topic: string, path: string) {
  const p = await outboundCall(admin, "POST", "/publish", { tenant_id: T, topic, data: { at: Date.now() } });
  expect(p.status, p.text).toBe(202);
  const id = p.json.id as string;
  return eventually(() => receiver.received.find((r) => r.url === path && (r.headers["webhook-id"] === id || r.headers["x-outbound-event-id"] === id)));
}

describe.concurrent("secret rotation with an overlap window", () => {
  it("gateway: POST /signing-secret/rotate; x-gateway-signature-2 with the old secret during the delay, gone after it", async () => {
    const team = await newTeam("rotation");
    const c = await connectionTo(team, receiver);
    expect((await api(team, "POST", "/2025-07-01/signing-secret/rotate", { delay: -1 })).status).toBe(422);
    expect((await api(team, "POST", "/2025-07-01/signing-secret/rotate", { delay: 1, extra: true })).status).toBe(422);
    const before = Date.now();
    const rotated = await api(team, "POST", "/2025-07-01/signing-secret/rotate", { delay: WINDOW_S * 1000 });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    const fresh = rotated.json.signing_secret as string;
    expect(fresh).not.toBe(team.signingSecret);
    const until = Date.parse(rotated.json.previous_secret_expires_at);
    expect(until).toBeGreaterThanOrEqual(before + WINDOW_S * 1000);

    const during = await send(c.source.url, { during: true });
    await eventsIn(during.requestId, ["SUCCESSFUL"]);
    const got = receiver.received.find((r) => r.headers["x-gateway-request-id"] === during.requestId)!;
    expect(got.at).toBeLessThan(until);
    expect(got.headers["x-gateway-signature"]).toBe(hmac64(fresh, got.body));
    expect(got.headers["x-gateway-signature-2"]).toBe(hmac64(team.signingSecret, got.body));

    await sleepUntil(until + 50);
    const after = await send(c.source.url, { after: true });
    await eventsIn(after.requestId, ["SUCCESSFUL"]);
    const late = receiver.received.find((r) => r.headers["x-gateway-request-id"] === after.requestId)!;
    expect(late.headers["x-gateway-signature"]).toBe(hmac64(fresh, late.body));
    expect(late.headers["x-gateway-signature-2"]).toBeUndefined();

    // Without a delay in the body: 24 hours; delay 0: the old secret is dropped at once.
    const dflt = await api(team, "POST", "/2025-07-01/signing-secret/rotate");
    expect(Date.parse(dflt.json.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const now = await api(team, "POST", "/2025-07-01/signing-secret/rotate", { delay: 0 });
    expect(now.json.previous_secret_expires_at).toBeNull();
    const single = await send(c.source.url, { dropped: true });
    await eventsIn(single.requestId, ["SUCCESSFUL"]);
    const s = receiver.received.find((r) => r.headers["x-gateway-request-id"] === single.requestId)!;
    expect(s.headers["x-gateway-signature"]).toBe(hmac64(now.json.signing_secret, s.body));
    expect(s.headers["x-gateway-signature-2"]).toBeUndefined();
  }, 40_000);

  it("outbound webhook: a tenant rotates with rotate_secret_overlap_seconds; v0=<new>,<old> during the window, v0=<new> after", async () => {
    const path = `/wh-${run}`;
    const created = await outboundCall(admin, "POST", `/tenants/${T}/destinations`, {
      type: "webhook",
      topics: ["sig.wh"],
      config: { url: `${receiver.url}${path}` },
    });
    const old = created.json.credentials.secret as string;
    const before = Date.now();
    const rotated = await outboundCall(jwt, "PATCH", `/tenants/${T}/destinations/${created.json.id}`, {
      credentials: { rotate_secret: true, rotate_secret_overlap_seconds: WINDOW_S },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.json.credentials.secret as string;
    expect(rotated.json.credentials.previous_secret).toBe(old);
    const until = Date.parse(rotated.json.credentials.previous_secret_invalid_at);
    expect(until).toBeGreaterThanOrEqual(before + WINDOW_S * 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + WINDOW_S * 1000);
    const hex = (secret: string, body: Buffer) => createHmac("sha256", secret).update(body).digest("hex");

    const got = await publishTo("sig.wh", path);
    expect(got.at).toBeLessThan(until);
    expect(got.headers["x-outbound-signature"]).toBe(`v0=${hex(fresh, got.body)},${hex(old, got.body)}`);

    await sleepUntil(until + 50);
    const late = await publishTo("sig.wh", path);
    expect(late.headers["x-outbound-signature"]).toBe(`v0=${hex(fresh, late.body)}`);
    const read = await outboundCall(jwt, "GET", `/tenants/${T}/destinations/${created.json.id}`);
    expect(read.json.credentials).toEqual({ secret: fresh });
  }, 40_000);

  it("standard_webhook: key_type ed25519 (v1a, whpk_ public key), rotated from whsec_ with an overlap: v1a and v1 during it, v1a after", async () => {
    const path = `/sw-${run}`;
    const created = await outboundCall(admin, "POST", `/tenants/${T}/destinations`, {
      type: "standard_webhook",
      topics: ["sig.sw"],
      config: { url: `${receiver.url}${path}` },
    });
    const old = created.json.credentials.secret as string;
    expect(created.json.credentials).toEqual({ secret: old, key_type: "hmac-sha256" });
    // The tenant (portal) switches to a key pair; the symmetric secret keeps signing for the window.
    const switched = await outboundCall(jwt, "PATCH", `/tenants/${T}/destinations/${created.json.id}`, {
      credentials: { key_type: "ed25519", rotate_secret_overlap_seconds: WINDOW_S },
    });
    expect(switched.status, switched.text).toBe(200);
    const creds = switched.json.credentials;
    expect(creds.key_type).toBe("ed25519");
    expect(creds.public_key).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(creds.secret).toMatch(/^whsk_\*+$/); // the private key is never answered
    expect(creds.previous_secret).toBe(old);
    const until = Date.parse(creds.previous_secret_invalid_at);

    const got = await publishTo("sig.sw", path);
    expect(got.at).toBeLessThan(until);
    const sigs = String(got.headers["webhook-signature"]).split(" ");
    expect(sigs.map((s) => s.split(",")[0])).toEqual(["v1a", "v1"]);
    expect(standardVerifies(got.headers, got.body, sigs[0], creds.public_key)).toBe(true);
    expect(standardVerifies(got.headers, got.body, sigs[1], old)).toBe(true);
    expect(standardVerifies(got.headers, got.body, sigs[0], `whpk_${randomBytes(32).toString("base64")}`)).toBe(false);

    await sleepUntil(until + 50);
    const late = await publishTo("sig.sw", path);
    const lateSigs = String(late.headers["webhook-signature"]).split(" ");
    expect(lateSigs).toHaveLength(1);
    expect(standardVerifies(late.headers, late.body, lateSigs[0], creds.public_key)).toBe(true);

    // The public key is readable by the tenant; rotating a key pair answers the old public key too.
    const read = await outboundCall(jwt, "GET", `/tenants/${T}/destinations/${created.json.id}`);
    expect(read.json.credentials).toEqual({ secret: creds.secret, key_type: "ed25519", public_key: creds.public_key });
    const again = await outboundCall(admin, "PATCH", `/tenants/${T}/destinations/${created.json.id}`, { credentials: { rotate_secret: true } });
    expect(again.json.credentials.previous_public_key).toBe(creds.public_key);
    expect(again.json.credentials.public_key).not.toBe(creds.public_key);
    expect(again.json.credentials.previous_secret).toMatch(/^whsk_\*+$/);
  }, 40_000);
});
