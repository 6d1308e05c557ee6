/**
 * Operations of the gateway API for its OpenAPI document: one entry per endpoint, with the zod
 * schemas its handler validates with (`body`) and answers with (`response`).
 */
import { z } from "zod";
import { CONNECTION_FILTERS, CONNECTION_ORDER_BY } from "@/lib/gateway/connections/connection-store";
import { ZConnection, ZConnectionCreate, ZConnectionUpdate } from "@/lib/gateway/connections/schemas";
import { DESTINATION_FILTERS, DESTINATION_ORDER_BY } from "@/lib/gateway/destinations/destination-store";
import { ZDestination, ZDestinationCreate, ZDestinationUpdate, ZOrderingRelease, ZOrderingReleased } from "@/lib/gateway/destinations/schemas";
import { ATTEMPT_FILTERS, ATTEMPT_ORDER_BY, ZAttempt } from "@/lib/gateway/attempts/schemas";
import { EVENT_FILTERS, EVENT_ORDER_BY, ZEvent, ZRequestRetry } from "@/lib/gateway/events/schemas";
import { IGNORED_EVENT_FILTERS, IGNORED_EVENT_ORDER_BY, REQUEST_IGNORED_EVENT_FILTERS, ZIgnoredEvent } from "@/lib/gateway/ignored-events/schemas";
import { EXECUTION_FILTERS, EXECUTION_ORDER_BY, ZTransformationExecution } from "@/lib/gateway/transformations/execution-store";
import { REQUEST_FILTERS, REQUEST_ORDER_BY, ZRequest } from "@/lib/gateway/requests/request-store";
import { ZTransformationRun, ZTransformationRunOutput } from "@/lib/gateway/transformations/routes";
import {
  TRANSFORMATION_FILTERS,
  TRANSFORMATION_ORDER_BY,
  ZTransformation,
  ZTransformationCreate,
  ZTransformationUpdate,
} from "@/lib/gateway/transformations/transformation-store";
import { ZSource, ZSourceCreate, ZSourceUpdate } from "@/lib/gateway/sources/schemas";
import { SOURCE_FILTERS, SOURCE_ORDER_BY } from "@/lib/gateway/sources/source-store";
import { BULK_FAMILIES } from "@/lib/gateway/bulk/families";
import { BULK_FILTERS, BULK_ORDER_BY, ZBulkCreate, ZBulkOperation, ZBulkPlan } from "@/lib/gateway/bulk/schemas";
import {
  BOOKMARK_FILTERS,
  ISSUE_FILTERS,
  ISSUE_ORDER_BY,
  ISSUE_TRIGGER_FILTERS,
  ZBookmark,
  ZBookmarkCreate,
  ZBookmarkUpdate,
  ZIssue,
  ZIssueTrigger,
  ZIssueTriggerCreate,
  ZIssueTriggerUpdate,
  ZIssueUpdate,
  ZNotificationWebhooks,
} from "@/lib/gateway/issues/schemas";
import { GATEWAY_METRICS } from "@/lib/gateway/metrics/tables";
import { ZSigningSecretRotate, ZSigningSecretRotated } from "@/lib/gateway/signing-secret/schemas";
import { type FilterTable, filterParameters } from "@/lib/http/query-schema";

export type Operation = {
  method: "get" | "post" | "put" | "delete";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  body?: z.ZodType;
  response?: z.ZodType;
  /** The answer is a page: `{pagination, count, models: response[]}`. */
  list?: boolean;
  status?: number;
  query?: { name: string; description?: string; schema: Record<string, unknown>; style?: "form" | "deepObject"; explode?: boolean }[];
  errors?: (400 | 404 | 409 | 422)[];
};

const filter = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({ name, description, schema });
const include = filter("include", "`config.auth` reveals credentials.");
/** `GET /…/count` answers. */
const ZCount = z.object({ count: z.number().int() }).meta({ id: "Count" });
/** `GET /…/{id}/raw_body` answers. */
const ZRawBody = z.object({ body: z.string() }).meta({ id: "RawBody" });
/** `DELETE /…/{id}` answers. */
const ZDeleted = z.object({ id: z.string() }).meta({ id: "Deleted" });

/** The query parameters of a list: its filters (from the zod filter table that validates them), `order_by` keys, extra ones. */
const listQuery = (table: FilterTable, orderBy: readonly string[], ...extra: NonNullable<Operation["query"]>): NonNullable<Operation["query"]> => [
  ...filterParameters(table),
  ...extra,
  filter("order_by", `Sort key: ${orderBy.join(", ")}. Repeat it with \`next\`/\`prev\` when it is not the default.`, {
    type: "string",
    enum: [...orderBy],
    default: "created_at",
  }),
];
const includeData = filter("include", "`data` adds each event's data (url, method, path, query, headers, body).", { type: "string", enum: ["data"] });

function eventOperations(): Operation[] {
  const tag = "Events";
  const eventQuery = listQuery(EVENT_FILTERS, EVENT_ORDER_BY, includeData);
  return [
    { method: "get", path: "/events", operationId: "listEvents", summary: "List events", tag, response: ZEvent, list: true, query: eventQuery, errors: [400] },
    {
      method: "get",
      path: "/events/{id}",
      operationId: "getEvent",
      summary: "Get an event with its data",
      description: "In 2024-09-01 `data` has no `url`, `method` or `appended_headers`.",
      tag,
      response: ZEvent,
      errors: [404],
    },
    {
      method: "get",
      path: "/events/{id}/raw_body",
      operationId: "getEventRawBody",
      summary: "The body the event delivers (UTF-8 text, or base64 when binary)",
      tag,
      response: ZRawBody,
      errors: [404],
    },
    {
      method: "post",
      path: "/events/{id}/retry",
      operationId: "retryEvent",
      summary: "Deliver an event again now (trigger MANUAL), whatever its status",
      description: "The event at the root, with the former `attempt` property, always null.",
      tag,
      response: ZEvent.extend({ attempt: z.null() }),
      errors: [404],
    },
    {
      method: "put",
      path: "/events/{id}/cancel",
      operationId: "cancelEvent",
      summary: "Cancel a SCHEDULED, QUEUED or HOLD event (2025-07-01)",
      tag,
      response: ZEvent,
      errors: [404, 422],
    },
    {
      method: "put",
      path: "/events/{id}/mute",
      operationId: "muteEvent",
      summary: "Cancel an event (the name of every version)",
      tag,
      response: ZEvent,
      errors: [404, 422],
    },
    {
      method: "get",
      path: "/requests/{id}/events",
      operationId: "listRequestEvents",
      summary: "List a request's events",
      tag: "Requests",
      response: ZEvent,
      list: true,
      query: eventQuery,
      errors: [400, 404],
    },
    {
      method: "get",
      path: "/requests/{id}/ignored_events",
      operationId: "listRequestIgnoredEvents",
      summary: "List a request's ignored events",
      tag: "Requests",
      response: ZIgnoredEvent,
      list: true,
      query: listQuery(REQUEST_IGNORED_EVENT_FILTERS, IGNORED_EVENT_ORDER_BY),
      errors: [400, 404],
    },
    {
      method: "post",
      path: "/requests/{id}/retry",
      operationId: "retryRequest",
      summary: "Run a request through its source's connections again",
      description: "`webhook_ids` limits it to those connections of the request's source; a missing or disabled one gives 422 with `data.id`.",
      tag: "Requests",
      body: ZRequestRetry,
      response: z.object({ request: ZRequest, events: z.array(ZEvent).nullable() }).meta({ id: "RequestRetryResult" }),
      errors: [400, 404, 422],
    },
    {
      method: "get",
      path: "/ignored-events",
      operationId: "listIgnoredEvents",
      summary: "List ignored events",
      tag,
      response: ZIgnoredEvent,
      list: true,
      query: listQuery(IGNORED_EVENT_FILTERS, IGNORED_EVENT_ORDER_BY),
      errors: [400],
    },
    {
      method: "get",
      path: "/ignored-events/{id}",
      operationId: "getIgnoredEvent",
      summary: "Get an ignored event",
      tag,
      response: ZIgnoredEvent,
      errors: [404],
    },
    {
      method: "get",
      path: "/attempts",
      operationId: "listAttempts",
      summary: "List attempts (rows without body and requested_url)",
      description: "`status` is `SUCCESFUL` (the spec's spelling) or `FAILED` in every version; the filter takes both spellings.",
      tag: "Attempts",
      response: ZAttempt,
      list: true,
      query: listQuery(ATTEMPT_FILTERS, ATTEMPT_ORDER_BY),
      errors: [400],
    },
    {
      method: "get",
      path: "/attempts/{id}",
      operationId: "getAttempt",
      summary: "Get an attempt with its response body and requested_url",
      tag: "Attempts",
      response: ZAttempt,
      errors: [404],
    },
    {
      method: "get",
      path: "/transformations/{id}/executions",
      operationId: "listTransformationExecutions",
      summary: "List a transformation's executions",
      tag: "Transformations",
      response: ZTransformationExecution,
      list: true,
      query: listQuery(EXECUTION_FILTERS, EXECUTION_ORDER_BY),
      errors: [400, 404],
    },
    {
      method: "get",
      path: "/transformations/{id}/executions/{execution_id}",
      operationId: "getTransformationExecution",
      summary: "Get one execution",
      tag: "Transformations",
      response: ZTransformationExecution,
      errors: [404],
    },
  ];
}

/** The operations of a named, team-owned resource: list, create, upsert, count, get, update, delete, disable/enable. */
function namedResource(
  plural: string,
  singular: string,
  tag: string,
  schemas: { model: z.ZodType; create: z.ZodType; update: z.ZodType },
  listFilters: Operation["query"],
): Operation[] {
  const cap = singular[0].toUpperCase() + singular.slice(1);
  const capPlural = plural[0].toUpperCase() + plural.slice(1);
  const base = `/${plural}`;
  return [
    {
      method: "get",
      path: base,
      operationId: `list${capPlural}`,
      summary: `List ${plural}`,
      tag,
      response: schemas.model,
      list: true,
      query: listFilters,
      errors: [400],
    },
    {
      method: "post",
      path: base,
      operationId: `create${cap}`,
      summary: `Create a ${singular}`,
      tag,
      body: schemas.create,
      response: schemas.model,
      errors: [400, 409, 422],
    },
    {
      method: "put",
      path: base,
      operationId: `upsert${cap}`,
      summary: `Create or update a ${singular} by name`,
      tag,
      body: schemas.create,
      response: schemas.model,
      errors: [400, 422],
    },
    { method: "get", path: `${base}/count`, operationId: `count${capPlural}`, summary: `Count ${plural}`, tag, response: ZCount, errors: [400] },
    {
      method: "get",
      path: `${base}/{id}`,
      operationId: `get${cap}`,
      summary: `Get a ${singular}`,
      tag,
      response: schemas.model,
      query: [include],
      errors: [404],
    },
    {
      method: "put",
      path: `${base}/{id}`,
      operationId: `update${cap}`,
      summary: `Update a ${singular}`,
      tag,
      body: schemas.update,
      response: schemas.model,
      errors: [400, 404, 409, 422],
    },
    { method: "delete", path: `${base}/{id}`, operationId: `delete${cap}`, summary: `Delete a ${singular}`, tag, response: ZDeleted, errors: [404] },
    ...(["disable", "enable", "archive", "unarchive"] as const).map((action): Operation => ({
      method: "put",
      path: `${base}/{id}/${action}`,
      operationId: `${action}${cap}`,
      summary: `${action[0].toUpperCase()}${action.slice(1)} a ${singular}`,
      tag,
      response: schemas.model,
      errors: [404],
    })),
  ];
}

export const OPERATIONS: Operation[] = [
  ...namedResource(
    "sources",
    "source",
    "Sources",
    { model: ZSource, create: ZSourceCreate, update: ZSourceUpdate },
    listQuery(SOURCE_FILTERS, SOURCE_ORDER_BY, include),
  ),
  ...namedResource(
    "destinations",
    "destination",
    "Destinations",
    { model: ZDestination, create: ZDestinationCreate, update: ZDestinationUpdate },
    listQuery(DESTINATION_FILTERS, DESTINATION_ORDER_BY, include),
  ),
  {
    method: "post",
    path: "/destinations/{id}/ordering/release",
    operationId: "releaseDestinationOrdering",
    summary: "Release blocked ordering keys",
    description:
      "An ordered destination with `on_exhausted: block` holds a key back once an event of it exhausts its retries. This releases the given `keys` (all when absent): the blocking events stay FAILED and the next event of each key goes out.",
    tag: "Destinations",
    body: ZOrderingRelease,
    response: ZOrderingReleased,
    errors: [404, 422],
  },
  ...namedResource(
    "connections",
    "connection",
    "Connections",
    { model: ZConnection, create: ZConnectionCreate, update: ZConnectionUpdate },
    listQuery(CONNECTION_FILTERS, CONNECTION_ORDER_BY),
  ),
  ...(["pause", "unpause"] as const).map((action): Operation => ({
    method: "put",
    path: `/connections/{id}/${action}`,
    operationId: `${action}Connection`,
    summary: action === "pause" ? "Pause a connection (events wait in HOLD)" : "Unpause a connection",
    tag: "Connections",
    response: ZConnection,
    errors: [404],
  })),
  {
    method: "get",
    path: "/requests",
    operationId: "listRequests",
    summary: "List requests",
    tag: "Requests",
    response: ZRequest,
    list: true,
    query: listQuery(REQUEST_FILTERS, REQUEST_ORDER_BY, filter("include", "`data` adds path, query, headers and body.", { type: "string", enum: ["data"] })),
    errors: [400],
  },
  {
    method: "get",
    path: "/requests/{id}",
    operationId: "getRequest",
    summary: "Get a request with its data",
    tag: "Requests",
    response: ZRequest,
    errors: [404],
  },
  {
    method: "get",
    path: "/requests/{id}/raw_body",
    operationId: "getRequestRawBody",
    summary: "The raw body (UTF-8 text, or base64 when binary)",
    tag: "Requests",
    response: ZRawBody,
    errors: [404],
  },
  ...namedResource(
    "transformations",
    "transformation",
    "Transformations",
    { model: ZTransformation, create: ZTransformationCreate, update: ZTransformationUpdate },
    listQuery(TRANSFORMATION_FILTERS, TRANSFORMATION_ORDER_BY),
  ).filter((op) => !/(disable|enable|archive|unarchive)$/.test(op.path)),
  {
    method: "put",
    path: "/transformations/run",
    operationId: "runTransformation",
    summary: "Run code or a saved transformation on a sample request",
    description: "Answers 200 even when the code fails: then `log_level` is `fatal` and the error is the last console line.",
    tag: "Transformations",
    body: ZTransformationRun,
    response: ZTransformationRunOutput,
    errors: [400, 422],
  },
  ...eventOperations(),
  ...bulkOperations(),
  ...issueOperations(),
  ...metricsOperations(),
];

/** Issue triggers, issues, notifications and bookmarks (docs/gateway-api.md#issues-and-issue-triggers). */
function issueOperations(): Operation[] {
  const tag = "Issues";
  return [
    {
      method: "get",
      path: "/issue-triggers",
      operationId: "listIssueTriggers",
      summary: "List issue triggers",
      tag,
      response: ZIssueTrigger,
      list: true,
      query: listQuery(ISSUE_TRIGGER_FILTERS, ["created_at", "name"]),
      errors: [400],
    },
    {
      method: "post",
      path: "/issue-triggers",
      operationId: "createIssueTrigger",
      summary: "Create an issue trigger",
      tag,
      body: ZIssueTriggerCreate,
      response: ZIssueTrigger,
      errors: [400, 409, 422],
    },
    {
      method: "put",
      path: "/issue-triggers",
      operationId: "upsertIssueTrigger",
      summary: "Create or update an issue trigger by name",
      tag,
      body: ZIssueTriggerCreate,
      response: ZIssueTrigger,
      errors: [400, 422],
    },
    {
      method: "get",
      path: "/issue-triggers/{id}",
      operationId: "getIssueTrigger",
      summary: "Get an issue trigger",
      tag,
      response: ZIssueTrigger,
      errors: [404],
    },
    {
      method: "put",
      path: "/issue-triggers/{id}",
      operationId: "updateIssueTrigger",
      summary: "Update an issue trigger",
      tag,
      body: ZIssueTriggerUpdate,
      response: ZIssueTrigger,
      errors: [400, 404, 422],
    },
    {
      method: "delete",
      path: "/issue-triggers/{id}",
      operationId: "deleteIssueTrigger",
      summary: "Delete an issue trigger",
      tag,
      response: ZDeleted,
      errors: [404],
    },
    {
      method: "put",
      path: "/issue-triggers/{id}/disable",
      operationId: "disableIssueTrigger",
      summary: "Disable an issue trigger",
      tag,
      response: ZIssueTrigger,
      errors: [404],
    },
    {
      method: "put",
      path: "/issue-triggers/{id}/enable",
      operationId: "enableIssueTrigger",
      summary: "Enable an issue trigger",
      tag,
      response: ZIssueTrigger,
      errors: [404],
    },
    {
      method: "get",
      path: "/issues",
      operationId: "listIssues",
      summary: "List issues (dismissed ones only with a dismissed_at filter)",
      tag,
      response: ZIssue,
      list: true,
      query: listQuery(ISSUE_FILTERS, ISSUE_ORDER_BY),
      errors: [400],
    },
    {
      method: "get",
      path: "/issues/count",
      operationId: "countIssues",
      summary: "Count issues",
      tag,
      response: ZCount,
      query: filterParameters(ISSUE_FILTERS),
      errors: [400],
    },
    { method: "get", path: "/issues/{id}", operationId: "getIssue", summary: "Get an issue", tag, response: ZIssue, errors: [404] },
    {
      method: "put",
      path: "/issues/{id}",
      operationId: "updateIssue",
      summary: "Set an issue's status (a RESOLVED issue reopens when it happens again)",
      tag,
      body: ZIssueUpdate,
      response: ZIssue,
      errors: [400, 404, 422],
    },
    { method: "delete", path: "/issues/{id}", operationId: "dismissIssue", summary: "Dismiss an issue", tag, response: ZIssue, errors: [404] },
    {
      method: "post",
      path: "/signing-secret/rotate",
      operationId: "rotateSigningSecret",
      summary: "Rotate the team's signing secret; the previous one keeps signing as x-gateway-signature-2 for `delay` ms",
      tag: "Signing secret",
      body: ZSigningSecretRotate,
      response: ZSigningSecretRotated,
      errors: [400, 422],
    },
    {
      method: "put",
      path: "/notifications/webhooks",
      operationId: "setNotificationWebhooks",
      summary: "Publish issue topics as requests into one of the team's sources",
      tag: "Notifications",
      body: ZNotificationWebhooks,
      response: ZNotificationWebhooks,
      errors: [400, 422],
    },
    {
      method: "get",
      path: "/bookmarks",
      operationId: "listBookmarks",
      summary: "List bookmarks",
      tag: "Bookmarks",
      response: ZBookmark,
      list: true,
      query: listQuery(BOOKMARK_FILTERS, ["created_at", "label"]),
      errors: [400],
    },
    {
      method: "post",
      path: "/bookmarks",
      operationId: "createBookmark",
      summary: "Bookmark a request's data with a connection",
      tag: "Bookmarks",
      body: ZBookmarkCreate,
      response: ZBookmark,
      errors: [400, 422],
    },
    {
      method: "get",
      path: "/bookmarks/{id}",
      operationId: "getBookmark",
      summary: "Get a bookmark with its data",
      tag: "Bookmarks",
      response: ZBookmark,
      errors: [404],
    },
    {
      method: "put",
      path: "/bookmarks/{id}",
      operationId: "updateBookmark",
      summary: "Update a bookmark",
      tag: "Bookmarks",
      body: ZBookmarkUpdate,
      response: ZBookmark,
      errors: [400, 404, 422],
    },
    {
      method: "delete",
      path: "/bookmarks/{id}",
      operationId: "deleteBookmark",
      summary: "Delete a bookmark",
      tag: "Bookmarks",
      response: ZDeleted,
      errors: [404],
    },
    {
      method: "get",
      path: "/bookmarks/{id}/raw_body",
      operationId: "getBookmarkRawBody",
      summary: "The bookmarked request's raw body",
      tag: "Bookmarks",
      response: ZRawBody,
      errors: [404],
    },
    {
      method: "post",
      path: "/bookmarks/{id}/trigger",
      operationId: "triggerBookmark",
      summary: "Deliver the bookmarked request through its connection again; the events made",
      tag: "Bookmarks",
      response: z.array(ZEvent),
      errors: [404, 422],
    },
  ];
}

/** The seven metrics endpoints (2025-07-01; docs/gateway-api.md#metrics-2025-07-01), each with its measures, dimensions and filters. */
function metricsOperations(): Operation[] {
  const ZMetrics = z
    .object({
      data: z.array(
        z.object({
          time_bucket: z.iso.datetime().optional(),
          dimensions: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
          metrics: z.record(z.string(), z.number().nullable()),
        }),
      ),
      metadata: z.object({
        granularity: z.string().nullable(),
        query_time_ms: z.number(),
        row_count: z.number().int(),
        row_limit: z.number().int(),
        truncated: z.boolean(),
      }),
    })
    .meta({ id: "MetricsResponse" });
  return Object.entries(GATEWAY_METRICS).map(([name, table]) => ({
    method: "get" as const,
    path: `/metrics/${name}`,
    operationId: `metrics${name.replace(/(^|-)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`,
    summary: `Metrics: ${name} (2025-07-01)`,
    description: `Measures: ${Object.keys(table.measures).join(", ")}. Dimensions: ${Object.keys(table.dimensions).join(", ")}. Filters (\`filters[name]=value\`): ${Object.keys(table.filters).join(", ")}. Buckets without data are present (zero counts, null latencies).`,
    tag: "Metrics",
    response: ZMetrics,
    query: [
      {
        name: "date_range",
        description: "`date_range[start]` and `date_range[end]` (required; ISO date or date-time; end exclusive; at most 366 days).",
        schema: { type: "object", properties: { start: { type: "string" }, end: { type: "string" } }, required: ["start", "end"] },
        style: "deepObject" as const,
        explode: true,
      },
      filter("granularity", "Bucket size `\\d+(s|m|h|d|w|M)`, e.g. `1h`; without it one row per dimension combination.", {
        type: "string",
        pattern: "^[1-9][0-9]{0,3}(s|m|h|d|w|M)$",
      }),
      filter("measures", `Required: ${Object.keys(table.measures).join(", ")}.`, {
        type: "array",
        items: { type: "string", enum: Object.keys(table.measures) },
      }),
      filter("dimensions", `${Object.keys(table.dimensions).join(", ")}.`, { type: "array", items: { type: "string", enum: Object.keys(table.dimensions) } }),
      {
        name: "filters",
        description: `filters[name]=value or an array: ${Object.keys(table.filters).join(", ")}.`,
        schema: { type: "object", additionalProperties: true },
        style: "deepObject" as const,
        explode: true,
      },
    ],
    errors: [400, 404],
  }));
}

/** The five operations of each bulk family (docs/gateway-api.md#bulk-operations). */
function bulkOperations(): Operation[] {
  const tag = "Bulk operations";
  return BULK_FAMILIES.flatMap((f) => {
    const base = `/bulk/${f.path}`;
    const name = f.path.replace(/(^|[-/])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
    const what = `${f.path.replace("/", " ")}${f.since ? ` (from ${f.since})` : ""}`;
    const query = filter(
      "query",
      f.count
        ? 'JSON filter (URL-encoded JSON): `created_at` (required: `gte` or `gt` and `lte` or `lt` date-times) and `source_id` of the archived requests (docs/gateway-api.md "Replay from the archive"); `target` is ignored here.'
        : `JSON filter (URL-encoded JSON, or the bracket form \`query[status]=FAILED\`): the parameters of the ${f.name.startsWith("events") ? "event" : f.name.startsWith("ignored") ? "ignored-event" : "request"} listing${f.extraKeys.includes("target") ? "; `target` is ignored here" : ""}.`,
    );
    return [
      {
        method: "get",
        path: base,
        operationId: `listBulk${name}`,
        summary: `List ${what} operations`,
        tag,
        response: ZBulkOperation,
        list: true,
        query: listQuery(
          BULK_FILTERS,
          BULK_ORDER_BY,
          filter("query", "JSON: operations created with this query (contained in it with `query_partial_match=true`)."),
        ),
        errors: [400],
      },
      {
        method: "post",
        path: base,
        operationId: `createBulk${name}`,
        summary: `Create a ${what} operation`,
        description: `Processed asynchronously, batch by batch, over the records the query matches now.${f.emptyIsError ? " A query that matches nothing is a 422 UNPROCESSABLE_ENTITY." : ""}${f.extraKeys.includes("target") ? " `query.target` = `{source_id, webhook_ids?}`: the connections to replay through (422 with `data.id` for a missing or disabled one)." : ""}`,
        tag,
        body: ZBulkCreate,
        response: ZBulkOperation,
        errors: [400, 422],
      },
      {
        method: "get",
        path: `${base}/plan`,
        operationId: `planBulk${name}`,
        summary: `Estimate a ${what} operation`,
        tag,
        response: ZBulkPlan,
        query: [query],
        errors: [400, 422],
      },
      { method: "get", path: `${base}/{id}`, operationId: `getBulk${name}`, summary: `Get a ${what} operation`, tag, response: ZBulkOperation, errors: [404] },
      {
        method: "post",
        path: `${base}/{id}/cancel`,
        operationId: `cancelBulk${name}`,
        summary: `Cancel a ${what} operation`,
        description: "A completed operation keeps `completed_at`.",
        tag,
        response: ZBulkOperation,
        errors: [404],
      },
    ] satisfies Operation[];
  });
}
