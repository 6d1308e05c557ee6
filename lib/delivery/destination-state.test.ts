/** Pure parts of lib/delivery/destination-state.ts: Retry-After parsing and its cap, the cool-down schedule, the API view. */
import { describe, expect, it } from "vitest";
import { cooldownMs, retryAfterMs, toDeliveryStateView } from "@/lib/delivery/destination-state";

describe("retryAfterMs", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads seconds and HTTP dates", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 5 ", now)).toBe(5_000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
  });
  it("is at least 1 s (0 and past dates cannot loop) and at most DELIVERY_RETRY_AFTER_MAX_MS (1 h)", () => {
    expect(retryAfterMs("0", now)).toBe(1_000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(1_000);
    expect(retryAfterMs("999999999", now)).toBe(3_600_000);
    expect(retryAfterMs("Fri, 01 Jan 2100 00:00:00 GMT", now)).toBe(3_600_000);
  });
  it("is null for anything else (the answer is an ordinary failure)", () => {
    for (const v of [undefined, null, "", "soon", "-5", "1.5", "12 s"]) expect(retryAfterMs(v, now)).toBeNull();
  });
});

describe("cooldownMs", () => {
  it("starts at DELIVERY_BREAKER_COOLDOWN_MS (5 s), doubles per opening in a row, up to DELIVERY_BREAKER_COOLDOWN_MAX_MS (5 min)", () => {
    expect([1, 2, 3, 4, 7, 100].map(cooldownMs)).toEqual([5_000, 10_000, 20_000, 40_000, 300_000, 300_000]);
  });
});

describe("toDeliveryStateView", () => {
  it("shows a pause only while it lasts, and when an open breaker may probe", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const row = {
      product: "gateway" as const,
      destination_id: "des_x",
      owner_id: "team_x",
      paused_until: new Date(now - 1),
      pause_reason: "429",
      pace: 3,
      pace_origin: 12,
      pace_changed_at: new Date(now),
      throttled: 0,
      breaker_state: "open" as const,
      breaker_changed_at: new Date(now),
      breaker_openings: 2,
      probe_until: null,
      window_attempts: 0,
      window_failures: 0,
    };
    expect(toDeliveryStateView(row, now)).toEqual({
      paused_until: null,
      pause_reason: null,
      pace: 3,
      circuit: { state: "open", changed_at: "2026-01-01T00:00:00.000Z", next_probe_at: "2026-01-01T00:00:10.000Z" },
    });
    expect(toDeliveryStateView({ ...row, paused_until: new Date(now + 5_000) }, now)).toMatchObject({
      paused_until: "2026-01-01T00:00:05.000Z",
      pause_reason: "429",
    });
  });
});
