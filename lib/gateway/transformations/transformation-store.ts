/**
 * Transformations of a gateway team: CRUD (docs/gateway-api.md#transformations).
 * `env` is stored encrypted (`env_encrypted`, lib/crypto/secrets.ts) and returned
 * decrypted as `env`. Every function is scoped by `teamId`: another team's transformation is "not found".
 * Connections also create transformations inline (lib/gateway/connections).
 */
import { z } from "zod";
import { decryptJson, encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { modelColumns, Prisma } from "@/lib/db/prisma";
import type { Transformation } from "@/lib/generated/prisma/client";
import {
  createTeamModel,
  deleteTeamModel,
  findTeamModel,
  findTeamModelByName,
  getTeamModel,
  NAMED_ORDER_COLUMNS,
  namedFilters,
  type TeamDelegate,
  type TeamModel,
  teamRowFilters,
  updateTeamModel,
} from "@/lib/gateway/team-resources";
import { alreadyExists, AppError } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import type { FilterTable } from "@/lib/http/query-schema";
import { createId } from "@/lib/ids";

/** Largest `code`, bytes of UTF-8. */
const TRANSFORMATION_CODE_MAX_BYTES = 100 * 1024;

const ZCode = z
  .string()
  .min(1)
  .refine((code) => Buffer.byteLength(code, "utf8") <= TRANSFORMATION_CODE_MAX_BYTES, {
    message: `code must be at most ${TRANSFORMATION_CODE_MAX_BYTES} bytes`,
  })
  .meta({ description: `JavaScript calling addHandler("transform", (request, context) => request); at most ${TRANSFORMATION_CODE_MAX_BYTES} bytes` });
const ZEnv = z.record(z.string().min(1), z.string()).meta({ description: "Environment variables, read as process.env.NAME; stored encrypted" });

export const ZTransformationCreate = z.strictObject({ name: z.string().trim().min(1).max(155), code: ZCode, env: ZEnv.optional() });
export const ZTransformationUpdate = ZTransformationCreate.partial();
type TTransformationCreate = z.infer<typeof ZTransformationCreate>;
type TTransformationUpdate = z.infer<typeof ZTransformationUpdate>;

/** A `transformations` row: the Prisma model. */
type TransformationRow = Transformation;

export const ZTransformation = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string(),
    code: z.string(),
    env: z.record(z.string(), z.string()),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Transformation" });

const COLUMNS = modelColumns("t", Prisma.TransformationScalarFieldEnum);
const TRANSFORMATIONS: TeamModel<TransformationRow> = {
  table: "transformations",
  alias: "t",
  columns: COLUMNS,
  delegate: (db) => db.transformation as unknown as TeamDelegate<TransformationRow>,
};
export const TRANSFORMATION_ORDER_BY = ["created_at", "updated_at", "name"] as const;

export const toTransformation = (r: TransformationRow): z.infer<typeof ZTransformation> => ({
  id: r.id,
  team_id: r.teamId,
  name: r.name,
  code: r.code,
  env: decryptJson<Record<string, string>>(r.envEncrypted) ?? {},
  updated_at: r.updatedAt.toISOString(),
  created_at: r.createdAt.toISOString(),
});

/** `GET /transformations` and `/transformations/count` filters: `id` and `name` (transformations are never disabled). */
export const TRANSFORMATION_FILTERS: FilterTable = (({ id, name }) => ({ id, name }))(namedFilters("t", "Transformation"));

const filters = (teamId: string, query: ParsedQuery) => teamRowFilters(TRANSFORMATIONS, teamId, query, TRANSFORMATION_FILTERS);

/** Transformation `id` of `teamId`, or null. */
export const findTransformation = (teamId: string, id: string) => findTeamModel(TRANSFORMATIONS, teamId, id);
export const getTransformation = (teamId: string, id: string) => getTeamModel(TRANSFORMATIONS, teamId, id);
export const deleteTransformation = (teamId: string, id: string) => deleteTeamModel(TRANSFORMATIONS, teamId, id);
/** How many of the team's transformations match `id` / `name`. */
export async function countTransformations(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = filters(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM transformations t WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}

/** Creates a transformation; 409 (`data: {transformation}`) when the name is taken. */
export async function createTransformation(teamId: string, input: TTransformationCreate): Promise<TransformationRow> {
  const row = await createTeamModel(TRANSFORMATIONS, {
    id: createId("transformation"),
    teamId,
    name: input.name,
    code: input.code,
    envEncrypted: encryptJson(input.env ?? {}),
  });
  if (row) return row;
  throw await nameTaken(teamId, input.name);
}

/** 409 RESOURCE_ALREADY_EXISTS with `data: {transformation}` (the existing one), as the product answers. */
async function nameTaken(teamId: string, name: string): Promise<AppError> {
  const existing = await findTeamModelByName(TRANSFORMATIONS, teamId, name);
  return alreadyExists(existing ? { transformation: toTransformation(existing) } : { name });
}

/** Updates name, code and/or env (replaced as a whole when given) of transformation `id`; throws 404 or 409. */
export async function updateTransformation(teamId: string, id: string, input: TTransformationUpdate): Promise<TransformationRow> {
  const current = await getTransformation(teamId, id);
  const name = input.name ?? current.name;
  const envEncrypted = input.env !== undefined ? encryptJson(input.env) : current.envEncrypted;
  const updated = await updateTeamModel(TRANSFORMATIONS, teamId, id, { name, code: input.code ?? current.code, envEncrypted, updatedAt: new Date() });
  if (!updated) throw await nameTaken(teamId, name);
  return updated;
}

/**
 * `PUT /transformations`: updates the one with this name (code, and env when given), or creates it.
 * A concurrent upsert that created the name first is not a conflict: this one then updates it.
 */
export async function upsertTransformation(teamId: string, input: TTransformationCreate): Promise<TransformationRow> {
  const existing = await findTeamModelByName(TRANSFORMATIONS, teamId, input.name);
  if (existing) return updateTransformation(teamId, existing.id, input);
  try {
    return await createTransformation(teamId, input);
  } catch (err) {
    const winner = err instanceof AppError && err.status === 409 ? (err.data.transformation as { id?: string } | undefined)?.id : undefined;
    if (!winner) throw err;
    return updateTransformation(teamId, winner, input);
  }
}

/** One page of the team's transformations (filters `id`, `name`). Stays SQL: the shared filter builders and keyset cursor. */
export function listTransformations(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<z.infer<typeof ZTransformation>>> {
  const { where, params } = filters(teamId, query);
  return selectPage<TransformationRow, z.infer<typeof ZTransformation>>({
    db: getPool(),
    select: COLUMNS,
    from: "transformations t",
    where,
    params,
    page,
    columns: NAMED_ORDER_COLUMNS("t"),
    idColumn: "t.id",
    toModel: toTransformation,
  });
}
