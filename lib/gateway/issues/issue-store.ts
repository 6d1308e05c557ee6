/**
 * Issue triggers and issues of a team (docs/gateway-api.md#issues-and-issue-triggers):
 * trigger CRUD, upsert by name, enable/disable; issue list, count,
 * get, status changes and dismissal. The worker opens and groups issues (detect.ts).
 */
import { getPool } from "@/lib/db/pool";
import { asJson, getPrisma, isUniqueViolation, modelColumns, Prisma } from "@/lib/db/prisma";
import type { IssueTrigger } from "@/lib/generated/prisma/client";
import {
  ISSUE_FILTERS,
  ISSUE_TRIGGER_FILTERS,
  type TIssue,
  type TIssueTriggerCreate,
  type TIssueTriggerUpdate,
  ZBackpressureConfigs,
  ZDeliveryConfigs,
  ZTransformationConfigs,
} from "@/lib/gateway/issues/schemas";
import { deleteTeamModel, getTeamModel, nameTaken, setTeamModelDisabled, type TeamDelegate, type TeamModel } from "@/lib/gateway/team-resources";
import { createId } from "@/lib/ids";
import { notifyIssue } from "@/lib/gateway/issues/notify";
import { notFound, unprocessable } from "@/lib/http/errors";
import { type Page, type PageRequest, selectPage } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";
import { applyFilterTable, pathId } from "@/lib/http/query-schema";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An `issue_triggers` row: the Prisma model, its JSON columns typed. */
type TriggerRow = Omit<IssueTrigger, "configs" | "channels"> & { configs: Record<string, unknown>; channels: Record<string, unknown> };
const TRIGGERS: TeamModel<TriggerRow> = {
  table: "issue_triggers",
  alias: "t",
  columns: modelColumns("t", Prisma.IssueTriggerScalarFieldEnum),
  delegate: (db) => db.issueTrigger as unknown as TeamDelegate<TriggerRow>,
};

/** The API model of a trigger (fields in the table's column order, as answers always had them). */
const toTrigger = (r: TriggerRow) => ({
  id: r.id,
  team_id: r.teamId,
  name: r.name,
  type: r.type,
  configs: r.configs,
  channels: r.channels,
  disabled_at: iso(r.disabledAt),
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** 409 as a taken trigger name always answered (PostgreSQL's unique-violation detail of `(team_id, name)`). */
const triggerNameTaken = (teamId: string, name: string | null) => nameTaken(["team_id", "name"], [teamId, String(name)]);

const CONFIGS = { delivery: ZDeliveryConfigs, transformation: ZTransformationConfigs, backpressure: ZBackpressureConfigs } as const;

/** `POST /issue-triggers`. Throws 409 when the name is taken. */
export async function createTrigger(teamId: string, body: TIssueTriggerCreate) {
  const [row] = await getPrisma().issueTrigger.createManyAndReturn({
    data: [
      {
        id: createId("issueTrigger"),
        teamId,
        name: body.name ?? null,
        type: body.type,
        configs: asJson(body.configs),
        channels: asJson(body.channels ?? {}),
      },
    ],
    skipDuplicates: true,
  });
  if (!row) throw triggerNameTaken(teamId, body.name ?? null);
  return toTrigger(row as TriggerRow);
}

/** `PUT /issue-triggers`: creates, or replaces the one with that `name` (required: 422 without). */
export async function upsertTrigger(teamId: string, body: TIssueTriggerCreate) {
  if (!body.name) {
    throw unprocessable("name: required to create or update by name", { field: "name" });
  }
  const fields = { type: body.type, configs: body.configs as object, channels: (body.channels ?? {}) as object };
  // One INSERT … ON CONFLICT DO UPDATE (Prisma's native upsert: the where is the create's unique key).
  const row = await getPrisma().issueTrigger.upsert({
    where: { teamId_name: { teamId, name: body.name } },
    create: { id: createId("issueTrigger"), teamId, name: body.name, ...fields },
    update: { ...fields, updatedAt: new Date() },
  });
  return toTrigger(row as TriggerRow);
}

/** `PUT /issue-triggers/{id}`: the given fields; `configs` must fit the (new) type (422 naming the field). Throws 404. */
export async function updateTrigger(teamId: string, id: string, body: TIssueTriggerUpdate) {
  const current = await getTeamModel(TRIGGERS, teamId, pathId(id));
  const type = body.type ?? (current.type as keyof typeof CONFIGS);
  const configs = body.configs === undefined && type === current.type ? current.configs : CONFIGS[type].parse(body.configs ?? current.configs);
  const name = body.name === undefined ? current.name : body.name;
  try {
    const row = await getPrisma().issueTrigger.update({
      where: { id, teamId },
      data: { name, type, configs: asJson(configs), channels: asJson(body.channels ?? current.channels), updatedAt: new Date() },
    });
    return toTrigger(row as TriggerRow);
  } catch (err) {
    throw isUniqueViolation(err) ? triggerNameTaken(teamId, name) : err;
  }
}

export const getTrigger = async (teamId: string, id: string) => toTrigger(await getTeamModel(TRIGGERS, teamId, pathId(id)));
export const deleteTrigger = (teamId: string, id: string) => deleteTeamModel(TRIGGERS, teamId, pathId(id));
export const setTriggerDisabled = async (teamId: string, id: string, disabled: boolean) =>
  toTrigger(await setTeamModelDisabled(TRIGGERS, teamId, pathId(id), disabled));

/** `GET /issue-triggers`: filters and paging. Throws 400. Stays SQL: the shared filter builders and keyset cursor. */
export function listTriggers(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<ReturnType<typeof toTrigger>>> {
  const params: unknown[] = [teamId];
  const where = ["t.team_id = $1"];
  applyFilterTable(ISSUE_TRIGGER_FILTERS, query, where, params);
  return selectPage<TriggerRow, ReturnType<typeof toTrigger>>({
    db: getPool(),
    select: TRIGGERS.columns,
    from: "issue_triggers t",
    where,
    params,
    page,
    columns: { created_at: { sql: "t.created_at", type: "date" }, name: { sql: "t.name", type: "text" } },
    idColumn: "t.id",
    toModel: toTrigger,
  });
}

export type IssueRow = {
  id: string;
  team_id: string;
  issue_trigger_id: string | null;
  type: string;
  status: string;
  group_key: string;
  aggregation_keys: Record<string, unknown[]>;
  reference: Record<string, unknown>;
  data: Record<string, unknown> | null;
  opened_at: Date;
  first_seen_at: Date;
  last_seen_at: Date;
  dismissed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** The API model of an issue row. */
export function toIssue(r: IssueRow): TIssue {
  return {
    id: r.id,
    team_id: r.team_id,
    issue_trigger_id: r.issue_trigger_id,
    type: r.type as TIssue["type"],
    status: r.status as TIssue["status"],
    aggregation_keys: r.aggregation_keys,
    reference: r.reference,
    data: r.data,
    opened_at: r.opened_at.toISOString(),
    first_seen_at: r.first_seen_at.toISOString(),
    last_seen_at: r.last_seen_at.toISOString(),
    dismissed_at: iso(r.dismissed_at),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function issueWhere(teamId: string, query: ParsedQuery) {
  const params: unknown[] = [teamId];
  const where = ["i.team_id = $1"];
  applyFilterTable(ISSUE_FILTERS, query, where, params);
  if (query.dismissed_at === undefined) where.push("i.dismissed_at IS NULL");
  return { where, params };
}

const ISSUE_ORDER_COLUMNS = {
  created_at: { sql: "i.created_at", type: "date" as const },
  last_seen_at: { sql: "i.last_seen_at", type: "date" as const },
  opened_at: { sql: "i.opened_at", type: "date" as const },
  first_seen_at: { sql: "i.first_seen_at", type: "date" as const },
};

/** `GET /issues`: dismissed ones only with a `dismissed_at` filter. Throws 400. */
export function listIssues(teamId: string, query: ParsedQuery, page: PageRequest): Promise<Page<TIssue>> {
  const { where, params } = issueWhere(teamId, query);
  return selectPage<IssueRow, TIssue>({
    db: getPool(),
    select: "i.*",
    from: "issues i",
    where,
    params,
    page,
    columns: ISSUE_ORDER_COLUMNS,
    idColumn: "i.id",
    toModel: toIssue,
  });
}

/** `GET /issues/count`. Throws 400. */
export async function countIssues(teamId: string, query: ParsedQuery): Promise<{ count: number }> {
  const { where, params } = issueWhere(teamId, query);
  const { rows } = await getPool().query<{ count: number }>(`SELECT count(*)::int AS count FROM issues i WHERE ${where.join(" AND ")}`, params);
  return { count: rows[0].count };
}

/** `GET /issues/{id}`; throws 404. */
export async function getIssue(teamId: string, id: string): Promise<TIssue> {
  const { rows } = await getPool().query<IssueRow>("SELECT * FROM issues WHERE id = $1 AND team_id = $2", [pathId(id), teamId]);
  if (!rows[0]) throw notFound(id);
  return toIssue(rows[0]);
}

/** `PUT /issues/{id}` `{status}`: a RESOLVED issue reopens when its failure happens again. Notifies `issue.updated`. Throws 404. */
export async function setIssueStatus(teamId: string, id: string, status: string): Promise<TIssue> {
  const { rows } = await getPool().query<IssueRow>("UPDATE issues SET status = $3, updated_at = now() WHERE id = $1 AND team_id = $2 RETURNING *", [
    pathId(id),
    teamId,
    status,
  ]);
  if (!rows[0]) throw notFound(id);
  const issue = toIssue(rows[0]);
  await notifyIssue(teamId, "issue.updated", issue);
  return issue;
}

/** `DELETE /issues/{id}`: dismisses it (kept with `dismissed_at`; the next failure opens a new issue). Throws 404. */
export async function dismissIssue(teamId: string, id: string): Promise<TIssue> {
  const { rows } = await getPool().query<IssueRow>(
    "UPDATE issues SET dismissed_at = coalesce(dismissed_at, now()), updated_at = now() WHERE id = $1 AND team_id = $2 RETURNING *",
    [pathId(id), teamId],
  );
  if (!rows[0]) throw notFound(id);
  return toIssue(rows[0]);
}
