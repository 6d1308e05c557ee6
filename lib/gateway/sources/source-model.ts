import { decryptJson } from "@/lib/crypto/secrets";
import { modelColumns, Prisma } from "@/lib/db/prisma";
import type { Source } from "@/lib/generated/prisma/client";
import { ingestUrlFor } from "@/lib/urls";
import type { TSource } from "@/lib/gateway/sources/schemas";
import { verifiesRequests } from "@/lib/ingest/verify";

/** A `sources` row as the gateway reads it: the Prisma model, its `config` typed. */
export type SourceRow = Omit<Source, "config"> & {
  config: { allowed_http_methods?: string[]; custom_response?: TSource["config"]["custom_response"]; auth_type?: string | null };
};

/** The SELECT list of a `sources s` query that returns SourceRow (the lists, which stay SQL for their filters). */
export const SOURCE_COLUMNS = modelColumns("s", Prisma.SourceScalarFieldEnum);

/**
 * The API model of a source (newest version). `auth` (the credentials) is only given with
 * `includeAuth` (`?include=config.auth`); `authenticated` says whether verification is configured.
 */
export function toSource(row: SourceRow, includeAuth = false): TSource {
  const authType = row.config.auth_type ?? null;
  return {
    id: row.id,
    team_id: row.teamId,
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
      ...(includeAuth && authType ? { auth: decryptJson<Record<string, unknown>>(row.authEncrypted) ?? {} } : {}),
    },
    disabled_at: row.disabledAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
