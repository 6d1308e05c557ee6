/**
 * Operations every named, team-owned gateway resource shares (sources, destinations…): read by id or
 * name, delete, disable/enable, the common list filters. Scoped by team: another team's id is 404.
 * `table` and `columns` are trusted constants of the calling module, never user input.
 */
import { getPool } from "@/lib/db/pool";
import { columnName, getPrisma, isRecordNotFound, isUniqueViolation, type PrismaDb } from "@/lib/db/prisma";
import { alreadyExists, notFound } from "@/lib/http/errors";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, dateFilter, type FilterTable, flagParameter, stringFilter } from "@/lib/http/query-schema";

type TeamTable = { table: string; alias: string; columns: string };

/**
 * The Prisma delegate operations a named, team-owned model offers (`prisma.source`, `prisma.destination`…),
 * narrowed to what the shared operations below use. `R` is the model's row type.
 */
export type TeamDelegate<R> = {
  findFirst(args: { where: { id?: string | { in: string[] }; teamId: string; name?: string } }): Promise<R | null>;
  deleteMany(args: { where: { id: string; teamId: string } }): Promise<{ count: number }>;
  update(args: { where: { id: string; teamId: string }; data: Record<string, unknown> }): Promise<R>;
  updateManyAndReturn(args: { where: { id: string; teamId: string; [time: string]: unknown }; data: Record<string, unknown> }): Promise<R[]>;
  create(args: { data: Record<string, unknown> }): Promise<R>;
  createManyAndReturn(args: { data: Record<string, unknown>[]; skipDuplicates: true }): Promise<R[]>;
};

/** A team-owned model read through Prisma: its table for the SQL lists (`columns` in the model's shape, lib/db/prisma.ts modelColumns) and its delegate on a client or transaction. */
export type TeamModel<R> = TeamTable & { delegate: (db: PrismaDb) => TeamDelegate<R> };

/**
 * The row `id` of `teamId`, or null. On the client it stays SQL (the model's columns, `t.columns`, so the
 * same row type): GET one is the API's most frequent read, and Prisma's per-query CPU put it 16–21 % behind
 * at p50 (docs/benchmarks.md "API latency"). In a transaction: the transaction's Prisma client.
 */
export async function findTeamModel<R>(t: TeamModel<R>, teamId: string, id: string, db: PrismaDb = getPrisma()): Promise<R | null> {
  if (db !== getPrisma()) return t.delegate(db).findFirst({ where: { id, teamId } });
  const { rows } = await getPool().query(`SELECT ${t.columns} FROM ${t.table} ${t.alias} WHERE ${t.alias}.id = $1 AND ${t.alias}.team_id = $2`, [id, teamId]);
  return (rows[0] as R | undefined) ?? null;
}

/** The row `id` of `teamId`; throws 404 NOT_FOUND otherwise. */
export async function getTeamModel<R>(t: TeamModel<R>, teamId: string, id: string, db: PrismaDb = getPrisma()): Promise<R> {
  const row = await findTeamModel(t, teamId, id, db);
  if (!row) throw notFound(id);
  return row;
}

/** The row named `name` in `teamId`, or null. */
export const findTeamModelByName = <R>(t: TeamModel<R>, teamId: string, name: string, db: PrismaDb = getPrisma()): Promise<R | null> =>
  t.delegate(db).findFirst({ where: { teamId, name } });

/**
 * Inserts `data` (the model's fields, Prisma names; `createdAt` and `updatedAt` default to now) and returns
 * the row; null when the name is taken in the team (the caller answers 409). On the client: one hand-written
 * statement, {@link insertTeamRow}. In a transaction (`db` is a transaction's client):
 * `createManyAndReturn` with `skipDuplicates` (INSERT … ON CONFLICT DO NOTHING), so a taken name does not
 * abort the transaction.
 */
export async function createTeamModel<R>(t: TeamModel<R>, data: Record<string, unknown>, db: PrismaDb = getPrisma()): Promise<R | null> {
  if (db !== getPrisma()) return (await t.delegate(db).createManyAndReturn({ data: [data], skipDuplicates: true }))[0] ?? null;
  return insertTeamRow(t, data);
}

/**
 * `INSERT … ON CONFLICT (team_id, name) DO NOTHING RETURNING <t.columns>` of `data` (Prisma field names,
 * snake_cased to columns; objects written as JSON): the row in the model's shape, or null when the name is
 * taken. `t.table` must have a unique (team_id, name).
 */
async function insertTeamRow<R>(t: TeamModel<R>, data: Record<string, unknown>): Promise<R | null> {
  // SQL, not Prisma's create: a create is on the API's hot path and Prisma's runtime CPU made it 27 % slower at p50 (docs/benchmarks.md "API latency").
  const fields = Object.keys(data);
  const params = fields.map((f) => {
    const v = data[f];
    return v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : v;
  });
  const columns = fields.map((f) => columnName(f));
  const placeholders = params.map((_, i) => `$${i + 1}`);
  for (const stamp of ["created_at", "updated_at"])
    if (!columns.includes(stamp)) {
      columns.push(stamp);
      placeholders.push("now()");
    }
  const { rows } = await getPool().query(
    `INSERT INTO ${t.table} AS ${t.alias} (${columns.join(", ")}) VALUES (${placeholders.join(", ")}) ON CONFLICT (team_id, name) DO NOTHING RETURNING ${t.columns}`,
    params,
  );
  return (rows[0] as R | undefined) ?? null;
}

/**
 * Writes `data` to row `id` of `teamId` and returns it; null when a unique name is taken (the caller
 * answers 409). Throws 404 when there is no such row. Not for use inside a transaction: the violation
 * would abort it.
 */
export async function updateTeamModel<R>(
  t: TeamModel<R>,
  teamId: string,
  id: string,
  data: Record<string, unknown>,
  db: PrismaDb = getPrisma(),
): Promise<R | null> {
  try {
    return await t.delegate(db).update({ where: { id, teamId }, data });
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    if (isRecordNotFound(err)) throw notFound(id);
    throw err;
  }
}

/**
 * 409 RESOURCE_ALREADY_EXISTS with `data.detail` worded as PostgreSQL words a unique violation of
 * `columns` (`Key (team_id, name)=(team_x, n) already exists.`): what answers carried when the violation
 * reached the API wrapper (lib/gateway/http.ts), which Prisma's error no longer does.
 */
export const nameTaken = (columns: string[], values: string[]) =>
  alreadyExists({ detail: `Key (${columns.join(", ")})=(${values.join(", ")}) already exists.` });

/** Deletes row `id` of `teamId`; `{id}`; throws 404. */
export async function deleteTeamModel<R>(t: TeamModel<R>, teamId: string, id: string): Promise<{ id: string }> {
  const { count } = await t.delegate(getPrisma()).deleteMany({ where: { id, teamId } });
  if (!count) throw notFound(id);
  return { id };
}

/**
 * Sets (keeping the first time) or clears the time `field` (`disabledAt`, `pausedAt`) of row `id`, bumping
 * `updatedAt`; throws 404. Each statement is one conditional UPDATE: setting writes the time where none
 * is set, else (already set) only bumps `updatedAt`; a concurrent clear in between makes it try again, so
 * the answer always has the time set.
 */
export async function setTeamModelTime<R>(t: TeamModel<R>, teamId: string, id: string, field: "disabledAt" | "pausedAt", on: boolean): Promise<R> {
  const model = t.delegate(getPrisma());
  for (;;) {
    const now = new Date();
    const [set] = await model.updateManyAndReturn({
      where: { id, teamId, ...(on ? { [field]: null } : {}) },
      data: { [field]: on ? now : null, updatedAt: now },
    });
    if (set) return set;
    const [bumped] = await model.updateManyAndReturn({ where: { id, teamId, [field]: { not: null } }, data: { updatedAt: now } });
    if (bumped) return bumped;
    if (!(await model.findFirst({ where: { id, teamId } }))) throw notFound(id);
  }
}

/** Disables (keeping the first time) or enables row `id`: {@link setTeamModelTime} of `disabledAt`. */
export const setTeamModelDisabled = <R>(t: TeamModel<R>, teamId: string, id: string, disabled: boolean) =>
  setTeamModelTime(t, teamId, id, "disabledAt", disabled);

/**
 * The list/count filters every named resource shares (docs/gateway-api.md#lists-and-paging):
 * `id`, `name` (value, array or `{contains, any}`), `type`, `disabled_at` (date
 * operators) and `disabled` (`true` includes disabled rows; by default they are left out). `alias` is the
 * table's alias in the query; `what` names the resource in the descriptions.
 */
export function namedFilters(alias: string, what: string): FilterTable {
  return {
    id: stringFilter(`${alias}.id`, `${what} id, or an array \`id[]=…\`.`),
    name: stringFilter(`${alias}.name`, "Name, an array, or `name[contains]=`."),
    type: stringFilter(`${alias}.type`, `${what} type, or an array.`),
    disabled: flagParameter("`true` includes disabled ones (left out by default)."),
    disabled_at: dateFilter(`${alias}.disabled_at`, "When it was disabled: a date, or operators `gte gt lte lt any`; given, disabled ones are included."),
  };
}

/**
 * WHERE clauses (team first, `$1`) of `query` filtered by `table` (e.g. `namedFilters`): throws 400 BAD_REQUEST naming a parameter with a bad value. Disabled rows are left out unless
 * `disabled=true` or a `disabled_at` filter is given.
 */
export function teamRowFilters(t: TeamTable, teamId: string, query: ParsedQuery, table: FilterTable): { where: string[]; params: unknown[] } {
  const params: unknown[] = [teamId];
  const where = [`${t.alias}.team_id = $1`];
  applyFilterTable(table, query, where, params);
  if (!table.disabled) return { where, params };
  const includeDisabled = query.disabled === "true" || query.disabled === "1";
  if (!includeDisabled && query.disabled_at === undefined) where.push(`${t.alias}.disabled_at IS NULL`);
  return { where, params };
}

/** How many rows of the team match `table`'s filters; throws 400 for bad values. */
export async function countTeamRows(t: TeamTable, teamId: string, query: ParsedQuery, table: FilterTable): Promise<{ count: number }> {
  const { where, params } = teamRowFilters(t, teamId, query, table);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM ${t.table} ${t.alias} WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}

/** Sort columns shared by named resources. */
export const NAMED_ORDER_COLUMNS = (alias: string) => ({
  created_at: { sql: `${alias}.created_at`, type: "date" as const },
  updated_at: { sql: `${alias}.updated_at`, type: "date" as const },
  name: { sql: `${alias}.name`, type: "text" as const },
});

/** `PUT /{resource}/{id}/{action}`: whether the action disables (true) or enables (false); undefined for unknown actions. */
// Null prototype: a path segment such as `constructor` or `__proto__` finds nothing (docs/gateway-api.md#input-limits).
export const DISABLE_ACTIONS: Readonly<Record<string, boolean | undefined>> = Object.assign(Object.create(null) as Record<string, boolean | undefined>, {
  disable: true,
  archive: true,
  enable: false,
  unarchive: false,
});

/** True when the `include` query parameter (one value or an array) names one of `values`. */
export function includesAny(query: ParsedQuery, ...values: string[]): boolean {
  const include = query.include;
  const given = Array.isArray(include) ? include : include === undefined ? [] : [include];
  return given.some((v) => typeof v === "string" && values.includes(v));
}
