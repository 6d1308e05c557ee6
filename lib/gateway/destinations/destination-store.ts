/**
 * Destinations of a gateway team: create, upsert by name, update, read, list, count, delete, disable.
 * Credentials (`config.auth`) are stored encrypted in `auth_encrypted`, never in `config`.
 */
import { decryptJson, encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { getPrisma, Prisma, type PrismaDb } from "@/lib/db/prisma";
import { settleCustomSignature } from "@/lib/gateway/destinations/custom-signature";
import { DESTINATION_COLUMNS, type DestinationRow } from "@/lib/gateway/destinations/destination-model";
import type { TDestinationCreate, TDestinationUpdate } from "@/lib/gateway/destinations/schemas";
import { resolveDestinationConfig } from "@/lib/gateway/destinations/validate-config";
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
  teamRowFilters,
  updateTeamModel,
} from "@/lib/gateway/team-resources";
import { alreadyExists, AppError } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { createId } from "@/lib/ids";
import { normalizeOrdering } from "@/lib/gateway/delivery/ordering";

/** `destinations.ordering` to write on an update from an API input's `ordering` (Prisma writes SQL NULL as DbNull). */
const orderingColumn = (input: TDestinationCreate["ordering"]) => normalizeOrdering(input ?? null) ?? Prisma.DbNull;
/** The `ordering` field of a create: absent (the column's NULL) for an unordered destination, since a create may be plain SQL. */
const orderingOnCreate = (input: TDestinationCreate["ordering"]) => {
  const ordering = normalizeOrdering(input ?? null);
  return ordering ? { ordering } : {};
};

export const DESTINATIONS: TeamModel<DestinationRow> = {
  table: "destinations",
  alias: "d",
  columns: DESTINATION_COLUMNS,
  delegate: (db) => db.destination as unknown as TeamDelegate<DestinationRow>,
};
/** `GET /destinations` and `/destinations/count` filters (validation, SQL and OpenAPI). */
export const DESTINATION_FILTERS = namedFilters("d", "Destination");

export const getDestination = (teamId: string, id: string, db: PrismaDb = getPrisma()) => getTeamModel(DESTINATIONS, teamId, id, db);
export const findDestinationByName = (teamId: string, name: string, db: PrismaDb = getPrisma()) => findTeamModelByName(DESTINATIONS, teamId, name, db);
export const deleteDestination = (teamId: string, id: string) => deleteTeamModel(DESTINATIONS, teamId, id);
export const setDestinationDisabled = (teamId: string, id: string, disabled: boolean) => setTeamModelDisabled(DESTINATIONS, teamId, id, disabled);
export const countDestinations = (teamId: string, query: ParsedQuery) => countTeamRows(DESTINATIONS, teamId, query, DESTINATION_FILTERS);
export const DESTINATION_ORDER_BY = ["created_at", "updated_at", "name"] as const;

/** Creates a destination (type HTTP by default); 409 when the name is taken; 422 on invalid config. */
export async function createDestination(teamId: string, input: TDestinationCreate, db: PrismaDb = getPrisma()): Promise<DestinationRow> {
  const type = input.type ?? "HTTP";
  const { config, auth } = await resolveDestinationConfig(type, input.config);
  const row = await createTeamModel(
    DESTINATIONS,
    {
      id: createId("destination"),
      teamId,
      name: input.name,
      description: input.description ?? null,
      type,
      config,
      authEncrypted: encryptJson(settleCustomSignature(config.auth_type, auth, null)),
      ...orderingOnCreate(input.ordering),
    },
    db,
  );
  if (row) return row;
  const existing = await findDestinationByName(teamId, input.name, db);
  throw alreadyExists({ id: existing?.id, resource_type: "destination" });
}

/**
 * Updates destination `id`: config keys not given keep their value; credentials are kept unless
 * `auth` is given or `auth_type` changes. Throws 404, 409 or 422.
 */
export async function updateDestination(teamId: string, id: string, input: TDestinationUpdate, db: PrismaDb = getPrisma()): Promise<DestinationRow> {
  const current = await getDestination(teamId, id, db);
  const type = input.type ?? current.type;
  const given = input.config ?? {};
  const merged = type === current.type ? { ...(current.config as object), ...given } : { ...given };
  const authTypeChanged = given.auth_type !== undefined && given.auth_type !== current.config.auth_type;
  const stored = decryptJson<Record<string, unknown>>(current.authEncrypted) ?? {};
  if (given.auth === undefined && !authTypeChanged && type === current.type) (merged as Record<string, unknown>).auth = stored;
  const resolved = await resolveDestinationConfig(type, merged);
  const config = resolved.config;
  const auth = settleCustomSignature(config.auth_type, resolved.auth, current.config.auth_type === "CUSTOM_SIGNATURE" ? stored : null);
  const name = input.name ?? current.name;
  const description = input.description !== undefined ? input.description : current.description;
  const updated = await updateTeamModel(
    DESTINATIONS,
    teamId,
    id,
    {
      name,
      description,
      type,
      config,
      authEncrypted: encryptJson(auth),
      updatedAt: new Date(),
      ...(input.ordering !== undefined ? { ordering: orderingColumn(input.ordering) } : {}),
    },
    db,
  );
  if (updated) return updated;
  throw alreadyExists({ id: (await findDestinationByName(teamId, name, db))?.id, resource_type: "destination" });
}

/**
 * `PUT /destinations`: updates the destination named `input.name` (identity = name, docs/gateway-api.md#destinations;
 * config keys not given keep their value, as in `PUT /destinations/{id}`), or creates it. A concurrent
 * upsert that created the name first is not a conflict: this one then updates that destination.
 */
export async function upsertDestination(teamId: string, input: TDestinationCreate): Promise<DestinationRow> {
  const existing = await findDestinationByName(teamId, input.name);
  if (existing) return updateDestination(teamId, existing.id, input);
  try {
    return await createDestination(teamId, input);
  } catch (err) {
    const winner = err instanceof AppError && err.status === 409 ? err.data.id : undefined;
    if (typeof winner !== "string") throw err;
    return updateDestination(teamId, winner, input);
  }
}

/** One page of the team's destinations. The list stays SQL: its filters and keyset cursor are the shared SQL builders'. */
export async function listDestinations<T>(teamId: string, query: ParsedQuery, page: PageRequest, toModel: (row: DestinationRow) => T): Promise<Page<T>> {
  const { where, params } = teamRowFilters(DESTINATIONS, teamId, query, DESTINATION_FILTERS);
  return selectPage<DestinationRow, T>({
    db: getPool(),
    select: DESTINATION_COLUMNS,
    from: "destinations d",
    where,
    params,
    page,
    columns: NAMED_ORDER_COLUMNS("d"),
    idColumn: "d.id",
    toModel,
  });
}
