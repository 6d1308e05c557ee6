import { describe, expect, it } from "vitest";
import { executionOrder } from "@/lib/gateway/connections/rule-order";

const rules = [
  { type: "filter", body: { a: 1 } },
  { type: "delay", delay: 10 },
  { type: "transform", transformation_id: "trs_1" },
  { type: "filter", body: { b: 2 } },
  { type: "transform", transformation_id: "trs_2" },
  { type: "retry", strategy: "linear" },
];

describe("executionOrder", () => {
  it("2025-07-01 – transformations and filters in array order", () => {
    expect(executionOrder(rules, "2025-07-01").steps).toEqual([rules[0], rules[2], rules[3], rules[4]]);
  });
  it("before 2025-07-01 – transformations first, then filters, each in array order", () => {
    for (const v of ["2024-09-01", "2025-01-01"]) expect(executionOrder(rules, v).steps).toEqual([rules[2], rules[4], rules[0], rules[3]]);
  });
  it("delay and retry are settings, not steps", () => {
    expect(executionOrder(rules, "2025-07-01").settings).toEqual([rules[1], rules[5]]);
  });
});
