import { spawnSync } from "node:child_process";
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { contextFromTraceparent, startTracing, traceIdOf, tracingEnabled, tracingRequested } from "@/lib/tracing";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";

describe("tracing", () => {
  it("is requested only by an OTLP endpoint, and OTEL_SDK_DISABLED wins", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
  });

  it("reads W3C traceparent values and refuses invalid ones", () => {
    const parent = trace.getSpanContext(contextFromTraceparent(`00-${TRACE}-${SPAN}-01`));
    expect(parent).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
    expect(traceIdOf(` 00-${TRACE.toUpperCase()}-${SPAN}-00 `)).toBe(TRACE);
    // A later version may add fields; version 00 may not.
    expect(traceIdOf(`01-${TRACE}-${SPAN}-01-extra`)).toBe(TRACE);
    for (const bad of [
      undefined,
      "",
      `00-${TRACE}-${SPAN}-01-extra`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE}-${SPAN}`,
      "garbage",
    ])
      expect(traceIdOf(bad), String(bad)).toBeUndefined();
  });

  it("loads no SDK and stays off without an endpoint", async () => {
    expect(await startTracing("hookyard-test", {})).toBeNull();
    expect(tracingEnabled()).toBe(false);
    // In a fresh process, whose module hooks list every @opentelemetry package resolved: only the API is loaded
    // by the hot path's modules and startTracing when no endpoint is set; the SDK's packages with one.
    const script = `import { registerHooks } from "node:module";
      const seen = new Set();
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); const m = /@opentelemetry\\/([^/]+)/.exec(r.url); if (m) seen.add(m[1]); return r; } });
      await import("./lib/ingest/ingest.ts"); await import("./lib/delivery/http-sender.ts");
      const { startTracing } = await import("./lib/tracing.ts");
      const stop = await startTracing("x", { OTEL_EXPORTER_OTLP_ENDPOINT: process.argv[1] });
      console.log(JSON.stringify([...seen])); await stop?.();`;
    const loaded = (endpoint: string) => {
      const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, endpoint], { encoding: "utf8" });
      expect(r.stderr).toBe("");
      return JSON.parse(r.stdout.trim().split("\n").pop()!) as string[];
    };
    expect(loaded("")).toEqual(["api"]);
    expect(loaded("http://127.0.0.1:9")).toContain("sdk-node");
  });
});
