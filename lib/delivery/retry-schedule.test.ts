import { describe, expect, it } from "vitest";
import { nextRetryDelay, statusMatches, withJitter } from "@/lib/delivery/retry-schedule";

/** Whether `ms` is `base` ±10 % (the retry jitter), whole ms. */
const inBand = (ms: number | null, base: number) => ms !== null && ms >= Math.floor(base * 0.9) && ms <= Math.ceil(base * 1.1);

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
    const linear = { type: "retry" as const, strategy: "linear" as const, count: 3, interval: 100_000 };
    expect([1, 2, 3].map((n) => inBand(nextRetryDelay(linear, n, 500), 100_000))).toEqual([true, true, true]);
    const exp = { type: "retry" as const, strategy: "exponential" as const, count: 4, interval: 100_000 };
    expect([1, 2, 3, 4].map((n) => nextRetryDelay(exp, n, 500, `evt:${n}`)).map((d, i) => inBand(d, 100_000 * 2 ** i))).toEqual([true, true, true, true]);
    // Doubling is not lost in the jitter: each exponential delay exceeds the previous one.
    expect(nextRetryDelay(exp, 4, 500)! > nextRetryDelay(exp, 3, 500)!).toBe(true);
  });
  it("retries network failures always and statuses only when they match", () => {
    const rule = { type: "retry" as const, count: 5, interval: 10, response_status_codes: ["500-599"] };
    expect(inBand(nextRetryDelay(rule, 1, null), 10)).toBe(true);
    expect(inBand(nextRetryDelay(rule, 1, 502), 10)).toBe(true);
    expect(nextRetryDelay(rule, 1, 404)).toBeNull();
  });
  it("defaults the interval to an hour", () => {
    expect(inBand(nextRetryDelay({ type: "retry", count: 1 }, 1, 500), 3_600_000)).toBe(true);
  });
  it("never waits more than a week, jitter included", () => {
    const rule = { type: "retry" as const, strategy: "exponential" as const, count: 30, interval: 3_600_000 };
    for (let k = 0; k < 50; k++) expect(nextRetryDelay(rule, 20, 500, `k${k}`)).toBeLessThanOrEqual(7 * 24 * 3_600_000);
  });
});

describe("withJitter", () => {
  it("spreads 100 retries of one outage over ±10 %, uniformly, never outside the band", () => {
    const rule = { type: "retry" as const, strategy: "linear" as const, count: 5, interval: 60_000 };
    // 100 events failed by one outage, each scheduling its first retry.
    const delays = Array.from({ length: 100 }, (_, i) => nextRetryDelay(rule, 1, 503, `evt_${i}:1`)!);
    for (const d of delays) expect(d >= 54_000 && d <= 66_000).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(90);
    // Both halves of the band are used (uniform: each holds about half; 30 of 100 would be a 1-in-10^5 draw).
    expect(delays.filter((d) => d < 60_000).length).toBeGreaterThan(30);
    expect(delays.filter((d) => d > 60_000).length).toBeGreaterThan(30);
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(9_000);
  });
  it("gives one key the same delay every time, and never a negative one", () => {
    expect(withJitter(90_000, "evt_a:1")).toBe(withJitter(90_000, "evt_a:1"));
    expect(withJitter(0, "x")).toBe(0);
    expect(withJitter(0)).toBe(0);
    const unkeyed = Array.from({ length: 100 }, () => withJitter(1000));
    for (const d of unkeyed) expect(d >= 900 && d <= 1100).toBe(true);
    expect(new Set(unkeyed).size).toBeGreaterThan(20);
  });
});
