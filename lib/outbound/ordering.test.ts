import { describe, expect, it } from "vitest";
import { MAX_KEY_LENGTH, outboundOrderingKey, ZOutboundOrdering } from "@/lib/outbound/ordering";

const event = {
  topic: "order.paid",
  metadata: { account: "acc_1" },
  data: { customer: { id: "cus_1" }, items: [{ sku: 7 }], flag: true, nested: { b: 1, a: 2 } },
};
const key = (path: string | null) => outboundOrderingKey({ key: path, on_exhausted: "skip" }, event);

describe('outbound ordering keys (docs/outbound.md "Ordered delivery")', () => {
  it("takes the topic, a metadata entry or a data path; values as text, objects as canonical JSON, a missing value as the empty key", () => {
    expect(key(null)).toBe("");
    expect(key("topic")).toBe("order.paid");
    expect(key("metadata.account")).toBe("acc_1");
    expect(key("metadata.absent")).toBe("");
    expect(key("data.customer.id")).toBe("cus_1");
    expect(key("data.items[0].sku")).toBe("7");
    expect(key("data.flag")).toBe("true");
    expect(key("data.nested")).toBe('{"a":2,"b":1}');
    expect(key("data.absent.deeper")).toBe("");
  });

  it("keeps a key longer than MAX_KEY_LENGTH as the SHA-256 of its text", () => {
    const long = outboundOrderingKey({ key: "data.k", on_exhausted: "skip" }, { topic: "", metadata: {}, data: { k: "x".repeat(MAX_KEY_LENGTH + 1) } });
    expect(long).toMatch(/^sha256:[0-9a-f]{64}$/);
    const exact = outboundOrderingKey({ key: "data.k", on_exhausted: "skip" }, { topic: "", metadata: {}, data: { k: "x".repeat(MAX_KEY_LENGTH) } });
    expect(exact).toBe("x".repeat(MAX_KEY_LENGTH));
  });

  it("accepts topic, metadata.<name> and data.<path> only", () => {
    for (const ok of ["topic", "metadata.account", "data.a", "data.items[0].sku", null])
      expect(ZOutboundOrdering.safeParse({ key: ok }).success, String(ok)).toBe(true);
    for (const bad of ["data", "metadata", "body.a", "headers.x", "topic.x", "id", "metadata.a.b"])
      expect(ZOutboundOrdering.safeParse({ key: bad }).success, bad).toBe(false);
    expect(ZOutboundOrdering.safeParse({ on_exhausted: "later" }).success).toBe(false);
  });
});
