import { describe, expect, it } from "vitest";
import { failedFilterParts } from "@/lib/rules/filter";

const request = {
  headers: { "content-type": "application/json", "x-shop": "alpha" },
  body: { type: "order.created", amount: 120, tags: ["a", "b"], customer: { country: "FR" } },
  path: "/hooks/orders",
  query: "mode=live",
  parsed_query: { mode: "live" },
};

describe("failedFilterParts (simple-json-match syntax)", () => {
  it("passes when every given part matches", () => {
    expect(
      failedFilterParts({ type: "filter", body: { type: "order.created", customer: { country: "FR" } }, headers: { "x-shop": "alpha" } }, request),
    ).toEqual([]);
  });
  it("names each part that fails", () => {
    expect(failedFilterParts({ type: "filter", body: { type: "order.deleted" }, query: { mode: "test" }, path: "/hooks/orders" }, request)).toEqual([
      "body",
      "query",
    ]);
  });
  it("supports operators", () => {
    expect(failedFilterParts({ type: "filter", body: { amount: { $gte: 100 } } }, request)).toEqual([]);
    expect(failedFilterParts({ type: "filter", body: { amount: { $lt: 100 } } }, request)).toEqual(["body"]);
    expect(failedFilterParts({ type: "filter", body: { type: { $startsWith: "order." } } }, request)).toEqual([]);
    expect(failedFilterParts({ type: "filter", body: { tags: "b" } }, request)).toEqual([]);
    expect(failedFilterParts({ type: "filter", body: { missing: { $exist: false } } }, request)).toEqual([]);
    expect(failedFilterParts({ type: "filter", body: { $or: [{ amount: 1 }, { amount: 120 }] } }, request)).toEqual([]);
    expect(failedFilterParts({ type: "filter", path: { $endsWith: "/orders" } }, request)).toEqual([]);
  });
});
