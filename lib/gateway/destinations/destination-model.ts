import { decryptJson } from "@/lib/crypto/secrets";
import { modelColumns, Prisma } from "@/lib/db/prisma";
import type { Destination } from "@/lib/generated/prisma/client";
import type { TDestination } from "@/lib/gateway/destinations/schemas";

/** A `destinations` row as the gateway reads it: the Prisma model, its `type` and `config` typed. */
export type DestinationRow = Omit<Destination, "type" | "config"> & { type: TDestination["type"]; config: Record<string, unknown> };

/** The SELECT list of a `destinations d` query that returns DestinationRow (the lists, which stay SQL for their filters). */
export const DESTINATION_COLUMNS = modelColumns("d", Prisma.DestinationScalarFieldEnum);

/** The API model (newest version). `config.auth` (credentials) only with `includeAuth` (`?include=config.auth`). */
export function toDestination(row: DestinationRow, includeAuth = false): TDestination {
  return {
    id: row.id,
    team_id: row.teamId,
    name: row.name,
    description: row.description,
    type: row.type,
    config: {
      ...(row.config as TDestination["config"]),
      ...(includeAuth ? { auth: decryptJson<Record<string, unknown>>(row.authEncrypted) ?? {} } : {}),
    },
    disabled_at: row.disabledAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
