/**
 * Sources of a gateway team: create, upsert by name, update, read, list, count, delete, disable.
 * Every function is scoped by `teamId`: another team's source is "not found". Validation of `type`
 * and `config` is resolveSourceConfig's; credentials are stored encrypted (`auth_encrypted`).
 */
import type pg from "pg";
import { encryptJson, decryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import type { TSourceCreate, TSourceUpdate } from "@/lib/gateway/sources/schemas";
import { SOURCE_COLUMNS, type SourceRow } from "@/lib/gateway/sources/source-model";
import { resolveSourceConfig } from "@/lib/gateway/sources/validate-config";
import type { ApiVersion } from "@/lib/gateway/versions";
import { alreadyExists, notFound } from "@/lib/http/errors";
import { filterSql, type ParsedQuery, parseFilter } from "@/lib/http/query";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import { createId } from "@/lib/ids";

type Db = pg.Pool | pg.PoolClient;

/** The source `id` of `teamId`; throws 404 NOT_FOUND otherwise. */
export async function getSource(teamId: string, id: string, db: Db = getPool()): Promise<SourceRow> {
  const { rows } = await db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM sources s WHERE s.id = $1 AND s.team_id = $2`, [id, teamId]);
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

/** The source named `name` in `teamId`, or null. */
export async function findSourceByName(teamId: string, name: string, db: Db = getPool()): Promise<SourceRow | null> {
  const { rows } = await db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM sources s WHERE s.team_id = $1 AND s.name = $2`, [teamId, name]);
  return rows[0] ?? null;
}

/** Creates a source; 409 RESOURCE_ALREADY_EXISTS (`data: {id, resource_type}`) when the name is taken; 422 on invalid config. */
export async function createSource(teamId: string, input: TSourceCreate, version: ApiVersion, db: Db = getPool()): Promise<SourceRow> {
  const resolved = resolveSourceConfig(input.type ?? "WEBHOOK", input.config, version);
  const { rows } = await db.query<SourceRow>(
    `INSERT INTO sources AS s (id, team_id, name, description, type, config, auth_encrypted, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())
     ON CONFLICT (team_id, name) DO NOTHING RETURNING ${SOURCE_COLUMNS}`,
    [createId("source"), teamId, input.name, input.description ?? null, resolved.type, JSON.stringify(resolved.config), encryptJson(resolved.auth)],
  );
  if (rows[0]) return rows[0];
  const existing = await findSourceByName(teamId, input.name, db);
  throw alreadyExists({ id: existing?.id, resource_type: "source" });
}

/**
 * Updates source `id` with the given fields; config keys not given keep their value (credentials
 * included, unless `auth_type` changes). Throws 404, 409 (name taken) or 422.
 */
export async function updateSource(teamId: string, id: string, input: TSourceUpdate, version: ApiVersion, db: Db = getPool()): Promise<SourceRow> {
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
      auth: keepAuth ? decryptJson<Record<string, unknown>>(current.auth_encrypted) : given.auth,
    },
    version,
  );
  const { rows } = await db.query<SourceRow>(
    `UPDATE sources AS s SET name = $3, description = $4, type = $5, config = $6, auth_encrypted = $7, updated_at = now()
      WHERE s.id = $1 AND s.team_id = $2
        AND NOT EXISTS (SELECT 1 FROM sources o WHERE o.team_id = $2 AND o.name = $3 AND o.id <> $1)
      RETURNING ${SOURCE_COLUMNS}`,
    [id, teamId, input.name ?? current.name, input.description !== undefined ? input.description : current.description, resolved.type, JSON.stringify(resolved.config), encryptJson(resolved.auth)],
  );
  if (rows[0]) return rows[0];
  const other = await findSourceByName(teamId, input.name!, db);
  throw alreadyExists({ id: other?.id, resource_type: "source" });
}

/** `PUT /sources`: updates the source named `input.name`, or creates it. */
export async function upsertSource(teamId: string, input: TSourceCreate, version: ApiVersion): Promise<SourceRow> {
  const existing = await findSourceByName(teamId, input.name);
  if (existing) return updateSource(teamId, existing.id, input, version);
  return createSource(teamId, input, version);
}

/** Deletes source `id` (its requests and connections go with it). Throws 404. */
export async function deleteSource(teamId: string, id: string): Promise<{ id: string }> {
  const { rowCount } = await getPool().query("DELETE FROM sources WHERE id = $1 AND team_id = $2", [id, teamId]);
  if (!rowCount) throw notFound(id);
  return { id };
}

/** Disables (`disabled` true) or enables source `id`; idempotent. Throws 404. */
export async function setSourceDisabled(teamId: string, id: string, disabled: boolean): Promise<SourceRow> {
  const { rows } = await getPool().query<SourceRow>(
    `UPDATE sources AS s SET disabled_at = CASE WHEN $3 THEN coalesce(s.disabled_at, now()) ELSE NULL END, updated_at = now()
      WHERE s.id = $1 AND s.team_id = $2 RETURNING ${SOURCE_COLUMNS}`,
    [id, teamId, disabled],
  );
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

export const SOURCE_ORDER_BY = ["created_at", "updated_at", "name"] as const;

/**
 * WHERE clauses of the list and count filters: `id`, `name` (value, array or operators), `type`,
 * `disabled_at` (date operators), and `disabled` (true: include disabled sources; default: only enabled).
 */
export function sourceFilters(teamId: string, query: ParsedQuery): { where: string[]; params: unknown[] } {
  const params: unknown[] = [teamId];
  const where = ["s.team_id = $1"];
  const id = parseFilter(query, "id", "string");
  if (id) where.push(filterSql("s.id", id, params));
  const name = parseFilter(query, "name", "string");
  if (name) where.push(filterSql("s.name", name, params));
  const type = parseFilter(query, "type", "string");
  if (type) where.push(filterSql("s.type", type, params));
  const disabledAt = parseFilter(query, "disabled_at", "date");
  if (disabledAt) where.push(filterSql("s.disabled_at", disabledAt, params));
  const disabled = parseFilter(query, "disabled", "boolean");
  const includeDisabled = disabled?.kind === "eq" && disabled.values[0] === true;
  if (!includeDisabled && !disabledAt) where.push("s.disabled_at IS NULL");
  return { where, params };
}

/** One page of the team's sources. */
export async function listSources<T>(teamId: string, query: ParsedQuery, page: PageRequest, toModel: (row: SourceRow) => T): Promise<Page<T>> {
  const { where, params } = sourceFilters(teamId, query);
  return selectPage<SourceRow, T>({
    db: getPool(),
    select: SOURCE_COLUMNS,
    from: "sources s",
    where,
    params,
    page,
    columns: { created_at: { sql: "s.created_at", type: "date" }, updated_at: { sql: "s.updated_at", type: "date" }, name: { sql: "s.name", type: "text" } },
    idColumn: "s.id",
    toModel,
  });
}

/** How many of the team's sources match the filters. */
export async function countSources(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = sourceFilters(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM sources s WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0]!.count };
}
