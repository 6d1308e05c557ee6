/**
 * lib/observability/metrics.ts without a server: label values of the HTTP series, delivery outcomes, the
 * queue sampler's cache and failures, and the bearer check (docs/operations.md "Metrics and health").
 */
import { describe, expect, it } from "vitest";
import { bearerMatches } from "@/lib/observability/endpoints";
import { metricsText, recordDelivery, recordHttpRequest, setQueueSampler } from "@/lib/observability/metrics";

/** The value of the one sample line `name{labels}` in the current exposition (0 when absent). */
async function sample(name: string, labels: string): Promise<number> {
  const line = (await metricsText()).body.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line ? Number(line.split(" ").pop()) : 0;
}

describe("lib/observability/metrics", () => {
  it("counts HTTP answers by surface, method (unusual ones as other) and status, and observes their durations", async () => {
    const before = await sample("hookyard_http_requests_total", 'surface="portal",method="other",status="499"');
    const countBefore = await sample("hookyard_http_request_duration_seconds_count", 'surface="portal"');
    recordHttpRequest("portal", "PROPFIND", 499, 0.2);
    recordHttpRequest("portal", "BREW", 499, 0.3);
    recordHttpRequest("portal", "GET", 200, 0.01);
    expect(await sample("hookyard_http_requests_total", 'surface="portal",method="other",status="499"')).toBe(before + 2);
    expect(await sample("hookyard_http_requests_total", 'surface="portal",method="GET",status="200"')).toBeGreaterThanOrEqual(1);
    expect(await sample("hookyard_http_request_duration_seconds_count", 'surface="portal"')).toBe(countBefore + 3);
    expect(await sample("hookyard_http_request_duration_seconds_bucket", 'le="0.25",surface="portal"')).toBeGreaterThanOrEqual(2);
  });

  it("counts deliveries by product and outcome; attempts that sent nothing are not timed", async () => {
    recordDelivery("outbound", "error", null);
    recordDelivery("outbound", "failed", 1500);
    expect(await sample("hookyard_deliveries_total", 'product="outbound",outcome="error"')).toBe(1);
    expect(await sample("hookyard_deliveries_total", 'product="outbound",outcome="failed"')).toBe(1);
    expect(await sample("hookyard_deliveries_total", 'product="outbound",outcome="success"')).toBe(0);
    expect(await sample("hookyard_delivery_duration_seconds_count", 'product="outbound"')).toBe(1);
    expect(await sample("hookyard_delivery_duration_seconds_sum", 'product="outbound"')).toBe(1.5);
  });

  it("reads the queues once per 2 s however often it is scraped, and shows no queue samples when the sampler fails", async () => {
    let calls = 0;
    setQueueSampler(() => {
      calls++;
      return Promise.resolve({ depth: [{ product: "gateway", state: "due", count: 7 }], oldestSeconds: [{ product: "gateway", seconds: 3.5 }] });
    });
    expect(await sample("hookyard_queue_depth", 'product="gateway",state="due"')).toBe(7);
    expect(await sample("hookyard_oldest_pending_seconds", 'product="gateway"')).toBe(3.5);
    await metricsText();
    expect(calls).toBe(1);
    setQueueSampler(() => Promise.reject(new Error("database away")));
    const text = (await metricsText()).body;
    expect(text).toContain("# TYPE hookyard_queue_depth gauge");
    expect(text).not.toMatch(/^hookyard_queue_depth\{/m);
    expect(text).not.toMatch(/^hookyard_oldest_pending_seconds\{/m);
    setQueueSampler(null);
  });

  it("bearerMatches: only `Bearer <token>` of a configured token", () => {
    expect(bearerMatches("Bearer 0123456789abcdef", "0123456789abcdef")).toBe(true);
    expect(bearerMatches("bearer  0123456789abcdef ", "0123456789abcdef")).toBe(true);
    for (const header of [undefined, "", "0123456789abcdef", "Basic 0123456789abcdef", "Bearer 0123456789abcde", "Bearer 0123456789abcdefg"]) {
      expect(bearerMatches(header, "0123456789abcdef"), String(header)).toBe(false);
    }
    expect(bearerMatches("Bearer anything", undefined)).toBe(false);
  });
});
