import { decryptJson } from "@/lib/crypto/secrets";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import { modelColumns, Prisma } from "@/lib/db/prisma";
import type { Destination } from "@/lib/generated/prisma/client";
import type { TDestination } from "@/lib/gateway/destinations/schemas";
import { storedOrdering } from "@/lib/gateway/delivery/ordering";

/** A `destinations` row as the gateway reads it: the Prisma model, its `type` and `config` typed. */
export type DestinationRow = Omit<Destination, "type" | "config"> & { type: TDestination["type"]; config: Record<string, unknown> };

/** The SELECT list of a `destinations d` query that returns DestinationRow (the lists, which stay SQL for their filters). */
export const DESTINATION_COLUMNS = modelColumns("d", Prisma.DestinationScalarFieldEnum);

/** `{ordering}` for an ordered destination, nothing for an unordered one (the field is additive: absent when unset). */
const orderingField = (stored: unknown) => {
  const ordering = storedOrdering(stored);
  return ordering ? { ordering } : {};
};

/**
 * The API model (newest version). `config.auth` (credentials) only with `includeAuth`
 * (`?include=config.auth`), as the destination's type shows them (lib/gateway/destination-types).
 */
export function toDestination(row: DestinationRow, includeAuth = false): TDestination {
  const auth = () => {
    const stored = decryptJson<Record<string, unknown>>(row.authEncrypted) ?? {};
    const type = GATEWAY_DESTINATION_TYPES.find(row.type);
    return type ? type.obfuscate(stored, Date.now()) : stored;
  };
  return {
    id: row.id,
    team_id: row.teamId,
    name: row.name,
    description: row.description,
    type: row.type,
    config: {
      ...(row.config as TDestination["config"]),
      ...(includeAuth ? { auth: auth() } : {}),
    },
    disabled_at: row.disabledAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    ...orderingField(row.ordering),
  };
}
