/**
 * Destination shapes of the gateway API in the internal (2025-07-01) form; older versions convert in
 * lib/gateway/versions/destinations.ts. docs/gateway-api.md#destinations,
 * docs/pipeline.md#destination-auth-configauth_type-configauth. The `type` enum is the registered
 * destination types' names (lib/gateway/destination-types, docs/destination-types.md).
 */
import { ZDeliveryState } from "@/lib/delivery/delivery-state-schema";
import { z } from "zod";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import { RATE_LIMIT_PERIODS, ZDestinationConfigInput } from "@/lib/gateway/destinations/config-schemas";
import { ZOrdering } from "@/lib/gateway/delivery/ordering";

/** The API's destination `type` values: the registered types' names, in registration order. */
export const DESTINATION_TYPES = GATEWAY_DESTINATION_TYPES.names() as [string, ...string[]];

const name = z.string().trim().min(1).max(155);

/** `POST /destinations`, `PUT /destinations` (upsert by name). */
export const ZDestinationCreate = z.strictObject({
  name,
  type: z.enum(DESTINATION_TYPES).optional(),
  description: z.string().max(500).nullable().optional(),
  config: ZDestinationConfigInput.optional(),
  /** Ordered delivery per key (docs/pipeline.md "Ordered delivery"); null or absent: unordered. On update, absent keeps it. */
  ordering: ZOrdering.nullable().optional(),
});
export type TDestinationCreate = z.infer<typeof ZDestinationCreate>;

/** `PUT /destinations/{id}`. */
export const ZDestinationUpdate = ZDestinationCreate.partial();
export type TDestinationUpdate = z.infer<typeof ZDestinationUpdate>;

/** `POST /destinations/{id}/ordering/release`: the keys to release (absent: every blocked key). */
export const ZOrderingRelease = z.strictObject({ keys: z.array(z.string().max(1000)).min(1).max(1000).optional() }).meta({ id: "OrderingRelease" });
/** Its answer: how many keys were released. */
export const ZOrderingReleased = z.object({ released: z.number().int() }).meta({ id: "OrderingReleased" });

/** A destination as the API returns it (2025-01-01 and later). */
export const ZDestination = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(DESTINATION_TYPES),
    config: z.object({
      url: z.string().optional(),
      path: z.string().optional(),
      rate_limit: z.number().int().nullable().optional(),
      rate_limit_period: z.enum(RATE_LIMIT_PERIODS).optional(),
      http_method: z.string().nullable().optional(),
      path_forwarding_disabled: z.boolean().optional(),
      auth_type: z.string(),
      auth: z.record(z.string(), z.unknown()).optional(),
    }),
    disabled_at: z.iso.datetime().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    /** On reads (GET /destinations, GET /destinations/{id}) once something happened to the destination: docs/pipeline.md "Receiver-driven limits". */
    delivery_state: ZDeliveryState.optional(),
    /** Present when the destination delivers in order (docs/pipeline.md "Ordered delivery"); `blocked_keys` on reads. */
    ordering: z
      .object({
        key: z.string().nullable(),
        on_exhausted: z.enum(["skip", "block"]),
        blocked_keys: z
          .array(z.object({ key: z.string(), event_id: z.string(), blocked_at: z.iso.datetime() }))
          .optional()
          .describe("Keys held back by an event that exhausted its retries (at most 100, oldest first)."),
      })
      .optional(),
  })
  .meta({ id: "Destination" });
export type TDestination = z.infer<typeof ZDestination>;
