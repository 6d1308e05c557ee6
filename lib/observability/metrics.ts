/**
 * The process's Prometheus metrics (docs/operations.md "Metrics and health"): one prom-client registry per
 * process with every `hookyard_*` series, the cheap recorders the hot paths call, and the text a scrape
 * gets. Generic: products record through the functions here; what the queues hold is asked of a sampler
 * the process roots install ({@link setQueueSampler}), so no product table is named in the foundation.
 *
 * Hot-path cost: each recorder is one or two prom-client `inc`/`observe` calls on label children made
 * once (labels are fixed sets, so there is no label explosion). `HOOKYARD_METRICS=off` turns every
 * recorder and the default process metrics off (only for measuring their cost: docs/benchmarks.md).
 */
import type { ServerResponse } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { poolStats } from "@/lib/db/pool";

/** Where a web request went, chosen by path in server.ts (`surface` label of the HTTP series). */
export const HTTP_SURFACES = ["console", "gateway_api", "outbound_api", "ingest", "dashboard", "portal", "other"] as const;
export type HttpSurface = (typeof HTTP_SURFACES)[number];

/** What became of a request sent to an ingestion URL: stored and accepted, stored as rejected, unknown source, not stored (database error). */
export type IngestOutcome = "accepted" | "rejected" | "not_found" | "failed";
/** Delivery products, and the outcome of one attempt: a 2xx, another answer, no answer (timeout, refused, could not be prepared). */
export type DeliveryProduct = "gateway" | "outbound";
export type DeliveryOutcome = "success" | "failed" | "error";
/** The outcome of checking a published payload against its schema: valid, failed but accepted (warn), failed and refused (enforce). */
export type SchemaValidationOutcome = "valid" | "warned" | "rejected";

/** What the queues hold now: rows by product and state, and the age of the oldest due work nobody took, s (0 when none). */
export type QueueSample = {
  depth: { product: string; state: string; count: number }[];
  oldestSeconds: { product: string; seconds: number }[];
};

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const INGEST_OUTCOMES: IngestOutcome[] = ["accepted", "rejected", "not_found", "failed"];
const DELIVERY_OUTCOMES: DeliveryOutcome[] = ["success", "failed", "error"];
const SCHEMA_OUTCOMES: SchemaValidationOutcome[] = ["valid", "warned", "rejected"];
/** How long one queue sample serves scrapes, ms. */
const QUEUE_SAMPLE_TTL_MS = 2_000;
/** A queue sample that takes longer is given up (the gauges then have no series for that scrape), ms. */
const QUEUE_SAMPLE_TIMEOUT_MS = 2_000;
/** Delivery durations: a few ms to DELIVERY_TIMEOUT_MS's default (30 s). */
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Child = { inc: (value?: number) => void };
type Observer = { observe: (value: number) => void };

function createMetrics() {
  const registry = new Registry();
  const enabled = process.env.HOOKYARD_METRICS !== "off";
  if (enabled) collectDefaultMetrics({ register: registry, prefix: "hookyard_" });

  const httpRequests = new Counter({
    name: "hookyard_http_requests_total",
    help: "HTTP requests answered by the web server, by surface, method and status (499: the client went away first).",
    labelNames: ["surface", "method", "status"],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "hookyard_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer, s, by surface.",
    labelNames: ["surface"],
    registers: [registry],
  });
  const ingested = new Counter({
    name: "hookyard_ingested_requests_total",
    help: "Requests sent to ingestion URLs, by outcome (accepted, rejected, not_found, failed).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "hookyard_deliveries_total",
    help: "Delivery attempts recorded, by product (gateway, outbound) and outcome (success, failed, error).",
    labelNames: ["product", "outcome"],
    registers: [registry],
  });
  const deliveryDuration = new Histogram({
    name: "hookyard_delivery_duration_seconds",
    help: "Duration of a delivery attempt (sending to the end of the answer, or the failure), s, by product.",
    labelNames: ["product"],
    buckets: DELIVERY_BUCKETS,
    registers: [registry],
  });
  const schemaValidations = new Counter({
    name: "hookyard_schema_validations_total",
    help: "Published payloads checked against their topic's JSON Schema, by product and outcome (valid, warned, rejected).",
    labelNames: ["product", "outcome"],
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: "hookyard_queue_depth",
    help: "Work waiting in PostgreSQL, by product and state (gateway: fanout, due, scheduled, in_flight, held; outbound: due, scheduled, in_flight).",
    labelNames: ["product", "state"],
    registers: [registry],
    async collect() {
      const sample = await queueSample();
      this.reset();
      for (const d of sample?.depth ?? []) this.set({ product: d.product, state: d.state }, d.count);
    },
  });
  const oldestPending = new Gauge({
    name: "hookyard_oldest_pending_seconds",
    help: "Age of the oldest due work nobody has taken, s (0 when none), by product.",
    labelNames: ["product"],
    registers: [registry],
    async collect() {
      const sample = await queueSample();
      this.reset();
      for (const o of sample?.oldestSeconds ?? []) this.set({ product: o.product }, o.seconds);
    },
  });
  new Gauge({
    name: "hookyard_db_pool_connections",
    help: "Connections of this process's PostgreSQL pools (pool: main, background), by state: total (open), idle, waiting (queries waiting for one).",
    labelNames: ["pool", "state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of poolStats()) {
        this.set({ pool: p.pool, state: "total" }, p.total);
        this.set({ pool: p.pool, state: "idle" }, p.idle);
        this.set({ pool: p.pool, state: "waiting" }, p.waiting);
      }
    },
  });

  // Label children made once: a recorder is then an index or map lookup and one inc/observe.
  const httpDurationBySurface = HTTP_SURFACES.map((s) => httpDuration.labels(s) as Observer);
  const httpChildren = new Map<number, Child>();
  const ingestedBy = Object.fromEntries(INGEST_OUTCOMES.map((o) => [o, ingested.labels(o)])) as Record<IngestOutcome, Child>;
  const deliveriesBy = {
    gateway: Object.fromEntries(DELIVERY_OUTCOMES.map((o) => [o, deliveries.labels("gateway", o)])),
    outbound: Object.fromEntries(DELIVERY_OUTCOMES.map((o) => [o, deliveries.labels("outbound", o)])),
  } as Record<DeliveryProduct, Record<DeliveryOutcome, Child>>;
  const schemaValidationsBy = Object.fromEntries(SCHEMA_OUTCOMES.map((o) => [o, schemaValidations.labels("outbound", o)])) as Record<
    SchemaValidationOutcome,
    Child
  >;
  const deliveryDurationBy = { gateway: deliveryDuration.labels("gateway") as Observer, outbound: deliveryDuration.labels("outbound") as Observer };

  let sampler: (() => Promise<QueueSample>) | null = null;
  let cached: { at: number; sample: Promise<QueueSample | null> } | null = null;
  /** The queues' sample, taken at most every QUEUE_SAMPLE_TTL_MS and shared by both gauges and concurrent scrapes; null without a sampler or on failure. */
  function queueSample(): Promise<QueueSample | null> {
    if (!sampler) return Promise.resolve(null);
    const now = Date.now();
    if (cached && now - cached.at < QUEUE_SAMPLE_TTL_MS) return cached.sample;
    const run = sampler;
    let timer: NodeJS.Timeout | undefined;
    const sample = Promise.race([
      run(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer in time")), QUEUE_SAMPLE_TIMEOUT_MS))),
    ])
      .catch(() => null)
      .finally(() => clearTimeout(timer));
    cached = { at: now, sample };
    return sample;
  }

  return {
    registry,
    enabled,
    httpRequests,
    httpDurationBySurface,
    httpChildren,
    ingestedBy,
    deliveriesBy,
    deliveryDurationBy,
    schemaValidationsBy,
    setSampler: (s: (() => Promise<QueueSample>) | null) => {
      sampler = s;
      cached = null;
    },
    queueDepth,
    oldestPending,
  };
}

// One registry per process, also for the copies of this module that Next.js bundles into route handlers.
const g = globalThis as unknown as { __hookyardMetrics?: ReturnType<typeof createMetrics> };
const metrics = (g.__hookyardMetrics ??= createMetrics());
const SURFACE_INDEX = Object.fromEntries(HTTP_SURFACES.map((s, i) => [s, i])) as Record<HttpSurface, number>;

/**
 * Counts one answered web request and observes its duration (`seconds`). `method` outside the usual seven
 * is counted as "other"; `status` is the HTTP status (499 when the client left before the answer ended).
 */
export function recordHttpRequest(surface: HttpSurface, method: string, status: number, seconds: number): void {
  if (!metrics.enabled) return;
  const s = SURFACE_INDEX[surface];
  let m: number = METHODS.indexOf(method as (typeof METHODS)[number]);
  if (m === -1) m = METHODS.length;
  const key = (s * 8 + m) * 1000 + (status >= 100 && status < 1000 ? status : 0);
  let child = metrics.httpChildren.get(key);
  if (!child) {
    child = metrics.httpRequests.labels(surface, m === METHODS.length ? "other" : METHODS[m], String(status));
    metrics.httpChildren.set(key, child);
  }
  child.inc();
  metrics.httpDurationBySurface[s].observe(seconds);
}

/**
 * Counts web request `res` in the HTTP series when it ends (its status then, or 499 when the client left
 * first), timed from now. Call once per request, as it arrives (server.ts).
 */
export function trackHttpResponse(res: ServerResponse, surface: HttpSurface, method: string): void {
  if (!metrics.enabled) return;
  const started = performance.now();
  // A closure rather than properties on `res`: adding properties to every ServerResponse changes its
  // hidden class and slows the server's own code on it (measured: docs/benchmarks.md "Metrics overhead").
  res.once("close", () => recordHttpRequest(surface, method, res.writableFinished ? res.statusCode : 499, (performance.now() - started) / 1000));
}

/** Counts one request sent to an ingestion URL, by what became of it. */
export function recordIngested(outcome: IngestOutcome): void {
  if (metrics.enabled) metrics.ingestedBy[outcome].inc();
}

/**
 * Counts one recorded delivery attempt of `product` with its outcome (success: a 2xx or the destination
 * type's success; failed: another answer; error: no answer) and observes its duration `ms` (null: nothing
 * was sent, not observed).
 */
export function recordDelivery(product: DeliveryProduct, outcome: DeliveryOutcome, ms: number | null): void {
  if (!metrics.enabled) return;
  metrics.deliveriesBy[product][outcome].inc();
  if (ms !== null) metrics.deliveryDurationBy[product].observe(ms / 1000);
}

/** Counts one published payload checked against its topic's schema (docs/outbound.md "Event catalog"), by outcome. */
export function recordSchemaValidation(product: "outbound", outcome: SchemaValidationOutcome): void {
  if (metrics.enabled && product === "outbound") metrics.schemaValidationsBy[outcome].inc();
}

/**
 * Installs what `hookyard_queue_depth` and `hookyard_oldest_pending_seconds` read on a scrape (one call,
 * cached 2 s, given up after 2 s); null removes it. Called by the process roots (server.ts, the worker).
 */
export function setQueueSampler(sampler: (() => Promise<QueueSample>) | null): void {
  metrics.setSampler(sampler);
}

/** The Prometheus text exposition of every series of this process, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
