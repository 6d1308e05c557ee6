/**
 * Sources of a gateway team: create, upsert by name, update, read, list, count, delete, disable.
 * Every function is scoped by `teamId`: another team's source is "not found". Validation of `type`
 * and `config` is resolveSourceConfig's; credentials are stored encrypted (`auth_encrypted`).
 */
import { encryptJson, decryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { getPrisma, type PrismaDb } from "@/lib/db/prisma";
import type { TSourceCreate, TSourceUpdate } from "@/lib/gateway/sources/schemas";
import { SOURCE_COLUMNS, type SourceRow } from "@/lib/gateway/sources/source-model";
import { resolveSourceConfig } from "@/lib/gateway/sources/validate-config";
import type { ApiVersion } from "@/lib/gateway/versions";
import { alreadyExists, AppError } from "@/lib/http/errors";
import type { ParsedQuery } from "@/lib/http/query";
import {
  countTeamRows,
  createTeamModel,
  deleteTeamModel,
  findTeamModelByName,
  getTeamModel,
  NAMED_ORDER_COLUMNS,
  namedFilters,
  setTeamModelDisabled,
  type TeamDelegate,
  type TeamModel,
  updateTeamModel,
  teamRowFilters,
} from "@/lib/gateway/team-resources";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import { createId } from "@/lib/ids";

export const SOURCES: TeamModel<SourceRow> = {
  table: "sources",
  alias: "s",
  columns: SOURCE_COLUMNS,
  delegate: (db) => db.source as unknown as TeamDelegate<SourceRow>,
};
/** `GET /sources` and `/sources/count` filters (validation, SQL and OpenAPI). */
export const SOURCE_FILTERS = namedFilters("s", "Source");

/** The source `id` of `teamId`; throws 404 NOT_FOUND otherwise. */
export const getSource = (teamId: string, id: string, db: PrismaDb = getPrisma()) => getTeamModel(SOURCES, teamId, id, db);

/** The source named `name` in `teamId`, or null. */
export const findSourceByName = (teamId: string, name: string, db: PrismaDb = getPrisma()) => findTeamModelByName(SOURCES, teamId, name, db);

/** Creates a source; 409 RESOURCE_ALREADY_EXISTS (`data: {id, resource_type}`) when the name is taken; 422 on invalid config. */
export async function createSource(teamId: string, input: TSourceCreate, version: ApiVersion, db: PrismaDb = getPrisma()): Promise<SourceRow> {
  const resolved = resolveSourceConfig(input.type ?? "WEBHOOK", input.config, version);
  const data = {
    id: createId("source"),
    teamId,
    name: input.name,
    description: input.description ?? null,
    type: resolved.type,
    config: resolved.config,
    authEncrypted: encryptJson(resolved.auth),
  };
  const row = await createTeamModel(SOURCES, data, db);
  if (row) return row;
  const existing = await findSourceByName(teamId, input.name, db);
  throw alreadyExists({ id: existing?.id, resource_type: "source" });
}

/**
 * Updates source `id` with the given fields; config keys not given keep their value (credentials
 * included, unless `auth_type` changes). Throws 404, 409 (name taken) or 422.
 */
export async function updateSource(teamId: string, id: string, input: TSourceUpdate, version: ApiVersion, db: PrismaDb = getPrisma()): Promise<SourceRow> {
  const current = await getSource(teamId, id, db);
  const type = input.type ?? current.type;
  const given = input.config ?? {};
  const typeChanged = type !== current.type;
  const authTypeChanged = given.auth_type !== undefined && given.auth_type !== (current.config.auth_type ?? null);
  const keepAuth = !typeChanged && !authTypeChanged && given.auth === undefined;
  const resolved = resolveSourceConfig(
    type,
    {
      allowed_http_methods: given.allowed_http_methods ?? (typeChanged ? undefined : (current.config.allowed_http_methods as never)),
      custom_response: given.custom_response !== undefined ? given.custom_response : (current.config.custom_response ?? null),
      auth_type: given.auth_type !== undefined ? given.auth_type : typeChanged ? undefined : (current.config.auth_type ?? null),
      auth: keepAuth ? decryptJson<Record<string, unknown>>(current.authEncrypted) : given.auth,
    },
    version,
  );
  const name = input.name ?? current.name;
  const description = input.description !== undefined ? input.description : current.description;
  const updated = await updateTeamModel(
    SOURCES,
    teamId,
    id,
    { name, description, type: resolved.type, config: resolved.config, authEncrypted: encryptJson(resolved.auth), updatedAt: new Date() },
    db,
  );
  if (updated) return updated;
  const other = await findSourceByName(teamId, name, db);
  throw alreadyExists({ id: other?.id, resource_type: "source" });
}

/**
 * `PUT /sources`: updates the source named `input.name`, or creates it. A concurrent upsert that
 * created the name first is not a conflict: this one then updates that source.
 */
export async function upsertSource(teamId: string, input: TSourceCreate, version: ApiVersion): Promise<SourceRow> {
  const existing = await findSourceByName(teamId, input.name);
  if (existing) return updateSource(teamId, existing.id, input, version);
  try {
    return await createSource(teamId, input, version);
  } catch (err) {
    const winner = err instanceof AppError && err.status === 409 ? err.data.id : undefined;
    if (typeof winner !== "string") throw err;
    return updateSource(teamId, winner, input, version);
  }
}

/** Deletes source `id` (its requests and connections go with it). Throws 404. */
export const deleteSource = (teamId: string, id: string) => deleteTeamModel(SOURCES, teamId, id);

/** Disables (`disabled` true) or enables source `id`; idempotent. Throws 404. */
export const setSourceDisabled = (teamId: string, id: string, disabled: boolean) => setTeamModelDisabled(SOURCES, teamId, id, disabled);

export const SOURCE_ORDER_BY = ["created_at", "updated_at", "name"] as const;

/** One page of the team's sources (filters: SOURCE_FILTERS); throws 400 for a bad filter value. */
// The list stays SQL: its filters (name[contains], date operators…) and keyset cursor are the shared SQL builders'.
export async function listSources<T>(teamId: string, query: ParsedQuery, page: PageRequest, toModel: (row: SourceRow) => T): Promise<Page<T>> {
  const { where, params } = teamRowFilters(SOURCES, teamId, query, SOURCE_FILTERS);
  return selectPage<SourceRow, T>({
    db: getPool(),
    select: SOURCE_COLUMNS,
    from: "sources s",
    where,
    params,
    page,
    columns: NAMED_ORDER_COLUMNS("s"),
    idColumn: "s.id",
    toModel,
  });
}

/** How many of the team's sources match the filters. */
export const countSources = (teamId: string, query: ParsedQuery) => countTeamRows(SOURCES, teamId, query, SOURCE_FILTERS);
