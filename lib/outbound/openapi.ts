/**
 * The OpenAPI 3.1 documents of the outbound API (docs/outbound.md), one per deployment form, served without
 * credentials at `/outbound/api/v1/openapi.json` (self-hosted) and `/outbound/2025-07-01/openapi.json`
 * (managed). The paths are the routes the wrapper serves for that form (lib/outbound/routes.ts): a route
 * without an entry in OPERATIONS fails the build of the document. Request bodies are generated
 * (z.toJSONSchema) from the zod schemas their handlers validate with; destination bodies carry each
 * type's config and credentials schema (built from the field tables that validate them).
 */
import { z } from "zod";
import { getConfig } from "@/lib/config";
import type { OutboundForm, OutboundRoute } from "@/lib/outbound/http";
import { ZDestinationCreateByType, ZDestinationUpdate, ZOrderingRelease } from "@/lib/outbound/destinations";
import { ZOutboundOrderingView } from "@/lib/outbound/ordering";
import { DESTINATION_TYPES, fieldsSchema } from "@/lib/outbound/destination-types";
import { ZRetry } from "@/lib/outbound/events";
import { ZTopicPut } from "@/lib/outbound/catalog";
import { ZArchiveReplayQuery } from "@/lib/outbound/archive-replay";
import { ZRedriveFilter } from "@/lib/outbound/redrive";
import { ZPublish } from "@/lib/outbound/publish";
import { ZConfigPatch } from "@/lib/outbound/settings";
import { ZTenantPut } from "@/lib/outbound/tenants";
import { ZTransformationOutput, ZTransformationTest } from "@/lib/outbound/transformation";
import { ZDeliveryState } from "@/lib/delivery/delivery-state-schema";

type Param = { name: string; description: string; schema?: Record<string, unknown>; required?: boolean };
type Operation = { summary: string; tag: string; description?: string; body?: z.ZodType; status?: number; response?: unknown; query?: Param[] };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const strMap = { type: "object", additionalProperties: str };
const time = { type: "string", format: "date-time" };
const arrayOf = (items: unknown) => ({ type: "array", items });
const page = (item: string, orderBy = "time") => ({
  type: "object",
  required: ["models", "pagination"],
  properties: {
    models: arrayOf(ref(item)),
    pagination: {
      type: "object",
      properties: {
        order_by: { const: orderBy },
        dir: { enum: ["asc", "desc"] },
        limit: { type: "integer" },
        next: { type: ["string", "null"] },
        prev: { type: ["string", "null"] },
      },
    },
  },
});

/** Response models (documentation of the answers; the requests are the validating zod schemas). */
const MODELS: Record<string, unknown> = {
  Tenant: {
    type: "object",
    properties: {
      id: str,
      destinations_count: { type: "integer" },
      topics: arrayOf(str),
      metadata: strMap,
      created_at: time,
      updated_at: time,
      health: { ...ref("DeliveryHealth"), description: "Only with include=health." },
    },
  },
  DeliveryHealth: {
    type: "object",
    description: 'Attempts of the last window_hours hours (docs/outbound.md "Delivery health").',
    properties: {
      window_hours: { type: "integer" },
      attempts: { type: "integer" },
      failed: { type: "integer" },
      failure_rate: { type: ["number", "null"], description: "failed / attempts, 0 to 1; null without attempts." },
      last_failure_at: { type: ["string", "null"], format: "date-time" },
      last_failure_code: { type: ["string", "null"] },
      consecutive_failures: { type: "integer", description: "Destinations only: failed attempts in a row." },
    },
  },
  Destination: {
    type: "object",
    properties: {
      id: str,
      tenant_id: str,
      type: { enum: DESTINATION_TYPES.map((t) => t.type) },
      topics: arrayOf(str),
      filter: { type: ["object", "null"] },
      config: strMap,
      credentials: { ...strMap, description: "Sensitive values obfuscated." },
      delivery_metadata: { type: ["object", "null"], additionalProperties: str },
      metadata: { type: ["object", "null"], additionalProperties: str },
      created_at: time,
      updated_at: time,
      disabled_at: { type: ["string", "null"], format: "date-time" },
      rate_limit: {
        type: "integer",
        description: "Deliveries per rate_limit_period (or in flight, for concurrent), counted across workers; absent: unlimited.",
      },
      rate_limit_period: { enum: ["second", "minute", "hour", "concurrent"], description: "Period of rate_limit (default second); absent without a limit." },
      transformation: {
        type: "string",
        description:
          "JavaScript run on each delivery before it is sent; absent without one (and, for a tenant JWT, when the deployment hides transformations).",
      },
      ordering: ref("OutboundDestinationOrdering"),
      delivery_state: {
        ...ref("DeliveryState"),
        description: "On reads (list, get), once something happened to the destination: receiver-driven limits and the circuit breaker (read-only).",
      },
      target: str,
      target_url: str,
      health: { ...ref("DeliveryHealth"), description: "Only with include=health." },
    },
  },
  DeliveryState: (({ $schema: _, ...schema }) => schema)(z.toJSONSchema(ZDeliveryState, { io: "output" })),
  OutboundDestinationOrdering: {
    ...(({ $schema: _, ...schema }) => schema)(z.toJSONSchema(ZOutboundOrderingView, { io: "output" })),
    description: 'Ordered delivery per key (docs/outbound.md "Ordered delivery"); absent on unordered destinations. blocked_keys on reads (list, get).',
  },
  OutboundTransformationOutput: (({ $schema: _, ...schema }) => schema)(z.toJSONSchema(ZTransformationOutput, { io: "output" })),
  Event: {
    type: "object",
    properties: {
      id: str,
      tenant_id: str,
      topic: str,
      time,
      eligible_for_retry: { type: "boolean" },
      metadata: strMap,
      matched_destination_ids: arrayOf(str),
      schema_version: { type: "integer", description: "The topic schema version the event was checked against (absent: not checked)." },
      schema_warnings: { ...arrayOf(str), description: "Validation `warn`: the failures, `/data/<pointer>: <message>` (absent when none)." },
      data: { description: "The data as published." },
    },
  },
  Redrive: {
    type: "object",
    properties: {
      id: str,
      tenant_id: { type: ["string", "null"], description: "The tenant that started it (tenant JWT, portal); null for the operator's." },
      filter: { type: "object" },
      estimated_count: { type: "integer" },
      estimated_batch: { type: "integer" },
      processed_batch: { type: "integer" },
      completed_count: { type: "integer", description: "Deliveries queued for their new attempt." },
      failed_count: {
        type: ["integer", "null"],
        description: "Deliveries left alone (destination disabled or deleted, changed meanwhile); null before the first batch.",
      },
      progress: { type: "number", minimum: 0, maximum: 1 },
      in_progress: { type: "boolean" },
      created_at: time,
      updated_at: time,
      completed_at: { type: ["string", "null"], format: "date-time" },
      cancelled_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  ArchiveReplay: {
    type: "object",
    properties: {
      id: str,
      tenant_id: { type: ["string", "null"], description: "The tenant that started it (tenant JWT, portal); null for the operator's." },
      query: {
        type: "object",
        description: "The replay's query; `tenant_id` is the destination's.",
        properties: { time: { type: "object" }, tenant_id: str, topic: {}, destination_id: str },
      },
      estimated_count: { type: "integer", description: "Outbound events the range's archived days hold (every tenant's and topic's): an estimate." },
      estimated_batch: { type: "integer" },
      processed_batch: { type: "integer" },
      completed_count: { type: "integer", description: "Events republished." },
      failed_count: {
        type: ["integer", "null"],
        description: "Archived events not republished (the destination disabled or deleted meanwhile); null before the first batch.",
      },
      progress: { type: "number", minimum: 0, maximum: 1 },
      in_progress: { type: "boolean" },
      created_at: time,
      updated_at: time,
      completed_at: { type: ["string", "null"], format: "date-time" },
      cancelled_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  CatalogTopic: {
    type: "object",
    properties: {
      topic: str,
      description: { type: ["string", "null"] },
      example: { description: "An example payload (passes the schema)." },
      validation: { enum: ["off", "warn", "enforce"] },
      schema_version: { type: ["integer", "null"] },
      schema: { type: ["object", "null"], description: "JSON Schema draft 2020-12 of the event data." },
      created_at: time,
      updated_at: time,
    },
  },
  Attempt: {
    type: "object",
    properties: {
      id: str,
      tenant_id: str,
      status: { enum: ["success", "failed"] },
      time,
      delivered_at: time,
      code: { type: ["string", "null"] },
      attempt_number: { type: "integer" },
      manual: { type: "boolean" },
      event_id: str,
      destination_id: str,
      destination_type: str,
      latency_ms: { type: "integer" },
      response_data: { type: ["object", "null"] },
      transformation: {
        ...ref("OutboundTransformationOutput"),
        description: "With include=transformation, on attempts of a destination with a transformation.",
      },
      event: ref("Event"),
      destination: ref("Destination"),
    },
  },
  DestinationType: {
    type: "object",
    properties: {
      type: str,
      label: str,
      description: str,
      icon: str,
      instructions: str,
      config_fields: arrayOf({ type: "object" }),
      credential_fields: arrayOf({ type: "object" }),
    },
  },
  Metrics: {
    type: "object",
    required: ["data", "metadata"],
    properties: {
      data: arrayOf({ type: "object", properties: { time_bucket: time, dimensions: strMap, metrics: { type: "object" } } }),
      metadata: { type: "object" },
    },
  },
  Error: {
    type: "object",
    required: ["status", "message"],
    properties: { status: { type: "integer" }, message: str, data: { description: "Validation messages (422) or details." } },
  },
};

const paging: Param[] = [
  { name: "limit", description: "Page size, 1 to 1000 (default 100).", schema: { type: "integer", minimum: 1, maximum: 1000 } },
  { name: "dir", description: "asc or desc (default desc).", schema: { enum: ["asc", "desc"] } },
  { name: "order_by", description: "Only `time`.", schema: { const: "time" } },
  { name: "next", description: "Cursor of the following page." },
  { name: "prev", description: "Cursor of the previous page." },
  { name: "time", description: "time[gte], time[lte], time[gt], time[lt]: RFC 3339 or a date.", schema: { type: "object", additionalProperties: str } },
];
const repeated = (name: string, description: string): Param => ({ name, description: `${description} Repeatable.`, schema: { oneOf: [str, arrayOf(str)] } });
const attemptQuery: Param[] = [
  repeated("tenant_id", "Tenants (a tenant JWT: its own)."),
  repeated("event_id", "Events."),
  repeated("destination_id", "Destinations."),
  repeated("destination_type", "Destination types."),
  repeated("topic", "Topics."),
  { name: "status", description: "success or failed.", schema: { enum: ["success", "failed"] } },
  { name: "include", description: "event, event.data, response_data, destination, transformation. Repeatable.", schema: { oneOf: [str, arrayOf(str)] } },
  ...paging,
];
const metricsQuery = (measures: string[], dimensions: string[]): Param[] => [
  {
    name: "time",
    description: "time[start] and time[end] (end exclusive), RFC 3339: required.",
    schema: { type: "object", required: ["start", "end"], properties: { start: time, end: time } },
    required: true,
  },
  {
    name: "measures",
    description: `Repeatable: ${measures.join(", ")}.`,
    schema: { oneOf: [{ enum: measures }, arrayOf({ enum: measures })] },
    required: true,
  },
  { name: "granularity", description: "Bucket size: <n><s|m|h|d|w|M> (e.g. 1h); without it one row for the range." },
  { name: "dimensions", description: `Repeatable: ${dimensions.join(", ")}.`, schema: { oneOf: [{ enum: dimensions }, arrayOf({ enum: dimensions })] } },
  { name: "filters", description: "filters[<dimension>]=value.", schema: { type: "object", additionalProperties: str } },
];

/** One entry per route of lib/outbound/routes.ts, by `METHOD path`. */
const OPERATIONS: Record<string, Operation> = {
  "GET tenants": {
    tag: "Tenants",
    summary: "List tenants",
    query: [
      { name: "limit", description: "Page size." },
      { name: "dir", description: "asc or desc." },
      { name: "next", description: "Cursor." },
      { name: "prev", description: "Cursor." },
      { name: "search", description: "A case-insensitive part of the tenant id." },
      { name: "include", description: "health: each tenant's delivery health." },
    ],
    response: { ...page("Tenant", "created_at"), properties: { ...page("Tenant", "created_at").properties, count: { type: "integer" } } },
  },
  "GET tenants/:tenant_id": { tag: "Tenants", summary: "Get a tenant", response: ref("Tenant") },
  "PUT tenants/:tenant_id": {
    tag: "Tenants",
    summary: "Create or update a tenant",
    description: "201 when created, 200 when updated.",
    body: ZTenantPut,
    status: 201,
    response: ref("Tenant"),
  },
  "DELETE tenants/:tenant_id": {
    tag: "Tenants",
    summary: "Delete a tenant with its destinations",
    response: { type: "object", properties: { success: { type: "boolean" } } },
  },
  "GET tenants/:tenant_id/token": {
    tag: "Tenants",
    summary: "A tenant JWT (admin key only)",
    response: { type: "object", properties: { token: str, tenant_id: str } },
  },
  "GET tenants/:tenant_id/portal": {
    tag: "Tenants",
    summary: "A portal link for the tenant (admin key only)",
    query: [{ name: "theme", description: "light or dark.", schema: { enum: ["light", "dark"] } }],
    response: { type: "object", properties: { redirect_url: str, tenant_id: str } },
  },
  "GET tenants/:tenant_id/destinations": {
    tag: "Destinations",
    summary: "List a tenant's destinations (not paged)",
    query: [repeated("type", "Types."), repeated("topics", "Topics."), { name: "include", description: "health: each destination's delivery health." }],
    response: arrayOf(ref("Destination")),
  },
  "POST tenants/:tenant_id/destinations": {
    tag: "Destinations",
    summary: "Create a destination",
    description: "config and credentials follow the type's schema (GET /destination-types).",
    body: ZDestinationCreateByType,
    status: 201,
    response: ref("Destination"),
  },
  "GET tenants/:tenant_id/destinations/:destination_id": { tag: "Destinations", summary: "Get a destination", response: ref("Destination") },
  "PATCH tenants/:tenant_id/destinations/:destination_id": {
    tag: "Destinations",
    summary: "Update a destination (merge patch: null deletes a key)",
    description: "config and credentials keys are those of the destination's type; type cannot change.",
    body: ZDestinationUpdate,
    response: ref("Destination"),
  },
  "DELETE tenants/:tenant_id/destinations/:destination_id": {
    tag: "Destinations",
    summary: "Delete a destination",
    response: { type: "object", properties: { success: { type: "boolean" } } },
  },
  "POST tenants/:tenant_id/destinations/:destination_id/transformation/test": {
    tag: "Destinations",
    summary: "Test-run a transformation",
    description:
      "Runs code (default: the destination's transformation) on an event of the tenant or a sample, as a delivery to this destination would, and sends nothing. 200 even when the code fails (log_level fatal, error). A tenant JWT needs OUTBOUND_PORTAL_TRANSFORMATIONS read (saved code only) or edit; 429 when the sandbox is busy.",
    body: ZTransformationTest,
    response: ref("OutboundTransformationOutput"),
  },
  "POST tenants/:tenant_id/destinations/:destination_id/ordering/release": {
    tag: "Destinations",
    summary: "Release blocked ordering keys",
    description:
      'Lets the keys blocked by a delivery that exhausted its retries under ordering.on_exhausted "block" go on (all of them without a body); the blocking deliveries stay failed (docs/outbound.md "Ordered delivery").',
    body: ZOrderingRelease,
    response: { type: "object", properties: { released: { type: "integer", description: "How many keys were released." } } },
  },
  "PUT tenants/:tenant_id/destinations/:destination_id/enable": { tag: "Destinations", summary: "Enable a destination", response: ref("Destination") },
  "PUT tenants/:tenant_id/destinations/:destination_id/disable": { tag: "Destinations", summary: "Disable a destination", response: ref("Destination") },
  "GET tenants/:tenant_id/destinations/:destination_id/attempts": {
    tag: "Attempts",
    summary: "A destination's attempts",
    query: attemptQuery,
    response: page("Attempt"),
  },
  "GET tenants/:tenant_id/destinations/:destination_id/attempts/:attempt_id": {
    tag: "Attempts",
    summary: "One attempt of a destination",
    query: attemptQuery.filter((q) => q.name === "include"),
    response: ref("Attempt"),
  },
  "GET destination-types": { tag: "Destination types", summary: "The destination types and their input schemas", response: arrayOf(ref("DestinationType")) },
  "GET destination-types/:type": { tag: "Destination types", summary: "One destination type", response: ref("DestinationType") },
  "GET config": { tag: "Configuration", summary: "Instance settings (admin key only)", response: strMap },
  "PATCH config": { tag: "Configuration", summary: "Change instance settings (null restores the default)", body: ZConfigPatch, response: strMap },
  "GET healthz": {
    tag: "Health",
    summary: "Health of the HTTP server, delivery worker and retry scheduler (no credentials)",
    description: "200 while no part failed, else 503.",
    response: {
      type: "object",
      properties: {
        status: str,
        timestamp: time,
        workers: { type: "object", additionalProperties: { type: "object", properties: { status: { enum: ["healthy", "degraded", "failed"] } } } },
      },
    },
  },
  "GET topics": { tag: "Topics", summary: "The topics of this deployment (OUTBOUND_TOPICS)", response: arrayOf(str) },
  "GET catalog": {
    tag: "Topics",
    summary: "The event catalog: each topic's description, schema and example (a tenant JWT: the topics it can subscribe to)",
    response: { type: "object", properties: { models: arrayOf(ref("CatalogTopic")) } },
  },
  "GET catalog/:topic": { tag: "Topics", summary: "One topic of the event catalog", response: ref("CatalogTopic") },
  "PUT catalog/:topic": {
    tag: "Topics",
    summary: "Set a topic's description, schema, example and validation mode",
    description: "201 created, 200 updated. Omitted fields keep their value; a new schema becomes the next version. Invalid schemas are a 422.",
    body: ZTopicPut,
    response: ref("CatalogTopic"),
  },
  "DELETE catalog/:topic": {
    tag: "Topics",
    summary: "Remove a topic from the catalog",
    response: { type: "object", properties: { success: { type: "boolean" } } },
  },
  "GET catalog/:topic/schemas/:version": {
    tag: "Topics",
    summary: "One version of a topic's schema",
    response: { type: "object", properties: { topic: str, version: { type: "integer" }, schema: { type: "object" }, created_at: time } },
  },
  "POST publish": {
    tag: "Publish",
    summary: "Publish an event (admin key only)",
    description: "202 once stored with its deliveries. A repeated id answers duplicate: true. Bodies up to INGEST_MAX_BODY_BYTES.",
    body: ZPublish,
    status: 202,
    response: { type: "object", properties: { id: str, duplicate: { type: "boolean" }, destination_ids: arrayOf(str) } },
  },
  "POST retry": {
    tag: "Attempts",
    summary: "Deliver an event to a destination again (manual retry)",
    body: ZRetry,
    status: 202,
    response: { type: "object", properties: { success: { type: "boolean" } } },
  },
  "POST redrives/plan": {
    tag: "Redrive",
    summary: "Count the deliveries whose last attempt failed that a redrive with this filter would retry",
    body: ZRedriveFilter,
    response: { type: "object", properties: { estimated_count: { type: "integer" }, estimated_batch: { type: "integer" } } },
  },
  "POST redrives": {
    tag: "Redrive",
    summary: "Start a redrive: one new attempt for every delivery the filter matches now",
    description:
      "422 when nothing matches or the same filter is in progress; a tenant JWT: its own destinations, OUTBOUND_REDRIVE_TENANT_LIMIT per hour (429).",
    body: ZRedriveFilter,
    status: 202,
    response: ref("Redrive"),
  },
  "GET redrives": {
    tag: "Redrive",
    summary: "List redrives, newest first (a tenant JWT: its own)",
    query: [
      { name: "limit", description: "1 to 100 (default 20).", schema: { type: "integer", minimum: 1, maximum: 100 } },
      { name: "next", description: "Cursor of the following page." },
    ],
    response: { type: "object", properties: { models: arrayOf(ref("Redrive")), next: { type: ["string", "null"] } } },
  },
  "GET redrives/:redrive_id": { tag: "Redrive", summary: "A redrive and its progress", response: ref("Redrive") },
  "POST redrives/:redrive_id/cancel": { tag: "Redrive", summary: "Cancel a redrive before its next batch", response: ref("Redrive") },
  "POST archive-replays/plan": {
    tag: "Archive replay",
    summary: "Estimate a replay from the archive: the outbound events the archived days of the time range hold",
    description: "422 for a bad query or when the server has no archive; 404 when the destination is not the tenant's.",
    body: ZArchiveReplayQuery,
    response: { type: "object", properties: { estimated_count: { type: "integer" }, estimated_batch: { type: "integer" } } },
  },
  "POST archive-replays": {
    tag: "Archive replay",
    summary: "Start a replay from the archive: every archived event of the query republished to the destination, as a new event marked as a replay",
    description:
      "Each event gets a new id and the time of its republishing, goes to `destination_id` only, and carries `hookyard_replay_of` (the archived event's id) and `hookyard_archive_replay` (this operation's id) in its metadata. 422 when no day of the range is archived.",
    body: ZArchiveReplayQuery,
    status: 202,
    response: ref("ArchiveReplay"),
  },
  "GET archive-replays": {
    tag: "Archive replay",
    summary: "List replays from the archive, newest first (a tenant JWT: those it started)",
    description: "400 for a bad limit or cursor.",
    query: [
      { name: "tenant_id", description: "Only replays to this tenant's destinations." },
      { name: "destination_id", description: "Only replays to this destination." },
      { name: "limit", description: "1 to 100 (default 20).", schema: { type: "integer", minimum: 1, maximum: 100 } },
      { name: "next", description: "Cursor of the following page." },
    ],
    response: { type: "object", properties: { models: arrayOf(ref("ArchiveReplay")), next: { type: ["string", "null"] } } },
  },
  "GET archive-replays/:archive_replay_id": { tag: "Archive replay", summary: "A replay from the archive and its progress", response: ref("ArchiveReplay") },
  "POST archive-replays/:archive_replay_id/cancel": {
    tag: "Archive replay",
    summary: "Cancel a replay from the archive before its next batch",
    response: ref("ArchiveReplay"),
  },
  "GET events": {
    tag: "Events",
    summary: "List events",
    query: [
      repeated("id", "Event ids."),
      repeated("tenant_id", "Tenants."),
      repeated("destination_id", "Matched destinations."),
      repeated("topic", "Topics."),
      ...paging,
    ],
    response: page("Event"),
  },
  "GET events/:event_id": { tag: "Events", summary: "Get an event with its data", response: ref("Event") },
  "GET metrics/events": {
    tag: "Metrics",
    summary: "Event metrics",
    query: metricsQuery(["count", "rate"], ["tenant_id", "topic", "destination_id"]),
    response: ref("Metrics"),
  },
  "GET metrics/attempts": {
    tag: "Metrics",
    summary: "Attempt metrics (latencies in ms)",
    query: metricsQuery(
      [
        "count",
        "successful_count",
        "failed_count",
        "error_rate",
        "first_attempt_count",
        "retry_count",
        "manual_retry_count",
        "avg_attempt_number",
        "rate",
        "successful_rate",
        "failed_rate",
        "avg_latency",
        "p50_latency",
        "p95_latency",
        "p99_latency",
      ],
      ["tenant_id", "destination_id", "destination_type", "topic", "status", "code", "manual", "attempt_number"],
    ),
    response: ref("Metrics"),
  },
  "GET attempts": { tag: "Attempts", summary: "List attempts", query: attemptQuery, response: page("Attempt") },
  "GET attempts/:attempt_id": { tag: "Attempts", summary: "Get an attempt", query: attemptQuery.filter((q) => q.name === "include"), response: ref("Attempt") },
  "GET destination-health": {
    tag: "Destinations",
    summary: "Destinations of every tenant with failed attempts in the last day, most failures first (admin key only)",
    query: [{ name: "limit", description: "1 to 100, default 50." }],
    response: {
      type: "object",
      properties: {
        models: arrayOf({
          type: "object",
          properties: {
            tenant_id: str,
            destination_id: str,
            destination: {
              type: ["object", "null"],
              description: "null when the destination was deleted.",
              properties: { type: str, target: str, disabled_at: { type: ["string", "null"], format: "date-time" } },
            },
            health: ref("DeliveryHealth"),
          },
        }),
        window_hours: { type: "integer" },
      },
    },
  },
  "GET openapi.json": { tag: "Meta", summary: "This document (no credentials)", response: { type: "object" } },
};

/** A request body's JSON Schema: the zod schema's input form, inlined. */
function bodySchema(schema: z.ZodType): unknown {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ref("Error") } } });

/**
 * The document of deployment form `form` over `routes` (the wrapper's route table). Throws when a route
 * has no OPERATIONS entry (a new route must be documented).
 */
export function outboundOpenApi(form: OutboundForm, routes: OutboundRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter((r) => !r.form || r.form === form)) {
    const op = OPERATIONS[`${route.method} ${route.path}`];
    if (!op) throw new Error(`outbound route ${route.method} ${route.path} has no OpenAPI operation`);
    const path = `/${route.path.replace(/:(\w+)/g, "{$1}")}`;
    const params = [
      ...[...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: str })),
      ...(op.query ?? []).map((q) => ({
        name: q.name,
        in: "query",
        description: q.description,
        required: q.required ?? false,
        schema: q.schema ?? str,
        ...(q.schema && (q.schema as { type?: string }).type === "object" ? { style: "deepObject", explode: true } : {}),
      })),
    ];
    const auth = route.auth === "admin" ? " Admin key only." : route.auth === "none" ? " No credentials." : "";
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}_${route.path.replace(/[/:.-]+/g, "_")}`,
      summary: op.summary,
      description: `${op.description ?? ""}${auth}`.trim(),
      tags: [op.tag],
      ...(route.auth === "none" ? { security: [] } : route.auth === "admin" ? { security: [{ adminKey: [] }] } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: bodySchema(op.body) } } } } : {}),
      responses: {
        [String(op.status ?? 200)]: { description: "Success", content: { "application/json": { schema: op.response ?? { type: "object" } } } },
        ...(route.auth === "none" ? {} : { "401": { $ref: "#/components/responses/Unauthorized" }, "403": { $ref: "#/components/responses/Forbidden" } }),
        ...(form === "managed" && route.auth !== "none" ? { "429": { $ref: "#/components/responses/RateLimited" } } : {}),
        ...(op.body
          ? {
              "400": { $ref: "#/components/responses/BadRequest" },
              "413": { $ref: "#/components/responses/TooLarge" },
              "422": { $ref: "#/components/responses/Invalid" },
            }
          : {}),
        ...(route.path.includes(":") ? { "404": { $ref: "#/components/responses/NotFound" } } : {}),
      },
    };
  }
  const base = form === "self-hosted" ? "/outbound/api/v1" : "/outbound/2025-07-01";
  return {
    openapi: "3.1.0",
    info: {
      title: `Hookyard Outbound API (${form})`,
      version: form === "self-hosted" ? "v1" : "2025-07-01",
      description:
        "Tenants, destinations, publish, events, attempts, retries and metrics of the outbound delivery service. Authenticate with `Authorization: Bearer <admin key>` or a tenant JWT (GET /tenants/{tenant_id}/token), which sees only its tenant." +
        (form === "managed" ? " 240 requests per minute per credential (X-RateLimit-* headers)." : ""),
    },
    servers: [{ url: `${getConfig().publicUrl}${base}` }],
    security: [{ adminKey: [] }, { tenantJwt: [] }],
    tags: [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        ...MODELS,
        ...Object.fromEntries(
          DESTINATION_TYPES.flatMap((t) => [
            [`${t.type}_config`, bodySchema(fieldsSchema(t, "config"))],
            [`${t.type}_credentials`, bodySchema(fieldsSchema(t, "credentials"))],
          ]),
        ),
      },
      securitySchemes: {
        adminKey: { type: "http", scheme: "bearer", description: "An admin key (hko_…)." },
        tenantJwt: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
      responses: {
        BadRequest: errorResponse("Malformed JSON or a bad query parameter."),
        Unauthorized: errorResponse("Missing or invalid credentials."),
        Forbidden: errorResponse("A tenant JWT on an admin-only route or another tenant's."),
        NotFound: errorResponse("Not found."),
        TooLarge: errorResponse("Body over 1 MiB (publish: over INGEST_MAX_BODY_BYTES)."),
        Invalid: errorResponse("Validation error: data lists the messages."),
        RateLimited: errorResponse("Rate limit exceeded; see Retry-After."),
      },
    },
  };
}
