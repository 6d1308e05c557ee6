import { describe, expect, it } from "vitest";
import { dedupDigest, rawDedupDigest } from "@/lib/gateway/pipeline/deduplicate";

const req = (body: unknown, headers: Record<string, string> = {}) => ({ headers, body, path: "/", query: "", parsed_query: {} });

describe("dedupDigest", () => {
  it("compares the whole event by default, with key order ignored", () => {
    const rule = { type: "deduplicate" as const, window: 60 };
    expect(dedupDigest(rule, req({ a: 1, b: 2 }))).toBe(dedupDigest(rule, req({ b: 2, a: 1 })));
    expect(dedupDigest(rule, req({ a: 1 }))).not.toBe(dedupDigest(rule, req({ a: 2 })));
    expect(dedupDigest(rule, req({ a: 1 }, { "x-id": "1" }))).not.toBe(dedupDigest(rule, req({ a: 1 }, { "x-id": "2" })));
  });
  it("compares only include_fields when given", () => {
    const rule = { type: "deduplicate" as const, window: 60, include_fields: ["body.id", "body.items[*].sku"] };
    expect(dedupDigest(rule, req({ id: 7, t: 1, items: [{ sku: "a", q: 1 }] }))).toBe(dedupDigest(rule, req({ id: 7, t: 2, items: [{ sku: "a", q: 9 }] })));
    expect(dedupDigest(rule, req({ id: 7, items: [{ sku: "a" }] }))).not.toBe(dedupDigest(rule, req({ id: 8, items: [{ sku: "a" }] })));
    expect(dedupDigest(rule, req({ id: 7, items: [{ sku: "a" }] }))).not.toBe(dedupDigest(rule, req({ id: 7, items: [{ sku: "b" }] })));
  });
  it("drops exclude_fields from the comparison", () => {
    const rule = { type: "deduplicate" as const, window: 60, exclude_fields: ["headers", "body.sent_at", "body.list[0]"] };
    expect(dedupDigest(rule, req({ id: 1, sent_at: 1, list: [1, 2] }, { a: "1" }))).toBe(
      dedupDigest(rule, req({ id: 1, sent_at: 2, list: [9, 2] }, { a: "2" })),
    );
    expect(dedupDigest(rule, req({ id: 1, list: [1, 2] }))).not.toBe(dedupDigest(rule, req({ id: 1, list: [1, 3] })));
  });
  it("with both, compares the included fields minus the excluded paths inside them", () => {
    const rule = { type: "deduplicate" as const, window: 60, include_fields: ["body.order"], exclude_fields: ["body.order.sent_at"] };
    expect(dedupDigest(rule, req({ order: { id: 1, sent_at: 1 }, other: 1 }))).toBe(dedupDigest(rule, req({ order: { id: 1, sent_at: 2 }, other: 2 })));
    expect(dedupDigest(rule, req({ order: { id: 1, sent_at: 1 } }))).not.toBe(dedupDigest(rule, req({ order: { id: 2, sent_at: 1 } })));
  });
});

describe("rawDedupDigest", () => {
  it("compares the raw data when the parsed request cannot be compared (nested too deep)", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const raw = (body: string, path = "/") => ({ path, query: "a=1", headers: { "x-id": "1" }, body: Buffer.from(body) });
    expect(() => dedupDigest({ type: "deduplicate", window: 60 }, req(JSON.parse(deep)))).toThrow(RangeError);
    expect(rawDedupDigest(raw(deep))).toBe(rawDedupDigest(raw(deep)));
    expect(rawDedupDigest(raw(deep))).not.toBe(rawDedupDigest(raw(deep, "/other")));
    expect(rawDedupDigest(raw(deep))).not.toBe(rawDedupDigest(raw(`${deep} `)));
    expect(rawDedupDigest({ ...raw(""), body: null })).toMatch(/^[0-9a-f]{64}$/);
  });
});
