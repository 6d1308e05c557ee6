import { describe, expect, it } from "vitest";
import { nextRetryDelay, statusMatches } from "@/lib/delivery/retry-schedule";

describe("statusMatches", () => {
  it("matches every non-2xx without codes", () => {
    expect(statusMatches(500, undefined)).toBe(true);
    expect(statusMatches(404, [])).toBe(true);
    expect(statusMatches(204, null)).toBe(false);
  });
  it("takes ranges, comparisons, single codes and exclusions", () => {
    const codes = ["500-599", ">=429", "404", "!503"];
    expect(statusMatches(500, codes)).toBe(true);
    expect(statusMatches(503, codes)).toBe(false);
    expect(statusMatches(404, codes)).toBe(true);
    expect(statusMatches(429, codes)).toBe(true);
    expect(statusMatches(400, codes)).toBe(false);
    expect(statusMatches(401, [">400"])).toBe(true);
    expect(statusMatches(400, [">400"])).toBe(false);
    expect(statusMatches(299, ["<=299"])).toBe(true);
    expect(statusMatches(300, ["<300"])).toBe(false);
  });
  it("with only exclusions, matches the other failures", () => {
    expect(statusMatches(401, ["!401"])).toBe(false);
    expect(statusMatches(500, ["!401"])).toBe(true);
    expect(statusMatches(200, ["!401"])).toBe(false);
  });
});

describe("nextRetryDelay", () => {
  it("gives no retry without a rule or past its count", () => {
    expect(nextRetryDelay(null, 1, 500)).toBeNull();
    expect(nextRetryDelay({ type: "retry", count: 2, interval: 100 }, 3, 500)).toBeNull();
    expect(nextRetryDelay({ type: "retry", count: 0, interval: 100 }, 1, 500)).toBeNull();
  });
  it("waits the interval with linear and doubles with exponential", () => {
    const linear = { type: "retry" as const, strategy: "linear" as const, count: 3, interval: 100 };
    expect([1, 2, 3].map((n) => nextRetryDelay(linear, n, 500))).toEqual([100, 100, 100]);
    const exp = { type: "retry" as const, strategy: "exponential" as const, count: 4, interval: 100 };
    expect([1, 2, 3, 4].map((n) => nextRetryDelay(exp, n, 500))).toEqual([100, 200, 400, 800]);
  });
  it("retries network failures always and statuses only when they match", () => {
    const rule = { type: "retry" as const, count: 5, interval: 10, response_status_codes: ["500-599"] };
    expect(nextRetryDelay(rule, 1, null)).toBe(10);
    expect(nextRetryDelay(rule, 1, 502)).toBe(10);
    expect(nextRetryDelay(rule, 1, 404)).toBeNull();
  });
  it("defaults the interval to an hour", () => {
    expect(nextRetryDelay({ type: "retry", count: 1 }, 1, 500)).toBe(3_600_000);
  });
});
