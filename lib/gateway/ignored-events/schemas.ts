/**
 * Zod schemas of ignored events (docs/gateway-api.md#ignored-events): events a
 * connection did not create because a rule or its state stopped the request.
 */
import { z } from "zod";
import { dateFilter, enumFilter, type FilterTable, stringFilter } from "@/lib/http/query-schema";

export const IGNORED_CAUSES = ["FILTERED", "TRANSFORMATION_FAILED", "DEDUPLICATED", "DISABLED", "CLI_DISCONNECTED"] as const;

export const ZIgnoredEvent = z
  .object({
    id: z.string(),
    team_id: z.string(),
    webhook_id: z.string().meta({ description: "Connection id." }),
    cause: z.enum(IGNORED_CAUSES),
    request_id: z.string(),
    meta: z
      .union([z.array(z.enum(["body", "headers", "path", "query"])), z.object({ transformation_id: z.string() })])
      .nullable()
      .meta({ description: "FILTERED: the parts of the request that failed the filter; TRANSFORMATION_FAILED: `{transformation_id}`; else null." }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "IgnoredEvent" });
export type TIgnoredEvent = z.infer<typeof ZIgnoredEvent>;

/** Filters of `GET /ignored-events` (table alias `i`). */
export const IGNORED_EVENT_FILTERS = {
  id: stringFilter("i.id", "Ignored event id, or an array."),
  cause: enumFilter("i.cause", IGNORED_CAUSES, "FILTERED, TRANSFORMATION_FAILED, DEDUPLICATED, DISABLED or CLI_DISCONNECTED; or an array."),
  webhook_id: stringFilter("i.webhook_id", "Connection id, or an array."),
  request_id: stringFilter("i.request_id", "Request id, or an array."),
  transformation_id: stringFilter("(i.meta->>'transformation_id')", "Transformation that failed (cause TRANSFORMATION_FAILED), or an array."),
  created_at: dateFilter("i.created_at", "Date with operators."),
} satisfies FilterTable;

/** Filters of `GET /requests/{id}/ignored_events`. */
export const REQUEST_IGNORED_EVENT_FILTERS = { id: IGNORED_EVENT_FILTERS.id } satisfies FilterTable;

export const IGNORED_EVENT_ORDER_BY = ["created_at"] as const;
