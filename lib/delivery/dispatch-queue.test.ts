import { describe, expect, it } from "vitest";
import { BurstPacer } from "@/lib/delivery/dispatch-queue";

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
