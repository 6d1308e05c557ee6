/**
 * The HTTP request a delivery sends (lib/delivery/outgoing.ts buildOutgoingRequest): signatures are
 * always over the bytes sent, also when the destination's `http_method` sends no body.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { APPENDED_HEADERS, buildOutgoingRequest, type EventDelivery } from "@/lib/delivery/outgoing";

const hmac = (secret: string, body: Buffer | string) => createHmac("sha256", secret).update(body).digest("base64");

function delivery(config: Record<string, unknown>, auth: Record<string, unknown> | null = null): EventDelivery {
  return {
    eventId: "evt_1",
    requestId: "req_1",
    attemptId: "atm_1",
    attemptNumber: 1,
    trigger: "INITIAL",
    sourceName: "s",
    connectionName: "c",
    destinationName: "d",
    verified: true,
    clientIp: null,
    method: "POST",
    path: "/orders",
    query: "x=1",
    headers: { "content-type": "application/json", "x-custom": "1" },
    body: Buffer.from('{"order":42}'),
    destination: { type: "HTTP", config: { url: "https://example.test/hooks", ...config }, auth },
    secrets: { current: "now", previous: "before" },
  };
}

describe("buildOutgoingRequest", () => {
  it("signs the body it sends (gateway signature, the previous secret's, and a custom signature)", () => {
    const out = buildOutgoingRequest(delivery({ auth_type: "CUSTOM_SIGNATURE" }, { key: "X-Sig", signing_secret: "own" }));
    expect(out).toMatchObject({ method: "POST", url: "https://example.test/hooks/orders?x=1" });
    expect(out.body?.toString()).toBe('{"order":42}');
    expect(out.headers["x-gateway-signature"]).toBe(hmac("now", '{"order":42}'));
    expect(out.headers["x-gateway-signature-2"]).toBe(hmac("before", '{"order":42}'));
    expect(out.headers["x-sig"]).toBe(hmac("own", '{"order":42}'));
    expect(out.headers["content-type"]).toBe("application/json");
  });

  it("adds the reference's delivery headers: accept when the request had none, the event URL, and when a retry would follow", () => {
    const d = { ...delivery({}), eventUrl: "http://h/api/2025-07-01/events/evt_1", willRetryAfterS: 60 };
    const out = buildOutgoingRequest(d);
    expect(out.headers).toMatchObject({
      accept: "application/json, text/plain, */*",
      "x-gateway-event-url": d.eventUrl,
      "x-gateway-will-retry-after": "60",
      "idempotency-key": "evt_1",
    });
    expect(buildOutgoingRequest({ ...d, willRetryAfterS: null }).headers["x-gateway-will-retry-after"]).toBe("");
    expect(buildOutgoingRequest({ ...d, headers: { accept: "text/csv" } }).headers.accept).toBe("text/csv");
    for (const name of APPENDED_HEADERS) expect(out.headers, name).toHaveProperty(name);
  });

  it("an http_method GET sends no body: its signatures are over the empty body and it has no content-type", () => {
    const out = buildOutgoingRequest(delivery({ http_method: "GET", auth_type: "CUSTOM_SIGNATURE" }, { key: "X-Sig", signing_secret: "own" }));
    expect(out.method).toBe("GET");
    expect(out.body).toBeNull();
    expect(out.headers["x-gateway-signature"]).toBe(hmac("now", ""));
    expect(out.headers["x-gateway-signature-2"]).toBe(hmac("before", ""));
    expect(out.headers["x-sig"]).toBe(hmac("own", ""));
    expect(out.headers["content-type"]).toBeUndefined();
    expect(out.headers["x-gateway-original-method"]).toBe("POST");
    expect(out.headers["x-custom"]).toBe("1");
  });
});
