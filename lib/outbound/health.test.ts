import { describe, expect, it } from "vitest";
import { overall, workerStatus } from "@/lib/outbound/health";
import type { PartState } from "@/lib/supervisor";

const part = (state: PartState) => ({ state, restarts: 0, last_exit: null, pid: null });

describe("outbound worker states (healthy, degraded, failed)", () => {
  it("up is healthy; failing within the restart budget is degraded; past it, failed; recovery is healthy again", () => {
    expect(workerStatus(part("up"), false)).toBe("healthy");
    expect(workerStatus(part("restarting"), false)).toBe("degraded");
    expect(workerStatus(part("starting"), true)).toBe("degraded");
    expect(workerStatus(part("down"), true)).toBe("failed");
    expect(workerStatus(part("stopped"), true)).toBe("failed");
  });

  it("a worker run apart (not supervised here) is judged by its presence connection", () => {
    expect(workerStatus(null, true)).toBe("healthy");
    expect(workerStatus(part("disabled"), false)).toBe("failed");
  });

  it("200 while none failed (degraded if one is), 503 when one failed", () => {
    expect(overall({ a: { status: "healthy" }, b: { status: "healthy" } })).toEqual({ status: "healthy", http: 200 });
    expect(overall({ a: { status: "healthy" }, b: { status: "degraded" } })).toEqual({ status: "degraded", http: 200 });
    expect(overall({ a: { status: "degraded" }, b: { status: "failed" } })).toEqual({ status: "failed", http: 503 });
  });
});
