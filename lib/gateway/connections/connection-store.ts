/**
 * Connections of a gateway team (API name "webhook", ids `web_…`): create with inline or referenced
 * source and destination, upsert by name + source, update, read, list, count, delete, pause, disable.
 * A connection records the API version that last wrote its rules (`rules_version`).
 */
import { encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { asJson, getPrisma, isUniqueViolation, modelColumns, Prisma, type PrismaDb, transactionOptions } from "@/lib/db/prisma";
import type { Connection } from "@/lib/generated/prisma/client";
import type { TConnectionCreate, TConnectionUpdate, TRule } from "@/lib/gateway/connections/schemas";
import { createDestination, DESTINATIONS, findDestinationByName } from "@/lib/gateway/destinations/destination-store";
import type { DestinationRow } from "@/lib/gateway/destinations/destination-model";
import type { SourceRow } from "@/lib/gateway/sources/source-model";
import { createSource, findSourceByName, SOURCES } from "@/lib/gateway/sources/source-store";
import {
  deleteTeamModel,
  findTeamModel,
  getTeamModel,
  NAMED_ORDER_COLUMNS,
  namedFilters,
  setTeamModelDisabled,
  setTeamModelTime,
  type TeamDelegate,
  type TeamModel,
  teamRowFilters,
} from "@/lib/gateway/team-resources";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { alreadyExists, AppError, isAppError, unprocessable, withFieldPrefix } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { dateFilter, type FilterTable, stringFilter } from "@/lib/http/query-schema";
import { createId } from "@/lib/ids";

/** A `connections` row: the Prisma model, its `rules` typed (as stored: inline transformations replaced by their ids). */
export type ConnectionRow = Omit<Connection, "rules"> & { rules: Record<string, unknown>[] };

const COLUMNS = modelColumns("c", Prisma.ConnectionScalarFieldEnum);
const CONNECTIONS: TeamModel<ConnectionRow> = {
  table: "connections",
  alias: "c",
  columns: COLUMNS,
  delegate: (db) => db.connection as unknown as TeamDelegate<ConnectionRow>,
};

export const CONNECTION_ORDER_BY = ["created_at", "updated_at", "name"] as const;

export const getConnection = (teamId: string, id: string, db: PrismaDb = getPrisma()) => getTeamModel(CONNECTIONS, teamId, id, db);
export const deleteConnection = (teamId: string, id: string) => deleteTeamModel(CONNECTIONS, teamId, id);
export const setConnectionDisabled = (teamId: string, id: string, disabled: boolean) => setTeamModelDisabled(CONNECTIONS, teamId, id, disabled);

/**
 * Rules as stored: inline transformations are created (or, when one with that name exists in the
 * team, updated) and referenced by `transformation_id`; a referenced `transformation_id` must belong
 * to the team. The deduplicate rule exists from 2025-07-01. Throws 422 naming the rule.
 */
async function storeRules(teamId: string, rules: TRule[], version: ApiVersion, db: PrismaDb): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.type === "deduplicate" && !isAtLeast(version, "2025-07-01")) {
      throw unprocessable("The deduplicate rule exists from API version 2025-07-01", { field: `rules.${i}.type` });
    }
    if (rule.type === "transform" && rule.transformation) {
      const t = rule.transformation;
      // One INSERT … ON CONFLICT DO UPDATE (Prisma's native upsert: the where is the create's unique key).
      const envEncrypted = encryptJson(t.env ?? {});
      const { id } = await db.transformation.upsert({
        where: { teamId_name: { teamId, name: t.name } },
        create: { id: createId("transformation"), teamId, name: t.name, code: t.code, envEncrypted },
        update: { code: t.code, envEncrypted, updatedAt: new Date() },
        select: { id: true },
      });
      out.push({ type: "transform", transformation_id: id });
      continue;
    }
    if (rule.type === "transform") {
      const found = await db.transformation.findFirst({ where: { id: rule.transformation_id, teamId }, select: { id: true } });
      if (!found)
        throw unprocessable(`Transformation ${rule.transformation_id} does not exist`, { field: `rules.${i}.transformation_id`, id: rule.transformation_id });
    }
    out.push(rule);
  }
  return out;
}

/** A source or destination the body references by id: it must be the team's (422 naming the field otherwise, not 404: the connection is what is addressed). */
async function referenced<R>(table: TeamModel<R>, teamId: string, id: string, field: string, db: PrismaDb = getPrisma()): Promise<R> {
  const row = await findTeamModel(table, teamId, id, db);
  if (!row) throw unprocessable(`${field} ${id} does not exist`, { field, id });
  return row;
}

/** Runs `fn`; a 422 it throws naming a field of an inline source or destination is renamed under `prefix` ("destination.config.url"). */
async function within<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw isAppError(err, "VALIDATION") ? withFieldPrefix(err, prefix) : err;
  }
}

/**
 * The inline source of a connection body: the team's source with that name, unchanged (its config
 * is not updated), or a new one. A source created by a concurrent request in between is reused.
 */
async function inlineSource(teamId: string, input: NonNullable<TConnectionCreate["source"]>, version: ApiVersion, db: PrismaDb): Promise<SourceRow> {
  const existing = await findSourceByName(teamId, input.name, db);
  if (existing) return existing;
  return within("source", async () => {
    try {
      return await createSource(teamId, input, version, db);
    } catch (err) {
      const winner = err instanceof AppError && err.status === 409 ? await findSourceByName(teamId, input.name, db) : null;
      if (!winner) throw err;
      return winner;
    }
  });
}

/** The inline destination of a connection body: the team's destination with that name, unchanged, or a new one. */
async function inlineDestination(teamId: string, input: NonNullable<TConnectionCreate["destination"]>, db: PrismaDb): Promise<DestinationRow> {
  const existing = await findDestinationByName(teamId, input.name, db);
  if (existing) return existing;
  return within("destination", async () => {
    try {
      return await createDestination(teamId, input, db);
    } catch (err) {
      const winner = err instanceof AppError && err.status === 409 ? await findDestinationByName(teamId, input.name, db) : null;
      if (!winner) throw err;
      return winner;
    }
  });
}

/**
 * Creates a connection; inline source/destination are reused by name or created in the same
 * transaction (a failure leaves none behind), referenced ones must be the team's (422 naming
 * `source_id`/`destination_id`). 409 RESOURCE_ALREADY_EXISTS when the name is taken on the source.
 */
export async function createConnection(teamId: string, input: TConnectionCreate, version: ApiVersion): Promise<ConnectionRow> {
  return getPrisma().$transaction(async (db) => {
    const source = input.source_id
      ? await referenced(SOURCES, teamId, input.source_id, "source_id", db)
      : await inlineSource(teamId, input.source!, version, db);
    const destination = input.destination_id
      ? await referenced(DESTINATIONS, teamId, input.destination_id, "destination_id", db)
      : await inlineDestination(teamId, input.destination!, db);
    const rules = await storeRules(teamId, input.rules ?? [], version, db);
    // skipDuplicates is ON CONFLICT DO NOTHING: a taken name leaves the transaction usable for the lookup below.
    const [row] = await db.connection.createManyAndReturn({
      data: [
        {
          id: createId("connection"),
          teamId,
          name: input.name,
          description: input.description ?? null,
          sourceId: source.id,
          destinationId: destination.id,
          rules: asJson(rules),
          rulesVersion: version,
        },
      ],
      skipDuplicates: true,
    });
    if (row) return row as ConnectionRow;
    const existing = await db.connection.findFirst({ where: { sourceId: source.id, name: input.name }, select: { id: true } });
    throw alreadyExists({ id: existing?.id, resource_type: "connection" });
  }, transactionOptions());
}

/** Updates name, description and rules of connection `id`. Throws 404, 409, 422. */
export async function updateConnection(teamId: string, id: string, input: TConnectionUpdate, version: ApiVersion): Promise<ConnectionRow> {
  const taken = (db: PrismaDb, sourceId: string, name: string) => db.connection.findFirst({ where: { sourceId, name, NOT: { id } }, select: { id: true } });
  let sourceId: string | undefined;
  let name: string | undefined;
  try {
    return await getPrisma().$transaction(async (db) => {
      const current = await getConnection(teamId, id, db);
      const rules = input.rules ? await storeRules(teamId, input.rules, version, db) : current.rules;
      sourceId = current.sourceId;
      name = input.name ?? current.name;
      // The name check comes first: a unique violation would abort the transaction (a concurrent rename is caught below).
      const other = await taken(db, sourceId, name);
      if (other) throw alreadyExists({ id: other.id, resource_type: "connection" });
      const data = {
        name,
        description: input.description !== undefined ? input.description : current.description,
        rules: rules as object[],
        rulesVersion: input.rules ? version : current.rulesVersion,
        updatedAt: new Date(),
      };
      return (await db.connection.update({ where: { id, teamId }, data })) as ConnectionRow;
    }, transactionOptions());
  } catch (err) {
    if (!isUniqueViolation(err) || !sourceId || !name) throw err;
    throw alreadyExists({ id: (await taken(getPrisma(), sourceId, name))?.id, resource_type: "connection" });
  }
}

/**
 * `PUT /connections`: identity is name + source (docs/gateway-api.md#connections). The connection with this name on this
 * source is updated (description and rules; what is not given is kept), else created. Its source and
 * destination cannot change: a destination other than the existing one's is a 422 naming the field.
 * A concurrent upsert that created it first is not a conflict: this one then updates it.
 */
export async function upsertConnection(teamId: string, input: TConnectionCreate, version: ApiVersion): Promise<ConnectionRow> {
  const existing = await findForUpsert(teamId, input);
  if (existing) return updateExisting(teamId, existing, input, version);
  try {
    return await createConnection(teamId, input, version);
  } catch (err) {
    const winner = err instanceof AppError && err.status === 409 ? await findForUpsert(teamId, input) : null;
    if (!winner) throw err;
    return updateExisting(teamId, winner, input, version);
  }
}

async function findForUpsert(teamId: string, input: TConnectionCreate): Promise<ConnectionRow | null> {
  const source = input.source_id ? await referenced(SOURCES, teamId, input.source_id, "source_id") : await findSourceByName(teamId, input.source!.name);
  if (!source) return null;
  return (await getPrisma().connection.findFirst({ where: { teamId, sourceId: source.id, name: input.name } })) as ConnectionRow | null;
}

async function updateExisting(teamId: string, existing: ConnectionRow, input: TConnectionCreate, version: ApiVersion): Promise<ConnectionRow> {
  const destinationId = input.destination_id ?? (await findDestinationByName(teamId, input.destination!.name))?.id;
  if (destinationId !== existing.destinationId) {
    const field = input.destination_id ? "destination_id" : "destination.name";
    throw unprocessable(
      `Connection ${existing.id} delivers to destination ${existing.destinationId}; a connection's source and destination cannot change (create another connection)`,
      {
        field,
        id: existing.id,
      },
    );
  }
  return updateConnection(teamId, existing.id, { description: input.description, rules: input.rules }, version);
}

/** Pauses (events wait in HOLD) or unpauses connection `id`. Throws 404. */
export const setConnectionPaused = (teamId: string, id: string, paused: boolean): Promise<ConnectionRow> =>
  setTeamModelTime(CONNECTIONS, teamId, id, "pausedAt", paused);

/** `GET /connections` and `/connections/count` filters: the shared ones but `type`, plus source_id, destination_id, paused_at and full_name. */
export const CONNECTION_FILTERS: FilterTable = (() => {
  const { type: _connectionsHaveNoType, ...shared } = namedFilters("c", "Connection");
  return {
    ...shared,
    full_name: stringFilter(
      "(SELECT s.name FROM sources s WHERE s.id = c.source_id) || ' -> ' || c.name",
      "`<source name> -> <connection name>`, an array, or `full_name[contains]=`.",
    ),
    source_id: stringFilter("c.source_id", "Source id, or an array."),
    destination_id: stringFilter("c.destination_id", "Destination id, or an array."),
    paused_at: dateFilter("c.paused_at", "When it was paused: a date or operators; `paused_at[any]=true` for paused connections."),
  };
})();

const connectionFilters = (teamId: string, query: ParsedQuery) => teamRowFilters(CONNECTIONS, teamId, query, CONNECTION_FILTERS);

/** One page of the team's connections (rows; the caller attaches sources and destinations). Stays SQL: the shared filter builders and keyset cursor, and `full_name` (a subquery on sources). */
export async function listConnections(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<ConnectionRow>> {
  const { where, params } = connectionFilters(teamId, query);
  return selectPage<ConnectionRow, ConnectionRow>({
    db: getPool(),
    select: COLUMNS,
    from: "connections c",
    where,
    params,
    page,
    columns: NAMED_ORDER_COLUMNS("c"),
    idColumn: "c.id",
    toModel: (r) => r,
  });
}

/** How many of the team's connections match the filters. */
export async function countConnections(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = connectionFilters(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM connections c WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}
