import { describe, expect, it } from "vitest";
import { BurstPacer } from "@/lib/delivery/pacing";

describe("BurstPacer: deliveries while ingestion is saturated", () => {
  it("never slows down without a saturation report", () => {
    const pacer = new BurstPacer(() => 1000);
    for (let i = 0; i < 10_000; i++) expect(pacer.take(i / 100)).toBe(0);
  });

  it("starts at most `rate` deliveries per second while reports keep coming", () => {
    const pacer = new BurstPacer(() => 1000);
    let started = 0;
    for (let now = 0; now < 2000; now++) {
      if (now % 250 === 0) pacer.note(now);
      while (pacer.take(now) === 0) started++;
    }
    expect(started).toBeGreaterThanOrEqual(1950); // permits come 50 at a time, the first after 50 ms
    expect(started).toBeLessThanOrEqual(2050);
  });

  it("hands out permits a chunk (50 ms worth) at a time, and goes back to full speed once reports stop", () => {
    const pacer = new BurstPacer(() => 100);
    expect(pacer.chunk()).toBe(5);
    pacer.note(0);
    expect(pacer.take(0)).toBe(50); // the bucket starts empty: wait for a whole chunk
    expect(pacer.take(20)).toBe(30);
    for (let i = 0; i < 5; i++) expect(pacer.take(50)).toBe(0);
    expect(pacer.take(50)).toBe(50);
    expect(pacer.active(499)).toBe(true);
    expect(pacer.active(500)).toBe(false);
    expect(pacer.take(500)).toBe(0);
    expect(pacer.take(500)).toBe(0);
  });

  it("a rate of 0 turns pacing off", () => {
    const pacer = new BurstPacer(() => 0);
    pacer.note(0);
    expect(pacer.active(1)).toBe(false);
    expect(pacer.take(1)).toBe(0);
  });
});

describe("BurstPacer: ingestion first only for a bounded time", () => {
  /** Deliveries started in [from, to) ms with a report every 250 ms from `reportsFrom` to `reportsTo`. */
  function startsPerWindow(pacer: BurstPacer, reportsFrom: number, reportsTo: number, windows: [number, number][]) {
    const counts = windows.map(() => 0);
    const end = Math.max(...windows.map(([, to]) => to));
    for (let now = 0; now < end; now++) {
      if (now >= reportsFrom && now < reportsTo && (now - reportsFrom) % 250 === 0) pacer.note(now);
      // At most 20 starts per ms: "full speed" is 20,000/s.
      for (let n = 0; n < 20 && pacer.take(now) === 0; n++) windows.forEach(([from, to], i) => (counts[i] += now >= from && now < to ? 1 : 0));
    }
    return counts;
  }

  it("slows starts for the first WORKER_BURST_MAX_MS of a pressure episode, then runs at full speed while it lasts", () => {
    const pacer = new BurstPacer(
      () => 100,
      () => 3000,
    );
    const [first, later] = startsPerWindow(pacer, 0, 20_000, [
      [0, 3000],
      [4000, 20_000],
    ]);
    expect(first).toBeGreaterThanOrEqual(280); // ~100/s for 3 s
    expect(first).toBeLessThanOrEqual(310);
    expect(later).toBe(16_000 * 20); // never slowed again while the same episode lasts
    expect(pacer.active(19_999)).toBe(false);
  });

  it("a new episode needs 10 s without reports; reports closer than that stay one (already unslowed) episode", () => {
    const pacer = new BurstPacer(
      () => 100,
      () => 1000,
    );
    pacer.note(0);
    expect(pacer.active(400)).toBe(true);
    pacer.note(1200);
    expect(pacer.active(1200)).toBe(false); // the episode has lasted its second
    pacer.note(9000); // 7.8 s after the last report: same episode
    expect(pacer.active(9000)).toBe(false);
    pacer.note(19_100); // 10.1 s of quiet: a new burst, slowed again
    expect(pacer.active(19_100)).toBe(true);
    expect(pacer.active(19_700)).toBe(false); // the report's hold (500 ms) ended
  });

  it("WORKER_BURST_MAX_MS=0 never slows down", () => {
    const pacer = new BurstPacer(
      () => 100,
      () => 0,
    );
    pacer.note(0);
    expect(pacer.active(0)).toBe(false);
    expect(pacer.take(1)).toBe(0);
  });
});
