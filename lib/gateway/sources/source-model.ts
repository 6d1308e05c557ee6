import { decryptJson } from "@/lib/crypto/secrets";
import { ingestUrlFor } from "@/lib/urls";
import type { TSource } from "@/lib/gateway/sources/schemas";
import { verifiesRequests } from "@/lib/ingest/verify";

/** A `sources` row as the gateway reads it. */
export type SourceRow = {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  type: string;
  config: { allowed_http_methods?: string[]; custom_response?: TSource["config"]["custom_response"]; auth_type?: string | null };
  auth_encrypted: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export const SOURCE_COLUMNS = "s.id, s.team_id, s.name, s.description, s.type, s.config, s.auth_encrypted, s.disabled_at, s.created_at, s.updated_at";

/**
 * The API model of a source (newest version). `auth` (the credentials) is only given with
 * `includeAuth` (`?include=config.auth`); `authenticated` says whether verification is configured.
 */
export function toSource(row: SourceRow, includeAuth = false): TSource {
  const authType = row.config.auth_type ?? null;
  return {
    id: row.id,
    team_id: row.team_id,
    name: row.name,
    description: row.description,
    type: row.type,
    url: ingestUrlFor(row.id),
    // True only when Hookyard checks its requests (a type it only accepts stores them unverified).
    authenticated: verifiesRequests(authType),
    config: {
      allowed_http_methods: row.config.allowed_http_methods ?? ["POST", "PUT", "PATCH", "DELETE"],
      custom_response: row.config.custom_response ?? null,
      ...(authType ? { auth_type: authType } : {}),
      ...(includeAuth && authType ? { auth: decryptJson<Record<string, unknown>>(row.auth_encrypted) ?? {} } : {}),
    },
    disabled_at: row.disabled_at?.toISOString() ?? null,
    updated_at: row.updated_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}
