/**
 * Zod schemas of events (docs/gateway-api.md#events): the model
 * the API answers with and the filters its lists take. The OpenAPI document is generated from them.
 */
import { z } from "zod";
import { dateFilter, documentFilter, enumFilter, type FilterTable, linkedFilter, numberFilter, searchFilter, stringFilter } from "@/lib/http/query-schema";

/** The event's request raw data (`raw`), for the content filters. */
const WITH_RAW = "EXISTS (SELECT 1 FROM request_raw_data raw WHERE raw.request_id = e.request_id AND {})";
/** What the event delivers: a transformation's output (`e.data`) when there is one, else the request as received. */
const EVENT_BODY =
  "CASE WHEN e.data IS NULL THEN hookyard_json_body(raw.body) WHEN jsonb_typeof(e.data->'body') = 'string' THEN hookyard_json_text(e.data->>'body') ELSE e.data->'body' END";

export const EVENT_STATUSES = ["SCHEDULED", "QUEUED", "HOLD", "SUCCESSFUL", "FAILED", "CANCELLED"] as const;

const dataFields = {
  path: z.string(),
  query: z.string().nullable().meta({ description: 'Raw query string without "?"; null when empty.' }),
  parsed_query: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
  body: z.unknown().meta({ description: "Parsed JSON, text, or base64 for a binary body (see `body_encoding`)." }),
  body_encoding: z.enum(["json", "text", "base64"]).nullable().meta({ description: "How `body` is given; null without a body." }),
  is_large_payload: z.boolean().meta({ description: "The body is cut to its first 64 KiB; the whole body is at `/events/{id}/raw_body`." }),
};

/** Event `data` in 2025-01-01 and later: what the event delivers. */
const ZEventData = z
  .object({
    url: z.string().nullable().meta({ description: "The URL it is delivered to (null for MOCK_API destinations); for CLI destinations the CLI path." }),
    method: z.string(),
    ...dataFields,
    appended_headers: z.array(z.string()),
  })
  .meta({ description: "Event data in 2025-01-01 and later." });
type TEventData = z.infer<typeof ZEventData>;

/** Event `data` in 2024-09-01: without `url`, `method` and `appended_headers`. */
type TShortEventData = z.infer<ReturnType<typeof z.object<typeof dataFields>>>;

export const ZEvent = z
  .object({
    id: z.string(),
    team_id: z.string(),
    webhook_id: z.string().meta({ description: "Connection id." }),
    source_id: z.string(),
    destination_id: z.string(),
    event_data_id: z
      .string()
      .meta({ description: '"edt_" + the request id without "req_" when it delivers the request as received, else "edt_" + the event id without "evt_".' }),
    request_id: z.string(),
    attempts: z.number().int(),
    last_attempt_at: z.iso.datetime().nullable(),
    next_attempt_at: z.iso.datetime().nullable(),
    response_status: z.number().int().nullable(),
    error_code: z.string().nullable(),
    status: z.enum(EVENT_STATUSES),
    successful_at: z.iso.datetime().nullable(),
    cli_id: z.string().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    data: ZEventData.optional().meta({ description: "With `include=data` on lists; always on `GET /events/{id}`." }),
  })
  .meta({ id: "Event" });
/** An event as a version answers it (2024-09-01 has the short `data`). */
export type TEvent = Omit<z.infer<typeof ZEvent>, "data"> & { data?: TEventData | TShortEventData };

/** Filters of `GET /events` and `GET /requests/{id}/events` (table alias `e`). */
export const EVENT_FILTERS = {
  id: stringFilter("e.id", "Event id, or an array."),
  status: enumFilter("e.status", EVENT_STATUSES, "SCHEDULED, QUEUED, HOLD, SUCCESSFUL, FAILED or CANCELLED; or an array."),
  webhook_id: stringFilter("e.webhook_id", "Connection id, or an array."),
  source_id: stringFilter("e.source_id", "Source id, or an array."),
  destination_id: stringFilter("e.destination_id", "Destination id, or an array."),
  request_id: stringFilter("e.request_id", "Request id, or an array."),
  attempts: numberFilter("e.attempts", "Number of attempts: a number, an array, or operators (`attempts[gte]=2`)."),
  response_status: numberFilter("e.response_status", "Last response status: a number, an array, or operators (`response_status[gte]=500`)."),
  error_code: stringFilter("e.error_code", "Error code, or an array."),
  cli_id: stringFilter("e.cli_id", "CLI session id, or an array; `cli_id[any]=true` for events delivered to the CLI."),
  created_at: dateFilter("e.created_at", "Date with operators."),
  last_attempt_at: dateFilter("e.last_attempt_at", "Date with operators."),
  next_attempt_at: dateFilter("e.next_attempt_at", "Date with operators."),
  successful_at: dateFilter("e.successful_at", "Date with operators."),
  issue_id: linkedFilter(
    "SELECT ie.issue_id AS v FROM issue_events ie WHERE ie.event_id = e.id",
    "Issue (`iss_…`) the event belongs to (any of its issues), or an array; `issue_id[any]=true` for events in an issue.",
  ),
  bulk_retry_id: stringFilter("e.bulk_retry_id", "Bulk operation (`bch_…`) that last retried the event or created it, or an array."),
  headers: documentFilter(
    "coalesce(e.data->'headers', raw.headers)",
    WITH_RAW,
    "Filter on the delivered headers, in the filter syntax of rules (URL-encoded JSON or `headers[x-topic]=…`).",
  ),
  body: documentFilter(EVENT_BODY, WITH_RAW, 'Filter on the delivered JSON body, in the filter syntax of rules (`body={"type":{"$startsWith":"order."}}`).'),
  parsed_query: documentFilter(
    "hookyard_parsed_query(coalesce(e.data->>'query', raw.query))",
    WITH_RAW,
    "Filter on the parsed query string, in the filter syntax of rules.",
  ),
  path: documentFilter("to_jsonb(coalesce(e.data->>'path', raw.path))", WITH_RAW, 'The path: a string, or operators (`path={"$startsWith":"/orders"}`).'),
  search_term: searchFilter(WITH_RAW, "Text found in the request's body, headers, path or query (or the transformed data).", "e.data::text"),
} satisfies FilterTable;

/** `POST /requests/{id}/retry` body: optionally only these connections of the request's source. */
export const ZRequestRetry = z
  .strictObject({
    webhook_ids: z
      .array(
        z
          .string()
          .min(1)
          .max(255)
          .regex(/^[\x21-\x7e]+$/, "must be a connection id"),
      )
      .min(1)
      .max(100)
      .optional(),
  })
  .meta({ description: "Optionally only these connections of the request's source." });

export const EVENT_ORDER_BY = ["created_at", "last_attempt_at", "next_attempt_at"] as const;
