/**
 * Outbound transformations without a server (docs/outbound.md "Transformations"): the save-time check
 * of the code, and what a run changes for a type that is not HTTP (body and metadata only; path ignored)
 * and for an HTTP type (headers, path and query on the configured origin; bad header names refused; an
 * unchanged body keeps its bytes). The sandbox and its pool are the real ones.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeSandboxPool } from "@/lib/rules/sandbox-pool";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import type { Claimed, OutboundDelivery } from "@/lib/outbound/destination-types/type";
import { metadataOf } from "@/lib/outbound/destination-types/type";
import { applyTransformation, checkTransformationCode } from "@/lib/outbound/transformation";

afterAll(() => closeSandboxPool());

const claimed = (data: string): Claimed => ({
  event_id: "evt_1",
  destination_id: "des_1",
  tenant_id: "t1",
  attempts: 0,
  manual: false,
  locked_until: new Date(),
  topic: "order.created",
  time: new Date("2026-11-26T10:00:00Z"),
  eligible_for_retry: true,
  metadata: { region: "eu" },
  data: Buffer.from(data),
  type: null,
  config: null,
  credentials_encrypted: null,
  delivery_metadata: null,
  rate_limit: null,
  rate_limit_period: null,
  disabled_at: null,
  deleted: false,
  orphan: false,
  trace_parent: null,
});

describe("checkTransformationCode", () => {
  it("accepts code that registers its handler, without calling it", async () => {
    expect(await checkTransformationCode('addHandler("transform", (r) => { throw new Error("only on events"); });')).toEqual([]);
  });
  it("names a syntax error, a missing handler and a top-level throw", async () => {
    expect((await checkTransformationCode("addHandler(")).join()).toMatch(/^transformation: SyntaxError/);
    expect(await checkTransformationCode("// nothing")).toEqual(['transformation: the code never calls addHandler("transform", (request, context) => …)']);
    expect(await checkTransformationCode('throw new RangeError("bad")')).toEqual(["transformation: RangeError: bad"]);
  });
});

describe("applyTransformation", () => {
  it("a broker type: headers are the metadata, the answer replaces them and the body; path and query are ignored", async () => {
    const type = OUTBOUND_DESTINATION_TYPES.get("rabbitmq");
    const d: OutboundDelivery = { claimed: claimed('{"n": 1}'), config: {}, credentials: {} };
    const applied = await applyTransformation(
      type,
      d,
      `addHandler("transform", (r, ctx) => ({ headers: { ...r.headers, kind: ctx.destination.type, seen: String(r.path === "") }, body: "n=" + r.body.n, path: "/x" }));`,
      { whenBusy: "queue", forStorage: true },
    );
    if (!applied.ok) throw new Error(applied.output.error);
    expect(applied.delivery.claimed.data.toString()).toBe("n=1");
    expect(metadataOf(applied.delivery.claimed)).toEqual({
      "event-id": "evt_1",
      topic: "order.created",
      timestamp: "2026-11-26T10:00:00Z",
      region: "eu",
      kind: "rabbitmq",
      seen: "true",
    });
    expect(applied.delivery.request).toBeUndefined();
    expect(applied.output.request).toEqual({ headers: metadataOf(applied.delivery.claimed), body: "n=1" });
  });

  it("a webhook: path and query change on the configured origin, sender headers are dropped, an unchanged body keeps its bytes", async () => {
    const type = OUTBOUND_DESTINATION_TYPES.get("webhook");
    const d: OutboundDelivery = { claimed: claimed('{ "n":  1 }'), config: { url: "https://example.com/hooks?a=1" }, credentials: {} };
    const applied = await applyTransformation(
      type,
      d,
      `addHandler("transform", (r) => { r.headers.host = "evil.test"; r.headers["x-a"] = r.query; r.path = "v2/" + r.path; r.query = ""; return r; });`,
      { whenBusy: "queue", forStorage: true },
    );
    if (!applied.ok) throw new Error(applied.output.error);
    expect(applied.delivery.request?.url).toBe("https://example.com/v2//hooks");
    expect(applied.delivery.request?.headers).toMatchObject({ "x-a": "a=1", "x-outbound-event-id": "evt_1" });
    expect(applied.delivery.request?.headers.host).toBeUndefined();
    expect(applied.delivery.claimed.data.toString()).toBe('{ "n":  1 }');

    const bad = await applyTransformation(type, d, `addHandler("transform", (r) => { r.headers["bad header"] = "x"; return r; });`, {
      whenBusy: "queue",
      forStorage: true,
    });
    expect(bad.ok).toBe(false);
    expect(bad.output.error).toBe('The returned header name "bad header" is not a valid HTTP header name');
  });
});
