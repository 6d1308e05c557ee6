/**
 * The live-update payload (lib/ingest/request-notifier.ts): source ids first, then source/request pairs; a reader
 * that matches whole source ids (as older processes do) still finds every source; too many pairs are left out.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseRequestsPayload, requestsPayload, throttle } from "@/lib/ingest/request-notifier";

it("names each source, then each committed request of it; parsing gives them back", () => {
  const payload = requestsPayload(
    new Map([
      ["src_a", ["req_1", "req_2"]],
      ["src_b", ["req_3"]],
    ]),
  );
  expect(payload).toBe("src_a,src_b,src_a/req_1,src_a/req_2,src_b/req_3");
  // An older reader's test: whole items equal to the source id.
  expect(payload.split(",").includes("src_b")).toBe(true);
  expect(parseRequestsPayload(payload)).toEqual({
    all: false,
    sources: new Map([
      ["src_a", ["req_1", "req_2"]],
      ["src_b", ["req_3"]],
    ]),
  });
});

it("leaves the request ids out when they do not fit, and says '*' when the sources do not either", () => {
  const many = new Map([["src_a", Array.from({ length: 1000 }, (_, n) => `req_${String(n).padStart(20, "0")}`)]]);
  expect(requestsPayload(many)).toBe("src_a");
  expect(parseRequestsPayload("src_a")).toEqual({ all: false, sources: new Map([["src_a", []]]) });
  const sources = new Map(Array.from({ length: 400 }, (_, n) => [`src_${String(n).padStart(22, "0")}`, ["req_1"]]));
  expect(requestsPayload(sources)).toBe("*");
  expect(parseRequestsPayload("*")).toEqual({ all: true });
});

describe("throttle (the notification's schedule)", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("runs a lone call at the next turn, then at most once per window, joining the calls made meanwhile", () => {
    const at: number[] = [];
    const start = Date.now();
    const schedule = throttle(() => at.push(Date.now() - start), 20);
    schedule();
    schedule();
    expect(at).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(at).toEqual([0]);
    // Within the window: one call, when the window ends, for all three.
    vi.advanceTimersByTime(5);
    schedule();
    schedule();
    vi.advanceTimersByTime(3);
    schedule();
    vi.advanceTimersByTime(11);
    expect(at).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(at).toEqual([0, 20]);
    // After a quiet window: at once again.
    vi.advanceTimersByTime(50);
    schedule();
    vi.advanceTimersByTime(0);
    expect(at).toEqual([0, 20, 70]);
  });
});
