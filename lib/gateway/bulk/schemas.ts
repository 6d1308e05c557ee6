/**
 * Zod schemas of bulk operations (docs/gateway-api.md#bulk-operations):
 * the record, the create body, the plan answer and the list
 * filters. The OpenAPI document is generated from them.
 */
import { z } from "zod";
import { booleanFilter, dateFilter, type FilterTable, flagParameter, stringFilter } from "@/lib/http/query-schema";

export const ZBulkOperation = z
  .object({
    id: z.string().meta({ description: 'Operation id, prefix "bch_".' }),
    team_id: z.string(),
    type: z
      .enum(["events.retry", "events.cancel", "requests.retry"])
      .optional()
      .meta({ description: "From 2025-07-01; absent on ignored-event retries and replays." }),
    query: z.record(z.string(), z.unknown()).meta({ description: "The filter the operation was created with." }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    cancelled_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    estimated_batch: z.number().int(),
    estimated_count: z.number().int(),
    processed_batch: z.number().int(),
    completed_count: z.number().int().meta({ description: "Records handled." }),
    in_progress: z.boolean(),
    progress: z.number().min(0).max(1),
    failed_count: z.number().int().nullable().meta({ description: "Records that failed; null until processing starts." }),
    number: z.number().int().meta({ description: "Sequence number of the team's operations, from 1." }),
  })
  .meta({ id: "BatchOperation" });
export type TBulkOperation = z.infer<typeof ZBulkOperation>;

export const ZBulkCreate = z
  .strictObject({ query: z.record(z.string(), z.unknown()) })
  .meta({ description: "`query`: the listing filter of the family (replay adds `target`)." });
export type TBulkCreate = z.infer<typeof ZBulkCreate>;

export const ZBulkPlan = z
  .object({
    estimated_count: z.number().int(),
    estimated_batch: z.number().int(),
    progress: z.number().optional().meta({ description: "Events retry only: 0." }),
  })
  .meta({ id: "BatchOperationPlan" });

/** Filters of the bulk operation lists (alias `b`); `query` and `query_partial_match` are applied by the store. */
export const BULK_FILTERS = {
  id: stringFilter("b.id", "Operation id, or an array."),
  created_at: dateFilter("b.created_at", "Date with operators."),
  completed_at: dateFilter("b.completed_at", "Date with operators."),
  cancelled_at: dateFilter("b.cancelled_at", "Date with operators."),
  in_progress: booleanFilter("b.in_progress", "true while processing."),
  query_partial_match: flagParameter("With `query`: match operations whose query contains the given one (default: equal)."),
} satisfies FilterTable;

export const BULK_ORDER_BY = ["created_at"] as const;
