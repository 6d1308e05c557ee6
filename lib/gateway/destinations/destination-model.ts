import { decryptJson } from "@/lib/crypto/secrets";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import type { TDestination } from "@/lib/gateway/destinations/schemas";

/** A `destinations` row as the gateway reads it. */
export type DestinationRow = {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  type: TDestination["type"];
  config: Record<string, unknown>;
  auth_encrypted: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export const DESTINATION_COLUMNS = "d.id, d.team_id, d.name, d.description, d.type, d.config, d.auth_encrypted, d.disabled_at, d.created_at, d.updated_at";

/**
 * The API model (newest version). `config.auth` (credentials) only with `includeAuth`
 * (`?include=config.auth`), as the destination's type shows them (lib/gateway/destination-types).
 */
export function toDestination(row: DestinationRow, includeAuth = false): TDestination {
  const auth = () => {
    const stored = decryptJson<Record<string, unknown>>(row.auth_encrypted) ?? {};
    const type = GATEWAY_DESTINATION_TYPES.find(row.type);
    return type ? type.obfuscate(stored, Date.now()) : stored;
  };
  return {
    id: row.id,
    team_id: row.team_id,
    name: row.name,
    description: row.description,
    type: row.type,
    config: {
      ...(row.config as TDestination["config"]),
      ...(includeAuth ? { auth: auth() } : {}),
    },
    disabled_at: row.disabled_at?.toISOString() ?? null,
    updated_at: row.updated_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}
