/**
 * Traces (docs/operations.md "Traces"): OpenTelemetry spans for ingestion, fan-out, deliveries and the
 * outbound publish and dispatch, joined into one trace per request across processes by a W3C `traceparent`
 * stored with the request and its events. On only when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: the SDK is then loaded by {@link startTracing} (a dynamic
 * import, so nothing of it is loaded otherwise); off, {@link tracingEnabled} is false and callers skip
 * span work altogether.
 */
import { type Attributes, type Context, context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { currentLogContext, logActiveSpans } from "@/lib/log";

const state = globalThis as unknown as { __hookyardTracing?: boolean };

/** Whether spans are recorded and exported in this process (startTracing succeeded). */
export function tracingEnabled(): boolean {
  return state.__hookyardTracing === true;
}

/** Whether `env` asks for traces: an OTLP endpoint is set and OTEL_SDK_DISABLED is not true. */
export function tracingRequested(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry SDK for service `serviceName` (OTEL_SERVICE_NAME overrides) when
 * {@link tracingRequested}; the exporter, its protocol (OTEL_EXPORTER_OTLP_PROTOCOL, e.g. `http/json`), the
 * sampler and the batch processor's timing come from the standard OTEL_* variables. Resolves with a
 * function that flushes and stops it (call it before the process exits), or null when tracing is off.
 * Never throws: a failure to start is reported on stderr and leaves tracing off.
 */
export async function startTracing(serviceName: string, env: Record<string, string | undefined> = process.env): Promise<(() => Promise<void>) | null> {
  if (!tracingRequested(env)) return null;
  try {
    const { NodeSDK } = await import("@opentelemetry/sdk-node");
    // Metrics and logs have their own channels (/metrics, stdout): the SDK only exports traces.
    env.OTEL_METRICS_EXPORTER ??= "none";
    env.OTEL_LOGS_EXPORTER ??= "none";
    const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME?.trim() || serviceName, instrumentations: [] });
    sdk.start();
    state.__hookyardTracing = true;
    logActiveSpans(true);
    return async () => {
      state.__hookyardTracing = false;
      logActiveSpans(false);
      await sdk.shutdown().catch(() => {});
    };
  } catch (err) {
    console.error(`[hookyard] tracing could not start (${err instanceof Error ? err.message : String(err)}); going on without it`);
    return null;
  }
}

const tracer = () => trace.getTracer("hookyard");

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The context of a W3C `traceparent` header value (https://www.w3.org/TR/trace-context/#traceparent-header),
 * or `fallback` when it is missing or invalid (version ff, all-zero ids, a future version's extra fields
 * after version 00).
 */
export function contextFromTraceparent(header: string | null | undefined, fallback: Context = ROOT_CONTEXT): Context {
  const m = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!m || m[1] === "ff" || (m[1] === "00" && m[5]) || /^0+$/.test(m[2]) || /^0+$/.test(m[3])) return fallback;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: m[2], spanId: m[3], traceFlags: parseInt(m[4], 16) & 1, isRemote: true });
}

/** The trace id of a `traceparent` header value, or undefined when it is not a valid one. */
export function traceIdOf(header: string | null | undefined): string | undefined {
  return trace.getSpanContext(contextFromTraceparent(header))?.traceId;
}

/** The W3C `traceparent` of `span` (version 00). */
export function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-0${c.traceFlags & 1}`;
}

/** The `traceparent` of the active span, or null when there is none (or tracing is off). */
export function activeTraceparent(): string | null {
  if (!tracingEnabled()) return null;
  const span = trace.getActiveSpan();
  return span && span.spanContext().traceId ? traceparentOf(span) : null;
}

/**
 * Starts span `name` as a child of `parent` (a stored or received `traceparent`; without one, of the active
 * span), with `attributes`. The caller ends it ({@link endSpan}). Only call it when {@link tracingEnabled}.
 */
export function startSpan(name: string, parent: string | null | undefined, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span {
  const span = tracer().startSpan(name, { kind, attributes }, contextFromTraceparent(parent, context.active()));
  // Lines logged during an HTTP request carry its trace id (lib/log.ts), the access log line included.
  const logContext = currentLogContext();
  if (logContext && !logContext.trace_id) logContext.trace_id = span.spanContext().traceId;
  return span;
}

/** Ends `span`, an error status and the exception recorded when `err` is given. */
export function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    const error = err instanceof Error ? err : new Error(typeof err === "string" ? err : JSON.stringify(err));
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  }
  span.end();
}

/**
 * Runs `fn` inside a new span (see {@link startSpan}) that is active meanwhile (so spans and log lines
 * inside it, and the `traceparent` of outgoing deliveries, are its children), and ends it when `fn` settles
 * (recording a thrown error). With tracing off it just runs `fn` with no span.
 */
export async function inSpan<T>(
  name: string,
  parent: string | null | undefined,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!tracingEnabled()) return fn(null);
  const span = startSpan(name, parent, attributes, kind);
  try {
    const result = await context.with(trace.setSpan(context.active(), span), () => fn(span));
    endSpan(span);
    return result;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

export { SpanKind, type Span };
