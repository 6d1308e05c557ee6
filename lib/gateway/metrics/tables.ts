/**
 * What each gateway metrics endpoint can be asked (issue 12 §2; shared/reference/gateway-product.md §1
 * `/metrics/*`, MetricsResponse): measures, dimensions and filters over indexed columns of requests,
 * events, attempts and transformation executions, scoped to the team ($1). Run by lib/metrics/query.ts.
 */
import { measure, type MetricsTable } from "@/lib/metrics/query";

const { count, share, distinct: distinctCount, value: latency, percentile } = measure;

const PENDING = "('QUEUED', 'SCHEDULED', 'HOLD')";
/** When an event stopped waiting: its success, or its last change once FAILED or CANCELLED; null while it waits. */
const EVENT_DONE_AT = "CASE WHEN e.status = 'SUCCESSFUL' THEN coalesce(e.successful_at, e.updated_at) WHEN e.status IN ('FAILED', 'CANCELLED') THEN e.updated_at END";

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
    dimensions: { webhook_id: "e.webhook_id", source_id: "e.source_id", destination_id: "e.destination_id", status: "e.status", response_status: "e.response_status", error_code: "e.error_code" },
    filters: { webhook_id: "e.webhook_id", source_id: "e.source_id", destination_id: "e.destination_id", status: "e.status", response_status: "e.response_status", error_code: "e.error_code" },
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
      // The attempt listing's spelling (shared/spec/gateway.md "States and transitions").
      status: "CASE a.status WHEN 'SUCCESSFUL' THEN 'SUCCESFUL' ELSE a.status END",
      response_status: "a.response_status",
      error_code: "a.error_code",
      trigger: "a.trigger",
    },
    filters: { destination_id: "a.destination_id", event_id: "a.event_id", status: "CASE a.status WHEN 'SUCCESSFUL' THEN 'SUCCESFUL' ELSE a.status END", response_status: "a.response_status", error_code: "a.error_code", trigger: "a.trigger" },
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
  },
};
