/**
 * Transformations of a gateway team: CRUD (docs/gateway-api.md#transformations).
 * `env` is stored encrypted (`env_encrypted`, lib/crypto/secrets.ts) and returned
 * decrypted as `env`. Every function is scoped by `teamId`: another team's transformation is "not found".
 * Connections also create transformations inline (lib/gateway/connections).
 */
import { z } from "zod";
import { decryptJson, encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { deleteTeamRow, findTeamRow, findTeamRowByName, getTeamRow, NAMED_ORDER_COLUMNS, namedFilters, type TeamTable, teamRowFilters } from "@/lib/gateway/team-resources";
import { alreadyExists, AppError } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import type { FilterTable } from "@/lib/http/query-schema";
import { createId } from "@/lib/ids";

/** Largest `code`, bytes of UTF-8. */
export const TRANSFORMATION_CODE_MAX_BYTES = 100 * 1024;

const ZCode = z
  .string()
  .min(1)
  .refine((code) => Buffer.byteLength(code, "utf8") <= TRANSFORMATION_CODE_MAX_BYTES, { message: `code must be at most ${TRANSFORMATION_CODE_MAX_BYTES} bytes` })
  .meta({ description: `JavaScript calling addHandler("transform", (request, context) => request); at most ${TRANSFORMATION_CODE_MAX_BYTES} bytes` });
const ZEnv = z.record(z.string().min(1), z.string()).meta({ description: "Environment variables, read as process.env.NAME; stored encrypted" });

export const ZTransformationCreate = z.strictObject({ name: z.string().trim().min(1).max(155), code: ZCode, env: ZEnv.optional() });
export const ZTransformationUpdate = ZTransformationCreate.partial();
export type TTransformationCreate = z.infer<typeof ZTransformationCreate>;
export type TTransformationUpdate = z.infer<typeof ZTransformationUpdate>;

export type TransformationRow = { id: string; team_id: string; name: string; code: string; env_encrypted: string | null; created_at: Date; updated_at: Date };

export const ZTransformation = z
  .object({ id: z.string(), team_id: z.string(), name: z.string(), code: z.string(), env: z.record(z.string(), z.string()), updated_at: z.iso.datetime(), created_at: z.iso.datetime() })
  .meta({ id: "Transformation" });

const COLUMNS = "t.id, t.team_id, t.name, t.code, t.env_encrypted, t.created_at, t.updated_at";
const TRANSFORMATIONS: TeamTable = { table: "transformations", alias: "t", columns: COLUMNS };
export const TRANSFORMATION_ORDER_BY = ["created_at", "updated_at", "name"] as const;

export const toTransformation = (r: TransformationRow): z.infer<typeof ZTransformation> => ({
  id: r.id,
  team_id: r.team_id,
  name: r.name,
  code: r.code,
  env: decryptJson<Record<string, string>>(r.env_encrypted) ?? {},
  updated_at: r.updated_at.toISOString(),
  created_at: r.created_at.toISOString(),
});

/** `GET /transformations` and `/transformations/count` filters: `id` and `name` (transformations are never disabled). */
export const TRANSFORMATION_FILTERS: FilterTable = (({ id, name }) => ({ id, name }))(namedFilters("t", "Transformation"));

const filters = (teamId: string, query: ParsedQuery) => teamRowFilters(TRANSFORMATIONS, teamId, query, TRANSFORMATION_FILTERS);

/** Transformation `id` of `teamId`, or null. */
export const findTransformation = (teamId: string, id: string) => findTeamRow<TransformationRow>(TRANSFORMATIONS, teamId, id);
export const getTransformation = (teamId: string, id: string) => getTeamRow<TransformationRow>(TRANSFORMATIONS, teamId, id);
export const deleteTransformation = (teamId: string, id: string) => deleteTeamRow(TRANSFORMATIONS, teamId, id);
/** How many of the team's transformations match `id` / `name`. */
export async function countTransformations(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = filters(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM transformations t WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}

/** Creates a transformation; 409 (`data: {transformation}`) when the name is taken. */
export async function createTransformation(teamId: string, input: TTransformationCreate): Promise<TransformationRow> {
  const { rows } = await getPool().query<TransformationRow>(
    `INSERT INTO transformations AS t (id, team_id, name, code, env_encrypted, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())
     ON CONFLICT (team_id, name) DO NOTHING RETURNING ${COLUMNS}`,
    [createId("transformation"), teamId, input.name, input.code, encryptJson(input.env ?? {})],
  );
  if (rows[0]) return rows[0];
  throw await nameTaken(teamId, input.name);
}

/** 409 RESOURCE_ALREADY_EXISTS with `data: {transformation}` (the existing one), as the product answers. */
async function nameTaken(teamId: string, name: string): Promise<AppError> {
  const existing = await findTeamRowByName<TransformationRow>(TRANSFORMATIONS, teamId, name);
  return alreadyExists(existing ? { transformation: toTransformation(existing) } : { name });
}

/** Updates name, code and/or env (replaced as a whole when given) of transformation `id`; throws 404 or 409. */
export async function updateTransformation(teamId: string, id: string, input: TTransformationUpdate): Promise<TransformationRow> {
  const current = await getTransformation(teamId, id);
  const name = input.name ?? current.name;
  const { rows } = await getPool().query<TransformationRow>(
    `UPDATE transformations AS t SET name = $3, code = $4, env_encrypted = $5, updated_at = now()
      WHERE t.id = $1 AND t.team_id = $2 AND NOT EXISTS (SELECT 1 FROM transformations o WHERE o.team_id = $2 AND o.name = $3 AND o.id <> $1)
      RETURNING ${COLUMNS}`,
    [id, teamId, name, input.code ?? current.code, input.env !== undefined ? encryptJson(input.env) : current.env_encrypted],
  );
  if (!rows[0]) throw await nameTaken(teamId, name);
  return rows[0];
}

/**
 * `PUT /transformations`: updates the one with this name (code, and env when given), or creates it.
 * A concurrent upsert that created the name first is not a conflict: this one then updates it.
 */
export async function upsertTransformation(teamId: string, input: TTransformationCreate): Promise<TransformationRow> {
  const existing = await findTeamRowByName<TransformationRow>(TRANSFORMATIONS, teamId, input.name);
  if (existing) return updateTransformation(teamId, existing.id, input);
  try {
    return await createTransformation(teamId, input);
  } catch (err) {
    const winner = err instanceof AppError && err.status === 409 ? (err.data.transformation as { id?: string } | undefined)?.id : undefined;
    if (!winner) throw err;
    return updateTransformation(teamId, winner, input);
  }
}

/** One page of the team's transformations (filters `id`, `name`). */
export function listTransformations(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<z.infer<typeof ZTransformation>>> {
  const { where, params } = filters(teamId, query);
  return selectPage<TransformationRow, z.infer<typeof ZTransformation>>({ db: getPool(), select: COLUMNS, from: "transformations t", where, params, page, columns: NAMED_ORDER_COLUMNS("t"), idColumn: "t.id", toModel: toTransformation });
}
