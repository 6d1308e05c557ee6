/**
 * Connection and rule shapes of the gateway API (docs/gateway-api.md#connections,
 * docs/pipeline.md#connection-rules). Rules keep the order given: transformations and filters run
 * in array order (2025-07-01 semantics; `rules_version` records who wrote them), delay and retry anywhere.
 */
import { z } from "zod";
import { ZTransformationCreate } from "@/lib/gateway/transformations/transformation-store";
import { ZDestination, ZDestinationCreate } from "@/lib/gateway/destinations/schemas";
import { ZSource, ZSourceCreate } from "@/lib/gateway/sources/schemas";

const json: z.ZodType<unknown> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]))
  .meta({ id: "JsonValue", description: "Any JSON value." });

/** `500-599`, `>400`, `>=500`, `<300`, `<=299`, `404`, `!401` (docs/pipeline.md#retry). */
const STATUS_CODE = /^(!?[1-5]\d\d|[1-5]\d\d-[1-5]\d\d|(>=|<=|>|<)[1-5]\d\d)$/;
const ZStatusCode = z
  .string()
  .regex(STATUS_CODE, 'a status code "404", range "500-599", comparison ">400", ">=500", "<300", "<=299" or exclusion "!401"')
  .refine((v) => !/^\d{3}-\d{3}$/.test(v) || Number(v.slice(0, 3)) <= Number(v.slice(4)), { message: "a range goes from the lower code to the higher" });

const ZFilterRule = z.strictObject({
  type: z.literal("filter"),
  body: json.optional(),
  headers: z.record(z.string(), json).optional(),
  query: z.record(z.string(), json).optional(),
  path: z.union([z.string(), z.record(z.string(), json)]).optional(),
});
/** An inline transformation of a `transform` rule: the limits of `POST /transformations` (code ≤ 100 KiB of UTF-8). */
/** An inline transformation has exactly the shape of `POST /transformations` (one definition, one limit). */
const ZTransformationInput = ZTransformationCreate;
/** By `transformation_id`, or inline `transformation` (created on save, returned as its id). */
const ZTransformRule = z
  .strictObject({ type: z.literal("transform"), transformation_id: z.string().min(1).optional(), transformation: ZTransformationInput.optional() })
  .refine((r) => Boolean(r.transformation_id) !== Boolean(r.transformation), {
    message: "give transformation_id or transformation",
    path: ["transformation_id"],
  });
const ZDelayRule = z.strictObject({ type: z.literal("delay"), delay: z.number().int().min(0).max(86_400_000).meta({ description: "ms" }) });
const ZRetryRule = z.strictObject({
  type: z.literal("retry"),
  strategy: z.enum(["linear", "exponential"]),
  count: z.number().int().min(0).max(50).nullable().optional(),
  interval: z.number().int().min(0).nullable().optional().meta({ description: "ms" }),
  response_status_codes: z.array(ZStatusCode).max(100).optional(),
});
/**
 * `window` is in integer seconds, 1..3600 (docs/pipeline.md#deduplicate; the real product
 * takes ms, 1000..3600000, the same hour). The deduplicate rule exists from 2025-07-01 (refused before by connection-store).
 * `include_fields` and `exclude_fields` are field paths; given both, the included fields are compared
 * minus the excluded paths inside them.
 */
const ZDeduplicateRule = z.strictObject({
  type: z.literal("deduplicate"),
  window: z.number().int().min(1).max(3600).meta({ description: "seconds in which events are compared (1 to 3600)" }),
  include_fields: z.array(z.string().min(1)).min(1).optional(),
  exclude_fields: z.array(z.string().min(1)).min(1).optional(),
});

const ZRule = z.discriminatedUnion("type", [ZFilterRule, ZTransformRule, ZDelayRule, ZRetryRule, ZDeduplicateRule]);
export type TRule = z.infer<typeof ZRule>;

export const ZConnectionCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(155),
    description: z.string().max(500).nullable().optional(),
    source_id: z.string().optional(),
    source: ZSourceCreate.optional(),
    destination_id: z.string().optional(),
    destination: ZDestinationCreate.optional(),
    rules: z.array(ZRule).max(50).optional(),
  })
  .refine((c) => Boolean(c.source_id) !== Boolean(c.source), { message: "give source_id or source", path: ["source"] })
  .refine((c) => Boolean(c.destination_id) !== Boolean(c.destination), { message: "give destination_id or destination", path: ["destination"] });
export type TConnectionCreate = z.infer<typeof ZConnectionCreate>;

export const ZConnectionUpdate = z.strictObject({
  name: z.string().trim().min(1).max(155).optional(),
  description: z.string().max(500).nullable().optional(),
  rules: z.array(ZRule).max(50).optional(),
});
export type TConnectionUpdate = z.infer<typeof ZConnectionUpdate>;

export const ZConnection = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string(),
    full_name: z.string(),
    description: z.string().nullable(),
    source: ZSource,
    destination: ZDestination,
    rules: z.array(z.record(z.string(), z.unknown())),
    disabled_at: z.iso.datetime().nullable(),
    paused_at: z.iso.datetime().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Connection" });
