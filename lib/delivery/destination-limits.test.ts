/** Per-destination in-process ceilings (lib/delivery/destination-limits.ts): the `concurrent` rate limit. */
import { describe, expect, it } from "vitest";
import { acquireDestinationSlot, endedLastSecond, inFlightTo, slotFree } from "@/lib/delivery/destination-limits";

describe("acquireDestinationSlot with rate_limit_period concurrent", () => {
  it("deliveries started together take at most `rate_limit` places; the others wait for a release or give up after 250 ms", async () => {
    const dest = `des_test_${Date.now()}`;
    const config = { rate_limit: 3, rate_limit_period: "concurrent" };
    const started = Date.now();
    const permits = Array.from({ length: 6 }, () => acquireDestinationSlot(dest, config));
    const settled: ({ ok: boolean; at: number } | null)[] = permits.map(() => null);
    permits.forEach((p, i) => void p.then((r) => (settled[i] = { ok: r.ok, at: Date.now() - started })));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled.filter((s) => s?.ok).length).toBe(3);
    expect(inFlightTo(dest)).toBe(3);

    // One release lets exactly one waiter in.
    const first = await permits[0];
    if (!first.ok) throw new Error("expected a permit");
    first.release();
    first.release(); // a second release is a no-op
    await new Promise((r) => setTimeout(r, 20));
    expect(settled.filter((s) => s?.ok).length).toBe(4);
    expect(inFlightTo(dest)).toBe(3);

    // The two still waiting give up after 250 ms with a time to retry.
    const rest = await Promise.all(permits.slice(4));
    const refused = rest.filter((r) => !r.ok);
    expect(refused.length).toBe(2);
    for (const r of refused) if (!r.ok) expect(r.retryAt.getTime()).toBeGreaterThan(Date.now());
    expect(settled.filter((s) => s && !s.ok).every((s) => s!.at >= 240)).toBe(true);
    for (const p of await Promise.all(permits)) if (p.ok) p.release();
    expect(inFlightTo(dest)).toBe(0);
  });
});

describe("slotFree and endedLastSecond: what the dispatch queue reads", () => {
  it("a destination at its ceiling has no free slot; the deliveries that ended count for about a second", async () => {
    const dest = `des_pace_${Date.now()}`;
    const config = { rate_limit: 2, rate_limit_period: "concurrent" };
    expect(slotFree(dest, config)).toBe(true);
    expect(endedLastSecond(dest)).toBe(0);
    const permits = await Promise.all([acquireDestinationSlot(dest, config), acquireDestinationSlot(dest, config)]);
    expect(slotFree(dest, config)).toBe(false);
    expect(slotFree(dest, {})).toBe(true); // DELIVERY_DESTINATION_CONCURRENCY (50) without a concurrent limit
    const now = Date.now();
    for (const p of permits) if (p.ok) p.release();
    expect(slotFree(dest, config)).toBe(true);
    expect(endedLastSecond(dest, now)).toBe(2);
    expect(endedLastSecond(dest, now + 1000)).toBe(2); // the last whole window
    expect(endedLastSecond(dest, now + 2500)).toBe(0); // nothing ended since
  });
});
