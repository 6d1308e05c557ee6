/**
 * Outbound destinations of a tenant (docs/outbound.md#destinations-and-their-types):
 * create (201), list (not paged; `type` and `topics`
 * filters), get, PATCH (merge-patch of config, credentials, delivery_metadata and metadata; `type`
 * cannot change; `rotate_secret`), delete, enable and disable. Config and credentials are validated by
 * the type (lib/outbound/destination-types, docs/destination-types.md); credentials are encrypted at
 * rest and obfuscated on read by the type.
 */
import { outboundConfig } from "@/lib/outbound/settings";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { decryptJson, encryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { base62 } from "@/lib/ids";
import { outboundBadRequest, outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import type { ParsedQuery } from "@/lib/http/query";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { DESTINATION_TYPES, fieldsSchema, OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import type { OutboundTypeInput, OutboundValidateContext } from "@/lib/outbound/destination-types/type";
import { values } from "@/lib/outbound/params";
import { getTenant } from "@/lib/outbound/tenants";

type Row = {
  id: string;
  tenant_id: string;
  type: string;
  topics: string[];
  filter: Record<string, unknown> | null;
  config: Record<string, string>;
  credentials_encrypted: string | null;
  delivery_metadata: Record<string, string> | null;
  metadata: Record<string, string> | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const stringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
const topicsSchema = z.union([z.literal("*"), z.array(z.string().min(1).max(255)).min(1).max(100)]);
const timestamp = z.iso.datetime({ offset: true });

export const ZDestinationCreate = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  type: z.string(),
  topics: topicsSchema,
  filter: z.record(z.string(), z.unknown()).nullable().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  credentials: z.record(z.string(), z.unknown()).optional(),
  delivery_metadata: stringMap.nullable().optional(),
  metadata: stringMap.nullable().optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
  disabled_at: timestamp.nullable().optional(),
});
/**
 * The create body of each destination type (ZDestinationCreate with the type's config and credentials
 * fields, lib/outbound/destination-types/fields.ts fieldsSchema): what the OpenAPI document shows. The API
 * validates with ZDestinationCreate, then the type with the same field tables.
 */
export const ZDestinationCreateByType = z.discriminatedUnion(
  "type",
  DESTINATION_TYPES.map((t) => {
    const config = fieldsSchema(t, "config");
    const required = t.config_fields.some((f) => f.required);
    return ZDestinationCreate.extend({
      type: z.literal(t.type),
      config: required ? config : config.optional(),
      credentials: fieldsSchema(t, "credentials").optional(),
    }).meta({ title: t.label });
  }) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
export const ZDestinationUpdate = ZDestinationCreate.omit({ id: true, created_at: true, updated_at: true })
  .partial()
  .extend({ credentials: z.record(z.string(), z.unknown()).nullable().optional() });

/** The API model: credentials obfuscated (the webhook secret excepted), `disabled_at` always present, `target` the endpoint shown to people. */
export function toDestination(r: Row) {
  const credentials = decryptJson<Record<string, string>>(r.credentials_encrypted) ?? {};
  const type = OUTBOUND_DESTINATION_TYPES.find(r.type);
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    type: r.type,
    topics: r.topics,
    filter: r.filter ?? null,
    config: r.config,
    credentials: type ? type.obfuscate(credentials, Date.now()) : credentials,
    delivery_metadata: r.delivery_metadata ?? null,
    metadata: r.metadata ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    disabled_at: r.disabled_at ? r.disabled_at.toISOString() : null,
    ...(type ? type.target(r.config) : { target: "" }),
  };
}

/** `"*"` or a topic list, checked against OUTBOUND_TOPICS (empty: any) and normalised (`*` stored as `["*"]`, duplicates dropped). */
function checkTopics(topics: "*" | string[], errors: string[]): string[] {
  const list = topics === "*" ? ["*"] : [...new Set(topics)];
  if (list.includes("*")) return ["*"];
  const allowed = outboundConfig().topics;
  if (allowed.length) for (const t of list) if (!allowed.includes(t)) errors.push(`topics: ${t} is not a topic of this deployment`);
  return list;
}

/** Merge-patch (RFC 7396) of a flat map: a null value deletes its key. */
function mergePatch(current: Record<string, unknown>, patch: Record<string, unknown> | null | undefined): Record<string, unknown> {
  if (patch === null) return {};
  if (patch === undefined) return current;
  const out = { ...current };
  for (const [k, v] of Object.entries(patch))
    if (v === null) delete out[k];
    else out[k] = v;
  return out;
}

/**
 * Validates a create or update with its type (config, then credentials, then the type's own checks),
 * after `errors` (the topics' messages); throws the 422 with every message. Returns what to store.
 * Throws database errors.
 */
async function validateWithType(type: string, input: OutboundTypeInput, ctx: OutboundValidateContext, errors: string[]) {
  const valid = await OUTBOUND_DESTINATION_TYPES.get(type).validate(input, errors, ctx);
  if (errors.length) throw outboundInvalid(errors);
  return valid;
}

/** A new destination id: the IDGEN_DESTINATION_PREFIX setting, used as-is, then 22 base62 characters. */
const newDestinationId = () => outboundConfig().prefixes.destination + base62(randomBytes(16));

async function row(tenantId: string, id: string): Promise<Row> {
  const { rows } = await getPool().query<Row>("SELECT * FROM outbound_destinations WHERE id = $1 AND tenant_id = $2", [id, tenantId]);
  if (!rows[0]) throw outboundNotFound("destination not found");
  return rows[0];
}

/** `POST /tenants/{tid}/destinations` → 201. Throws 404 (tenant), 400 (exists, limit reached), 403 (JWT setting timestamps), 422. */
export async function createDestination(tenantId: string, input: unknown, caller: OutboundCaller) {
  await getTenant(tenantId);
  const body = ZDestinationCreate.parse(input);
  if (caller.kind === "tenant" && (body.created_at || body.updated_at)) throw outboundForbidden();
  const type = OUTBOUND_DESTINATION_TYPES.find(body.type);
  if (!type) throw outboundInvalid([`type: ${body.type} is not a destination type`]);
  const errors: string[] = [];
  const topics = checkTopics(body.topics, errors);
  const { config, credentials } = await validateWithType(
    type.type,
    { config: body.config ?? {}, credentials: body.credentials ?? {} },
    { byTenant: caller.kind === "tenant", current: null },
    errors,
  );
  const { rows: counted } = await getPool().query<{ n: number }>("SELECT count(*)::int AS n FROM outbound_destinations WHERE tenant_id = $1", [tenantId]);
  if (counted[0].n >= outboundConfig().maxDestinationsPerTenant) throw outboundBadRequest("maximum number of destinations per tenant reached");
  const now = new Date();
  const { rows } = await getPool().query<Row>(
    `INSERT INTO outbound_destinations (id, tenant_id, type, topics, filter, config, credentials_encrypted, delivery_metadata, metadata, disabled_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING RETURNING *`,
    [
      body.id ?? newDestinationId(),
      tenantId,
      type.type,
      topics,
      body.filter && Object.keys(body.filter).length ? JSON.stringify(body.filter) : null,
      JSON.stringify(config),
      encryptJson(credentials),
      body.delivery_metadata ? JSON.stringify(body.delivery_metadata) : null,
      body.metadata ? JSON.stringify(body.metadata) : null,
      body.disabled_at ? new Date(body.disabled_at) : null,
      body.created_at ? new Date(body.created_at) : now,
      body.updated_at ? new Date(body.updated_at) : now,
    ],
  );
  if (!rows[0]) throw outboundBadRequest("destination already exists");
  return { status: 201, body: toDestination(rows[0]) };
}

/** `PATCH /tenants/{tid}/destinations/{id}`. Throws 404, 422 (`type cannot be updated`, validation). */
export async function updateDestination(tenantId: string, id: string, input: unknown, caller: OutboundCaller) {
  const current = await row(tenantId, id);
  const body = ZDestinationUpdate.parse(input ?? {});
  if (body.type !== undefined && body.type !== current.type) throw outboundInvalid(["type cannot be updated"]);
  const errors: string[] = [];
  const topics = body.topics === undefined ? current.topics : checkTopics(body.topics, errors);
  const stored = decryptJson<Record<string, string>>(current.credentials_encrypted) ?? {};
  const given = {
    config: mergePatch(current.config, body.config),
    credentials: body.credentials === undefined ? undefined : mergePatch(stored, body.credentials),
  };
  const { config, credentials } = await validateWithType(current.type, given, { byTenant: caller.kind === "tenant", current: stored }, errors);
  const filter = body.filter === undefined ? current.filter : body.filter && Object.keys(body.filter).length ? body.filter : null;
  const { rows } = await getPool().query<Row>(
    `UPDATE outbound_destinations SET topics = $3, filter = $4, config = $5, credentials_encrypted = $6, delivery_metadata = $7, metadata = $8,
            disabled_at = $9, updated_at = now() WHERE id = $1 AND tenant_id = $2 RETURNING *`,
    [
      id,
      tenantId,
      topics,
      filter ? JSON.stringify(filter) : null,
      JSON.stringify(config),
      encryptJson(credentials),
      JSON.stringify(mergePatch(current.delivery_metadata ?? {}, body.delivery_metadata)),
      JSON.stringify(mergePatch(current.metadata ?? {}, body.metadata)),
      body.disabled_at === undefined ? current.disabled_at : body.disabled_at === null ? null : new Date(body.disabled_at),
    ],
  );
  return { body: toDestination(rows[0]) };
}

export const getDestination = async (tenantId: string, id: string) => ({ body: toDestination(await row(tenantId, id)) });

/** `DELETE`: `{success: true}`; its attempts stay readable through `/attempts`. Throws 404. */
export async function deleteDestination(tenantId: string, id: string) {
  const { rowCount } = await getPool().query("DELETE FROM outbound_destinations WHERE id = $1 AND tenant_id = $2", [id, tenantId]);
  if (!rowCount) throw outboundNotFound("destination not found");
  return { body: { success: true } };
}

/** `PUT …/enable` / `…/disable` (idempotent). Throws 404. */
export async function setDestinationDisabled(tenantId: string, id: string, disabled: boolean) {
  const { rows } = await getPool().query<Row>(
    "UPDATE outbound_destinations SET disabled_at = CASE WHEN $3 THEN coalesce(disabled_at, now()) END, consecutive_failures = CASE WHEN $3 THEN consecutive_failures ELSE 0 END, updated_at = now() WHERE id = $1 AND tenant_id = $2 RETURNING *",
    [id, tenantId, disabled],
  );
  if (!rows[0]) throw outboundNotFound("destination not found");
  return { body: toDestination(rows[0]) };
}

/** `GET /tenants/{tid}/destinations?type[]=…&topics[]=…`: every destination (not paged), oldest first. Throws 404 for an unknown tenant. */
export async function listDestinations(tenantId: string, query: ParsedQuery) {
  await getTenant(tenantId);
  const list = (name: string) => values(query, name) ?? null;
  const { rows } = await getPool().query<Row>(
    "SELECT * FROM outbound_destinations WHERE tenant_id = $1 AND ($2::text[] IS NULL OR type = ANY($2)) AND ($3::text[] IS NULL OR topics && $3 OR '*' = ANY(topics)) ORDER BY created_at, id",
    [tenantId, list("type"), list("topics")],
  );
  return { body: rows.map(toDestination) };
}
