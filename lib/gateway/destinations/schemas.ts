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

/** The API's destination `type` values: the registered types' names, in registration order. */
export const DESTINATION_TYPES = GATEWAY_DESTINATION_TYPES.names() as [string, ...string[]];

const name = z.string().trim().min(1).max(155);

/** `POST /destinations`, `PUT /destinations` (upsert by name). */
export const ZDestinationCreate = z.strictObject({
  name,
  type: z.enum(DESTINATION_TYPES).optional(),
  description: z.string().max(500).nullable().optional(),
  config: ZDestinationConfigInput.optional(),
});
export type TDestinationCreate = z.infer<typeof ZDestinationCreate>;

/** `PUT /destinations/{id}`. */
export const ZDestinationUpdate = ZDestinationCreate.partial();
export type TDestinationUpdate = z.infer<typeof ZDestinationUpdate>;

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
  })
  .meta({ id: "Destination" });
export type TDestination = z.infer<typeof ZDestination>;
