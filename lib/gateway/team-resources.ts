/**
 * Operations every named, team-owned gateway resource shares (sources, destinations…): read by id or
 * name, delete, disable/enable, the common list filters. Scoped by team: another team's id is 404.
 * `table` and `columns` are trusted constants of the calling module, never user input.
 */
import type pg from "pg";
import { getPool } from "@/lib/db/pool";
import { notFound } from "@/lib/http/errors";
import { filterSql, type ParsedQuery, parseFilter } from "@/lib/http/query";

type Db = pg.Pool | pg.PoolClient;
export type TeamTable = { table: string; alias: string; columns: string };

/** The row `id` of `teamId`, or null. */
export async function findTeamRow<R extends pg.QueryResultRow>(t: TeamTable, teamId: string, id: string, db: Db = getPool()): Promise<R | null> {
  const { rows } = await db.query<R>(`SELECT ${t.columns} FROM ${t.table} ${t.alias} WHERE ${t.alias}.id = $1 AND ${t.alias}.team_id = $2`, [id, teamId]);
  return rows[0] ?? null;
}

/** The row `id` of `teamId`; throws 404 NOT_FOUND otherwise. */
export async function getTeamRow<R extends pg.QueryResultRow>(t: TeamTable, teamId: string, id: string, db: Db = getPool()): Promise<R> {
  const row = await findTeamRow<R>(t, teamId, id, db);
  if (!row) throw notFound(id);
  return row;
}

/** The row named `name` in `teamId`, or null. */
export async function findTeamRowByName<R extends pg.QueryResultRow>(t: TeamTable, teamId: string, name: string, db: Db = getPool()): Promise<R | null> {
  const { rows } = await db.query<R>(`SELECT ${t.columns} FROM ${t.table} ${t.alias} WHERE ${t.alias}.team_id = $1 AND ${t.alias}.name = $2`, [teamId, name]);
  return rows[0] ?? null;
}

/** Deletes row `id` of `teamId`; `{id}`; throws 404. */
export async function deleteTeamRow(t: TeamTable, teamId: string, id: string): Promise<{ id: string }> {
  const { rowCount } = await getPool().query(`DELETE FROM ${t.table} WHERE id = $1 AND team_id = $2`, [id, teamId]);
  if (!rowCount) throw notFound(id);
  return { id };
}

/** Sets (keeping the first time) or clears `disabled_at` of row `id`; throws 404. */
export async function setTeamRowDisabled<R extends pg.QueryResultRow>(t: TeamTable, teamId: string, id: string, disabled: boolean): Promise<R> {
  const { rows } = await getPool().query<R>(
    `UPDATE ${t.table} AS ${t.alias} SET disabled_at = CASE WHEN $3 THEN coalesce(${t.alias}.disabled_at, now()) ELSE NULL END, updated_at = now()
      WHERE ${t.alias}.id = $1 AND ${t.alias}.team_id = $2 RETURNING ${t.columns}`,
    [id, teamId, disabled],
  );
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

/**
 * WHERE clauses of the shared list/count filters: `id`, `name` (value, array or operators), `type`,
 * `disabled_at` (date operators), and `disabled` (true includes disabled rows; by default they are left out).
 */
export function teamRowFilters(t: TeamTable, teamId: string, query: ParsedQuery): { where: string[]; params: unknown[] } {
  const a = t.alias;
  const params: unknown[] = [teamId];
  const where = [`${a}.team_id = $1`];
  for (const [name, type] of [["id", "string"], ["name", "string"], ["type", "string"]] as const) {
    const f = parseFilter(query, name, type);
    if (f) where.push(filterSql(`${a}.${name}`, f, params));
  }
  const disabledAt = parseFilter(query, "disabled_at", "date");
  if (disabledAt) where.push(filterSql(`${a}.disabled_at`, disabledAt, params));
  const disabled = parseFilter(query, "disabled", "boolean");
  const includeDisabled = disabled?.kind === "eq" && disabled.values[0] === true;
  if (!includeDisabled && !disabledAt) where.push(`${a}.disabled_at IS NULL`);
  return { where, params };
}

/** How many rows of the team match the shared filters. */
export async function countTeamRows(t: TeamTable, teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = teamRowFilters(t, teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM ${t.table} ${t.alias} WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0]!.count };
}

/** Sort columns shared by named resources. */
export const NAMED_ORDER_COLUMNS = (alias: string) => ({
  created_at: { sql: `${alias}.created_at`, type: "date" as const },
  updated_at: { sql: `${alias}.updated_at`, type: "date" as const },
  name: { sql: `${alias}.name`, type: "text" as const },
});

/** `PUT /{resource}/{id}/{action}`: whether the action disables (true) or enables (false); undefined for unknown actions. */
export const DISABLE_ACTIONS: Record<string, boolean> = { disable: true, archive: true, enable: false, unarchive: false };

/** True when the `include` query parameter (one value or an array) names one of `values`. */
export function includesAny(query: ParsedQuery, ...values: string[]): boolean {
  const include = query.include;
  const given = Array.isArray(include) ? include : include === undefined ? [] : [include];
  return given.some((v) => typeof v === "string" && values.includes(v));
}
