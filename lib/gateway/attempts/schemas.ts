/**
 * Zod schemas of attempts (docs/gateway-api.md#attempts: attempts are recorded when a delivery is
 * made; the listing gives only `SUCCESFUL` or `FAILED`, spelled this way, in every version).
 */
import { z } from "zod";
import { dateFilter, enumFilter, type FilterTable, stringFilter } from "@/lib/http/query-schema";

const ATTEMPT_TRIGGERS = ["INITIAL", "AUTOMATIC", "MANUAL", "UNPAUSE", "BULK_RETRY"] as const;
/** Statuses as the API spells them. */
const ATTEMPT_STATUSES = ["SUCCESFUL", "FAILED"] as const;

export const ZAttempt = z
  .object({
    id: z.string(),
    team_id: z.string(),
    event_id: z.string(),
    destination_id: z.string(),
    response_status: z.number().int().nullable(),
    attempt_number: z.number().int(),
    trigger: z.enum(ATTEMPT_TRIGGERS),
    error_code: z.string().nullable(),
    body: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string()])
      .nullable()
      .optional()
      .meta({ description: "The response body: parsed when it is a JSON object or array, else the text. Only on `GET /attempts/{id}`." }),
    requested_url: z.string().nullable().optional().meta({ description: "Only on `GET /attempts/{id}`." }),
    http_method: z.string().nullable(),
    bulk_retry_id: z.string().nullable(),
    status: z.enum(ATTEMPT_STATUSES).meta({ description: "`SUCCESFUL` is the spec's spelling." }),
    successful_at: z.iso.datetime().nullable(),
    delivered_at: z.iso.datetime().nullable(),
    responded_at: z.iso.datetime().nullable(),
    delivery_latency: z.number().int().nullable().meta({ description: "ms from sending to the end of the response." }),
    response_latency: z.number().int().nullable().meta({ description: "ms from sending to the response headers." }),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "EventAttempt" });
export type TAttempt = z.infer<typeof ZAttempt>;

/** Filters of `GET /attempts` (table alias `a`). `status` takes both spellings of the stored SUCCESSFUL. */
export const ATTEMPT_FILTERS = {
  id: stringFilter("a.id", "Attempt id, or an array."),
  event_id: stringFilter("a.event_id", "Event id, or an array."),
  destination_id: stringFilter("a.destination_id", "Destination id, or an array."),
  status: enumFilter("a.status", ["SUCCESFUL", "SUCCESSFUL", "FAILED"], "SUCCESFUL (also spelled SUCCESSFUL) or FAILED; or an array.", (v) =>
    v === "SUCCESFUL" ? "SUCCESSFUL" : v,
  ),
  trigger: enumFilter("a.trigger", ATTEMPT_TRIGGERS, "INITIAL, AUTOMATIC, MANUAL, UNPAUSE or BULK_RETRY; or an array."),
  created_at: dateFilter("a.created_at", "Date with operators."),
} satisfies FilterTable;

export const ATTEMPT_ORDER_BY = ["created_at"] as const;
