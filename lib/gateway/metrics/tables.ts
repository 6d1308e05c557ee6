/**
 * What each gateway metrics endpoint can be asked (docs/gateway-api.md#metrics-2025-07-01):
 * measures, dimensions and filters over indexed columns of requests,
 * events, attempts and transformation executions, scoped to the team ($1). Run by lib/metrics/query.ts.
 */
import { MINUTE_SQL, measure, type MetricsTable, type RollupStore, type RollupUse, rollupMeasure } from "@/lib/metrics/query";

const { count, share, distinct: distinctCount, value: latency, percentile } = measure;
const R = rollupMeasure;

const PENDING = "('QUEUED', 'SCHEDULED', 'HOLD')";
/** When an event stopped waiting: its success, or its last change once FAILED or CANCELLED; null while it waits. */
const EVENT_DONE_AT =
  "CASE WHEN e.status = 'SUCCESSFUL' THEN coalesce(e.successful_at, e.updated_at) WHEN e.status IN ('FAILED', 'CANCELLED') THEN e.updated_at END";

/** A column of a rollup as a dimension or filter: the same name, over its rows. */
const cols = (...names: string[]) => Object.fromEntries(names.map((n) => [n, `r.${n}`]));
/** The attempt listing's spelling of a rollup's status. */
const ATTEMPT_STATUS = "CASE r.status WHEN 'SUCCESSFUL' THEN 'SUCCESFUL' ELSE r.status END";
const one = { fn: "sum", sql: "1" } as const;
const counted = (col: string) => ({ fn: "sum", sql: `CASE WHEN ${col} IS NULL THEN 0 ELSE 1 END` }) as const;
/** What both attempt rollups sum per row: count, response latency (sum, count, max) and delivery latency (sum, count). */
const ATTEMPT_SUMS = {
  n: one,
  lat_sum: { fn: "sum", sql: "a.response_latency" },
  lat_n: counted("a.response_latency"),
  lat_max: { fn: "max", sql: "a.response_latency" },
  dlat_sum: { fn: "sum", sql: "a.delivery_latency" },
  dlat_n: counted("a.delivery_latency"),
} as const;
const ATTEMPT_BASE = { from: "attempts a", team: "a.team_id", time: "a.created_at" };

/** Per-minute rollups of the gateway's base tables (migration 20261124173000_metrics_rollups), kept by lib/metrics/rollup.ts. */
export const GATEWAY_ROLLUPS = {
  requests: {
    table: "metrics_requests_1m",
    source: "requests",
    base: { from: "requests r", team: "r.team_id", time: "r.created_at" },
    keys: { source_id: "r.source_id", rejection_cause: "r.rejection_cause", verified: "r.verified" },
    sums: { n: one },
  },
  events: {
    table: "metrics_events_1m",
    source: "events",
    base: { from: "events e", team: "e.team_id", time: "e.created_at" },
    keys: {
      // Whether the event was made exactly at its minute's start: it is then alive at that instant.
      at_start: `e.created_at = ${MINUTE_SQL("e.created_at")}`,
      // When it stopped waiting, rounded up to the minute (alive at a whole minute t iff done_key > t).
      done_key: `${MINUTE_SQL(`(${EVENT_DONE_AT}) + interval '1 minute' - interval '1 microsecond'`)}`,
      webhook_id: "e.webhook_id",
      source_id: "e.source_id",
      destination_id: "e.destination_id",
      status: "e.status",
      response_status: "e.response_status",
      error_code: "e.error_code",
    },
    liveKeys: { at_start: "true", done_key: EVENT_DONE_AT },
    sums: { n: one, attempts_sum: { fn: "sum", sql: "e.attempts" }, attempts_n: counted("e.attempts"), min_created: { fn: "min", sql: "e.created_at" } },
    state: { until: "done_key", alive: "(r.minute < b.at OR (r.minute = b.at AND r.at_start)) AND (r.done_key IS NULL OR r.done_key > b.at)" },
  },
  attempts: {
    table: "metrics_attempts_1m",
    source: "attempts",
    base: ATTEMPT_BASE,
    keys: { destination_id: "a.destination_id", status: "a.status", response_status: "a.response_status", error_code: "a.error_code", trigger: "a.trigger" },
    sums: ATTEMPT_SUMS,
  },
  attemptLatency: {
    table: "metrics_attempt_latency_1m",
    hourly: "metrics_attempt_latency_1h",
    source: "attempts",
    base: ATTEMPT_BASE,
    keys: { destination_id: "a.destination_id", status: "a.status", lat_bucket: "hookyard_latency_bucket(a.response_latency)" },
    sums: ATTEMPT_SUMS,
  },
  transformations: {
    table: "metrics_transformations_1m",
    source: "transformation_executions",
    base: { from: "transformation_executions x", team: "x.team_id", time: "x.created_at" },
    keys: { transformation_id: "x.transformation_id", webhook_id: "x.webhook_id", log_level: "x.log_level" },
    sums: { n: one },
  },
} satisfies Record<string, RollupStore>;

const attemptMeasures = {
  count: R.count(),
  successful_count: R.count("r.status = 'SUCCESSFUL'"),
  failed_count: R.count("r.status = 'FAILED'"),
  error_rate: R.share("r.status = 'FAILED'"),
  response_latency_avg: R.avg("lat_sum", "lat_n"),
  response_latency_max: R.value("max(r.lat_max)"),
  delivery_latency_avg: R.avg("dlat_sum", "dlat_n"),
};
const pendingRollup = (measures: RollupUse["measures"], dimensions: string[], filters: string[]): RollupUse => ({
  store: GATEWAY_ROLLUPS.events,
  measures,
  dimensions: cols(...dimensions),
  filters: cols(...filters),
});

export const GATEWAY_METRICS: Record<string, MetricsTable> = {
  requests: {
    kind: "events",
    from: "requests r",
    time: "r.created_at",
    scope: ["r.team_id = $1"],
    measures: {
      count: count(),
      accepted_count: count("r.rejection_cause IS NULL"),
      rejected_count: count("r.rejection_cause IS NOT NULL"),
      rejection_rate: share("r.rejection_cause IS NOT NULL"),
      verified_count: count("r.verified"),
    },
    dimensions: { source_id: "r.source_id", rejection_cause: "r.rejection_cause", verified: "r.verified" },
    filters: { source_id: "r.source_id", rejection_cause: "r.rejection_cause", verified: "r.verified" },
    rollups: [
      {
        store: GATEWAY_ROLLUPS.requests,
        measures: {
          count: R.count(),
          accepted_count: R.count("r.rejection_cause IS NULL"),
          rejected_count: R.count("r.rejection_cause IS NOT NULL"),
          rejection_rate: R.share("r.rejection_cause IS NOT NULL"),
          verified_count: R.count("r.verified"),
        },
        dimensions: cols("source_id", "rejection_cause", "verified"),
        filters: cols("source_id", "rejection_cause", "verified"),
      },
    ],
  },
  events: {
    kind: "events",
    from: "events e",
    time: "e.created_at",
    scope: ["e.team_id = $1"],
    measures: {
      count: count(),
      successful_count: count("e.status = 'SUCCESSFUL'"),
      failed_count: count("e.status = 'FAILED'"),
      pending_count: count(`e.status IN ${PENDING}`),
      cancelled_count: count("e.status = 'CANCELLED'"),
      error_rate: share("e.status = 'FAILED'"),
      avg_attempts: latency("avg(e.attempts)"),
    },
    dimensions: {
      webhook_id: "e.webhook_id",
      source_id: "e.source_id",
      destination_id: "e.destination_id",
      status: "e.status",
      response_status: "e.response_status",
      error_code: "e.error_code",
    },
    filters: {
      webhook_id: "e.webhook_id",
      source_id: "e.source_id",
      destination_id: "e.destination_id",
      status: "e.status",
      response_status: "e.response_status",
      error_code: "e.error_code",
    },
    rollups: [
      {
        store: GATEWAY_ROLLUPS.events,
        measures: {
          count: R.count(),
          successful_count: R.count("r.status = 'SUCCESSFUL'"),
          failed_count: R.count("r.status = 'FAILED'"),
          pending_count: R.count(`r.status IN ${PENDING}`),
          cancelled_count: R.count("r.status = 'CANCELLED'"),
          error_rate: R.share("r.status = 'FAILED'"),
          avg_attempts: R.avg("attempts_sum", "attempts_n"),
        },
        dimensions: cols("webhook_id", "source_id", "destination_id", "status", "response_status", "error_code"),
        filters: cols("webhook_id", "source_id", "destination_id", "status", "response_status", "error_code"),
      },
    ],
  },
  attempts: {
    kind: "events",
    from: "attempts a",
    time: "a.created_at",
    scope: ["a.team_id = $1"],
    measures: {
      count: count(),
      successful_count: count("a.status = 'SUCCESSFUL'"),
      failed_count: count("a.status = 'FAILED'"),
      error_rate: share("a.status = 'FAILED'"),
      response_latency_avg: latency("avg(a.response_latency)"),
      response_latency_max: latency("max(a.response_latency)"),
      response_latency_p50: percentile(0.5, "a.response_latency"),
      response_latency_p95: percentile(0.95, "a.response_latency"),
      response_latency_p99: percentile(0.99, "a.response_latency"),
      delivery_latency_avg: latency("avg(a.delivery_latency)"),
    },
    dimensions: {
      destination_id: "a.destination_id",
      // The attempt listing's spelling (docs/gateway-api.md#attempts).
      status: "CASE a.status WHEN 'SUCCESSFUL' THEN 'SUCCESFUL' ELSE a.status END",
      response_status: "a.response_status",
      error_code: "a.error_code",
      trigger: "a.trigger",
    },
    filters: {
      destination_id: "a.destination_id",
      event_id: "a.event_id",
      status: "CASE a.status WHEN 'SUCCESSFUL' THEN 'SUCCESFUL' ELSE a.status END",
      response_status: "a.response_status",
      error_code: "a.error_code",
      trigger: "a.trigger",
    },
    // Without percentiles: the small rollup by every dimension. With them: the latency histogram (by
    // destination and status). The event_id filter is answered by the plain aggregate.
    rollups: [
      {
        store: GATEWAY_ROLLUPS.attempts,
        measures: attemptMeasures,
        dimensions: { ...cols("destination_id", "response_status", "error_code", "trigger"), status: ATTEMPT_STATUS },
        filters: { ...cols("destination_id", "response_status", "error_code", "trigger"), status: ATTEMPT_STATUS },
      },
      {
        store: GATEWAY_ROLLUPS.attemptLatency,
        measures: {
          ...attemptMeasures,
          response_latency_p50: R.percentile(0.5, "lat_sum", "lat_n"),
          response_latency_p95: R.percentile(0.95, "lat_sum", "lat_n"),
          response_latency_p99: R.percentile(0.99, "lat_sum", "lat_n"),
        },
        dimensions: { destination_id: "r.destination_id", status: ATTEMPT_STATUS },
        filters: { destination_id: "r.destination_id", status: ATTEMPT_STATUS },
      },
    ],
  },
  transformations: {
    kind: "events",
    from: "transformation_executions x",
    time: "x.created_at",
    scope: ["x.team_id = $1"],
    measures: {
      count: count(),
      successful_count: count("x.log_level NOT IN ('error', 'fatal')"),
      failed_count: count("x.log_level IN ('error', 'fatal')"),
      error_rate: share("x.log_level IN ('error', 'fatal')"),
      warn_count: count("x.log_level = 'warn'"),
      info_count: count("x.log_level = 'info'"),
      debug_count: count("x.log_level = 'debug'"),
    },
    dimensions: { transformation_id: "x.transformation_id", webhook_id: "x.webhook_id", log_level: "x.log_level" },
    filters: { transformation_id: "x.transformation_id", webhook_id: "x.webhook_id", log_level: "x.log_level" },
    rollups: [
      {
        store: GATEWAY_ROLLUPS.transformations,
        measures: {
          count: R.count(),
          successful_count: R.count("r.log_level NOT IN ('error', 'fatal')"),
          failed_count: R.count("r.log_level IN ('error', 'fatal')"),
          error_rate: R.share("r.log_level IN ('error', 'fatal')"),
          warn_count: R.count("r.log_level = 'warn'"),
          info_count: R.count("r.log_level = 'info'"),
          debug_count: R.count("r.log_level = 'debug'"),
        },
        dimensions: cols("transformation_id", "webhook_id", "log_level"),
        filters: cols("transformation_id", "webhook_id", "log_level"),
      },
    ],
  },
  "events-by-issue": {
    kind: "events",
    from: "issue_events ie JOIN events e ON e.id = ie.event_id",
    time: "ie.created_at",
    scope: ["ie.team_id = $1"],
    measures: { count: count(), distinct_issues: distinctCount("ie.issue_id") },
    dimensions: { issue_id: "ie.issue_id", webhook_id: "e.webhook_id", status: "e.status" },
    filters: { issue_id: "ie.issue_id", webhook_id: "e.webhook_id", status: "e.status" },
  },
  "queue-depth": {
    kind: "state",
    from: "events e",
    time: "e.created_at",
    until: EVENT_DONE_AT,
    scope: ["e.team_id = $1"],
    measures: {
      max_depth: count(),
      // Age of the oldest waiting event at the bucket's end, seconds.
      max_age: latency("extract(epoch FROM max(b.at - e.created_at))"),
    },
    dimensions: { destination_id: "e.destination_id" },
    filters: { destination_id: "e.destination_id", webhook_id: "e.webhook_id" },
    rollups: [
      pendingRollup(
        { max_depth: R.count(), max_age: R.value("extract(epoch FROM max(b.at - r.min_created))") },
        ["destination_id"],
        ["destination_id", "webhook_id"],
      ),
    ],
  },
  "events-pending-timeseries": {
    kind: "state",
    from: "events e",
    time: "e.created_at",
    until: EVENT_DONE_AT,
    scope: ["e.team_id = $1"],
    measures: { count: count() },
    dimensions: { webhook_id: "e.webhook_id", destination_id: "e.destination_id", source_id: "e.source_id" },
    filters: { webhook_id: "e.webhook_id", destination_id: "e.destination_id", source_id: "e.source_id" },
    rollups: [pendingRollup({ count: R.count() }, ["webhook_id", "destination_id", "source_id"], ["webhook_id", "destination_id", "source_id"])],
  },
};
