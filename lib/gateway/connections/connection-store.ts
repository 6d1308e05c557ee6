/**
 * Connections of a gateway team (API name "webhook", ids `web_…`): create with inline or referenced
 * source and destination, upsert by name + source, update, read, list, count, delete, pause, disable.
 * A connection records the API version that last wrote its rules (`rules_version`).
 */
import type pg from "pg";
import { encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import type { TConnectionCreate, TConnectionUpdate, TRule } from "@/lib/gateway/connections/schemas";
import { createDestination, DESTINATIONS, findDestinationByName } from "@/lib/gateway/destinations/destination-store";
import type { DestinationRow } from "@/lib/gateway/destinations/destination-model";
import type { SourceRow } from "@/lib/gateway/sources/source-model";
import { inTransaction } from "@/lib/db/transaction";
import { createSource, findSourceByName, SOURCES } from "@/lib/gateway/sources/source-store";
import { deleteTeamRow, findTeamRow, getTeamRow, NAMED_ORDER_COLUMNS, setTeamRowDisabled, namedFilters, type TeamTable, teamRowFilters } from "@/lib/gateway/team-resources";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { alreadyExists, AppError, isAppError, notFound, unprocessable, withFieldPrefix } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { dateFilter, type FilterTable, stringFilter } from "@/lib/http/query-schema";
import { createId } from "@/lib/ids";

type Db = pg.Pool | pg.PoolClient;

export type ConnectionRow = {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  source_id: string;
  destination_id: string;
  rules: Record<string, unknown>[];
  rules_version: string;
  paused_at: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = "c.id, c.team_id, c.name, c.description, c.source_id, c.destination_id, c.rules, c.rules_version, c.paused_at, c.disabled_at, c.created_at, c.updated_at";
const CONNECTIONS: TeamTable = { table: "connections", alias: "c", columns: COLUMNS };
export const CONNECTION_ORDER_BY = ["created_at", "updated_at", "name"] as const;

export const getConnection = (teamId: string, id: string, db: Db = getPool()) => getTeamRow<ConnectionRow>(CONNECTIONS, teamId, id, db);
export const deleteConnection = (teamId: string, id: string) => deleteTeamRow(CONNECTIONS, teamId, id);
export const setConnectionDisabled = (teamId: string, id: string, disabled: boolean) => setTeamRowDisabled<ConnectionRow>(CONNECTIONS, teamId, id, disabled);

/**
 * Rules as stored: inline transformations are created (or, when one with that name exists in the
 * team, updated) and referenced by `transformation_id`; a referenced `transformation_id` must belong
 * to the team. The deduplicate rule exists from 2025-07-01. Throws 422 naming the rule.
 */
async function storeRules(teamId: string, rules: TRule[], version: ApiVersion, db: Db): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.type === "deduplicate" && !isAtLeast(version, "2025-07-01")) {
      throw unprocessable("The deduplicate rule exists from API version 2025-07-01", { field: `rules.${i}.type` });
    }
    if (rule.type === "transform" && rule.transformation) {
      const t = rule.transformation;
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO transformations (id, team_id, name, code, env_encrypted, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())
         ON CONFLICT (team_id, name) DO UPDATE SET code = EXCLUDED.code, env_encrypted = EXCLUDED.env_encrypted, updated_at = now() RETURNING id`,
        [createId("transformation"), teamId, t.name, t.code, encryptJson(t.env ?? {})],
      );
      out.push({ type: "transform", transformation_id: rows[0].id });
      continue;
    }
    if (rule.type === "transform") {
      const { rowCount } = await db.query("SELECT 1 FROM transformations WHERE id = $1 AND team_id = $2", [rule.transformation_id, teamId]);
      if (!rowCount) throw unprocessable(`Transformation ${rule.transformation_id} does not exist`, { field: `rules.${i}.transformation_id`, id: rule.transformation_id });
    }
    out.push(rule);
  }
  return out;
}

/** A source or destination the body references by id: it must be the team's (422 naming the field otherwise, not 404: the connection is what is addressed). */
async function referenced<R extends pg.QueryResultRow>(table: TeamTable, teamId: string, id: string, field: string, db: Db = getPool()): Promise<R> {
  const row = await findTeamRow<R>(table, teamId, id, db);
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
async function inlineSource(teamId: string, input: NonNullable<TConnectionCreate["source"]>, version: ApiVersion, db: pg.PoolClient): Promise<SourceRow> {
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
async function inlineDestination(teamId: string, input: NonNullable<TConnectionCreate["destination"]>, db: pg.PoolClient): Promise<DestinationRow> {
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
  return inTransaction(async (db) => {
    const source = input.source_id
      ? await referenced<SourceRow>(SOURCES, teamId, input.source_id, "source_id", db)
      : await inlineSource(teamId, input.source!, version, db);
    const destination = input.destination_id
      ? await referenced<DestinationRow>(DESTINATIONS, teamId, input.destination_id, "destination_id", db)
      : await inlineDestination(teamId, input.destination!, db);
    const rules = await storeRules(teamId, input.rules ?? [], version, db);
    const { rows } = await db.query<ConnectionRow>(
      `INSERT INTO connections AS c (id, team_id, name, description, source_id, destination_id, rules, rules_version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), now()) ON CONFLICT (source_id, name) DO NOTHING RETURNING ${COLUMNS}`,
      [createId("connection"), teamId, input.name, input.description ?? null, source.id, destination.id, JSON.stringify(rules), version],
    );
    if (rows[0]) return rows[0];
    const { rows: existing } = await db.query<{ id: string }>("SELECT id FROM connections WHERE source_id = $1 AND name = $2", [source.id, input.name]);
    throw alreadyExists({ id: existing[0]?.id, resource_type: "connection" });
  });
}

/** Updates name, description and rules of connection `id`. Throws 404, 409, 422. */
export async function updateConnection(teamId: string, id: string, input: TConnectionUpdate, version: ApiVersion): Promise<ConnectionRow> {
  return inTransaction(async (db) => {
    const current = await getConnection(teamId, id, db);
    const rules = input.rules ? await storeRules(teamId, input.rules, version, db) : current.rules;
    const name = input.name ?? current.name;
    const { rows } = await db.query<ConnectionRow>(
      `UPDATE connections AS c SET name = $3, description = $4, rules = $5, rules_version = $6, updated_at = now()
        WHERE c.id = $1 AND c.team_id = $2
          AND NOT EXISTS (SELECT 1 FROM connections o WHERE o.source_id = c.source_id AND o.name = $3 AND o.id <> $1)
        RETURNING ${COLUMNS}`,
      [id, teamId, name, input.description !== undefined ? input.description : current.description, JSON.stringify(rules), input.rules ? version : current.rules_version],
    );
    if (rows[0]) return rows[0];
    const { rows: other } = await db.query<{ id: string }>("SELECT id FROM connections WHERE source_id = $1 AND name = $2", [current.source_id, name]);
    throw alreadyExists({ id: other[0]?.id, resource_type: "connection" });
  });
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
  const source = input.source_id ? await referenced<SourceRow>(SOURCES, teamId, input.source_id, "source_id") : await findSourceByName(teamId, input.source!.name);
  if (!source) return null;
  const { rows } = await getPool().query<ConnectionRow>(`SELECT ${COLUMNS} FROM connections c WHERE c.team_id = $1 AND c.source_id = $2 AND c.name = $3`, [teamId, source.id, input.name]);
  return rows[0] ?? null;
}

async function updateExisting(teamId: string, existing: ConnectionRow, input: TConnectionCreate, version: ApiVersion): Promise<ConnectionRow> {
  const destinationId = input.destination_id ?? (await findDestinationByName(teamId, input.destination!.name))?.id;
  if (destinationId !== existing.destination_id) {
    const field = input.destination_id ? "destination_id" : "destination.name";
    throw unprocessable(`Connection ${existing.id} delivers to destination ${existing.destination_id}; a connection's source and destination cannot change (create another connection)`, {
      field,
      id: existing.id,
    });
  }
  return updateConnection(teamId, existing.id, { description: input.description, rules: input.rules }, version);
}

/**
 * Connections a request names by id (e.g. `webhook_ids` of a retry or replay): each must be the
 * team's and enabled, else 422 with `data.id` (docs/gateway-api.md#errors).
 * Returns the rows in the order given.
 */
export async function requireActiveConnections(teamId: string, ids: string[], field = "webhook_ids", db: Db = getPool()): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${COLUMNS} FROM connections c WHERE c.team_id = $1 AND c.id = ANY($2)`, [teamId, ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id, i) => {
    const row = byId.get(id);
    if (!row || row.disabled_at) throw unprocessable(`Connection ${id} does not exist or is disabled`, { id, field: `${field}.${i}` });
    return row;
  });
}

/** Pauses (events wait in HOLD) or unpauses connection `id`. Throws 404. */
export async function setConnectionPaused(teamId: string, id: string, paused: boolean): Promise<ConnectionRow> {
  const { rows } = await getPool().query<ConnectionRow>(
    `UPDATE connections AS c SET paused_at = CASE WHEN $3 THEN coalesce(c.paused_at, now()) ELSE NULL END, updated_at = now()
      WHERE c.id = $1 AND c.team_id = $2 RETURNING ${COLUMNS}`,
    [id, teamId, paused],
  );
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

/** `GET /connections` and `/connections/count` filters: the shared ones but `type`, plus source_id, destination_id, paused_at and full_name. */
export const CONNECTION_FILTERS: FilterTable = (() => {
  const { type: _connectionsHaveNoType, ...shared } = namedFilters("c", "Connection");
  return {
    ...shared,
    full_name: stringFilter("(SELECT s.name FROM sources s WHERE s.id = c.source_id) || ' -> ' || c.name", "`<source name> -> <connection name>`, an array, or `full_name[contains]=`."),
    source_id: stringFilter("c.source_id", "Source id, or an array."),
    destination_id: stringFilter("c.destination_id", "Destination id, or an array."),
    paused_at: dateFilter("c.paused_at", "When it was paused: a date or operators; `paused_at[any]=true` for paused connections."),
  };
})();

const connectionFilters = (teamId: string, query: ParsedQuery) => teamRowFilters(CONNECTIONS, teamId, query, CONNECTION_FILTERS);

/** One page of the team's connections (rows; the caller attaches sources and destinations). */
export async function listConnections(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<ConnectionRow>> {
  const { where, params } = connectionFilters(teamId, query);
  return selectPage<ConnectionRow, ConnectionRow>({ db: getPool(), select: COLUMNS, from: "connections c", where, params, page, columns: NAMED_ORDER_COLUMNS("c"), idColumn: "c.id", toModel: (r) => r });
}

/** How many of the team's connections match the filters. */
export async function countConnections(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = connectionFilters(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM connections c WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}
