import { describe, expect, it } from "vitest";
import { normalizeOrdering, orderingKeyOf, storedOrdering, ZOrdering } from "@/lib/gateway/delivery/ordering";

const request = (body: unknown, headers: Record<string, string> = {}) => ({ headers, body, path: "/", query: "", parsed_query: {} });

describe('orderingKeyOf (docs/pipeline.md "Ordered delivery")', () => {
  it("takes the key from a body path or a header (any case); a missing value is the empty key", () => {
    const ordering = { key: "body.customer.id", on_exhausted: "skip" } as const;
    expect(orderingKeyOf(ordering, request({ customer: { id: "cus_1" } }))).toBe("cus_1");
    expect(orderingKeyOf(ordering, request({ customer: { id: 42 } }))).toBe("42");
    expect(orderingKeyOf(ordering, request({ customer: { id: { b: 1, a: 2 } } }))).toBe('{"a":2,"b":1}');
    expect(orderingKeyOf(ordering, request({ other: 1 }))).toBe("");
    expect(orderingKeyOf(ordering, request("not json"))).toBe("");
    expect(orderingKeyOf({ key: "headers.X-Key", on_exhausted: "skip" }, request(null, { "x-key": "h1" }))).toBe("h1");
    expect(orderingKeyOf({ key: null, on_exhausted: "block" }, request({ customer: { id: "x" } }))).toBe("");
  });

  it("validates and normalises the setting", () => {
    expect(ZOrdering.safeParse({ key: "body.a[0].b" }).success).toBe(true);
    expect(ZOrdering.safeParse({ key: "query.a" }).success).toBe(false);
    expect(ZOrdering.safeParse({ key: "body" }).success).toBe(false);
    expect(ZOrdering.safeParse({ on_exhausted: "retry" }).success).toBe(false);
    expect(normalizeOrdering({})).toEqual({ key: null, on_exhausted: "skip" });
    expect(normalizeOrdering(null)).toBeNull();
    expect(storedOrdering({ key: "body.a", on_exhausted: "block" })).toEqual({ key: "body.a", on_exhausted: "block" });
    expect(storedOrdering(null)).toBeNull();
  });
});
