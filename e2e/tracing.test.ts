/**
 * Traces (docs/operations.md "Traces"): a server of its own (on a database of its own, so no other
 * worker takes its deliveries) exports OTLP/HTTP JSON to a local collector; a gateway request and an
 * outbound publish, each sent with a traceparent, give one trace each, across the web and worker
 * processes, and the destinations receive the attempt span's traceparent.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startReceiver, type Receiver } from "./support/receiver";
import { privateDatabase, type RunningServer, startServer } from "./support/servers";

type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string; service: string; attributes: Record<string, unknown> };

const spans: Span[] = [];
let collector: http.Server;
let receiver: Receiver;
let server: RunningServer;
let db: Awaited<ReturnType<typeof privateDatabase>>;
const API_KEY = "hky_tracing_test_key_0123456789";
const OUTBOUND_KEY = "hko_tracing_test_key_0123456789";

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** A plain HTTP server that keeps the spans of every OTLP/HTTP JSON export it receives. */
async function startCollector(): Promise<http.Server> {
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)["service.name"]);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                service,
                attributes: attributesOf(s.attributes),
              });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return srv;
}

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const find = (traceId: string, name: string) => spans.filter((s) => s.traceId === traceId && s.name === name);

beforeAll(async () => {
  collector = await startCollector();
  receiver = await startReceiver();
  db = await privateDatabase("tracing");
  server = await startServer({
    DATABASE_URL: db.url,
    GATEWAY_API_KEY: API_KEY,
    OUTBOUND_API_KEY: OUTBOUND_KEY,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await db?.drop();
  await receiver?.close();
  collector?.close();
});

describe("traces", () => {
  it("a gateway request: ingest (child of the sender's span), fan-out, delivery attempt; the destination gets the attempt's traceparent", async () => {
    const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    const res = await fetch(`${server.url}/api/2025-07-01/connections`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "traced", source: { name: "traced-src" }, destination: { name: "traced-dst", config: { url: `${receiver.url}/hook` } } }),
    });
    expect(res.status).toBe(200);
    const connection = (await res.json()) as { source: { url: string }; destination: { id: string } };
    const traceId = hex(32);
    const senderSpan = hex(16);
    const sent = await fetch(`${connection.source.url}/orders?token=query-secret-value`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${traceId}-${senderSpan}-01`, "x-request-id": "trace-test-1" },
      body: '{"type":"traced"}',
    });
    expect(sent.status).toBe(200);
    const [delivered] = await receiver.waitFor(1, 20_000);

    const [ingest, fanout, attempt] = await eventually(() => {
      const found = [find(traceId, "ingest")[0], find(traceId, "fanout")[0], find(traceId, "delivery attempt")[0]];
      return found.every(Boolean) ? found : undefined;
    }, 20_000);
    expect(ingest).toMatchObject({ service: "hookyard-web", parentSpanId: senderSpan, attributes: { "http.response.status_code": 200 } });
    expect(ingest.attributes["hookyard.source.id"]).toMatch(/^src_/);
    expect(fanout).toMatchObject({ service: "hookyard-worker", parentSpanId: ingest.spanId, attributes: { "hookyard.events.count": 1 } });
    expect(attempt).toMatchObject({
      service: "hookyard-worker",
      parentSpanId: fanout.spanId,
      attributes: {
        "hookyard.destination.id": connection.destination.id,
        "hookyard.attempt.number": 1,
        "http.response.status_code": 200,
        "hookyard.attempt.outcome": "success",
      },
    });
    // The delivery carries the attempt span's context, not the sender's.
    expect(delivered.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);

    // The access log line (docs/operations.md "Logs"): the request id sent, the trace id, the source id shortened, no query.
    const publicId = connection.source.url.split("/").pop()!;
    const line = await eventually(() =>
      server
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.scope === "http" && l.request_id === "trace-test-1"),
    );
    expect(line).toMatchObject({ level: "info", method: "POST", path: `/e/${publicId.slice(0, 4)}…/orders`, status: 200, trace_id: traceId });
    expect(typeof line.duration_ms).toBe("number");
    expect(typeof line.time).toBe("number");
    for (const secret of [publicId, "query-secret-value", API_KEY]) expect(server.output()).not.toContain(secret);
  }, 60_000);

  it("an outbound publish: publish, dispatch and attempt spans in the caller's trace; the destination gets the attempt's traceparent", async () => {
    const headers = { authorization: `Bearer ${OUTBOUND_KEY}`, "content-type": "application/json" };
    const base = `${server.url}/outbound/api/v1`;
    expect((await fetch(`${base}/tenants/traced`, { method: "PUT", headers })).status).toBeLessThan(300);
    const created = await fetch(`${base}/tenants/traced/destinations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ type: "webhook", topics: ["*"], config: { url: `${receiver.url}/outbound` } }),
    });
    expect(created.status).toBe(201);
    const destination = (await created.json()) as { id: string };
    const traceId = hex(32);
    const callerSpan = hex(16);
    const published = await fetch(`${base}/publish`, {
      method: "POST",
      headers: { ...headers, traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ tenant_id: "traced", topic: "user.created", data: { n: 1 } }),
    });
    expect(published.status).toBe(202);
    const delivered = (await receiver.waitFor(2, 20_000)).find((r) => r.url === "/outbound")!;

    const [publish, dispatch, attempt] = await eventually(() => {
      const found = [find(traceId, "outbound publish")[0], find(traceId, "outbound dispatch")[0], find(traceId, "delivery attempt")[0]];
      return found.every(Boolean) ? found : undefined;
    }, 20_000);
    expect(publish).toMatchObject({ service: "hookyard-web", parentSpanId: callerSpan });
    expect(dispatch).toMatchObject({ service: "hookyard-worker", parentSpanId: publish.spanId, attributes: { "hookyard.destination.id": destination.id } });
    expect(attempt).toMatchObject({
      parentSpanId: dispatch.spanId,
      attributes: {
        "hookyard.destination.id": destination.id,
        "hookyard.attempt.number": 1,
        "hookyard.attempt.outcome": "success",
        "http.response.status_code": 200,
      },
    });
    expect(delivered.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
  }, 60_000);
});
