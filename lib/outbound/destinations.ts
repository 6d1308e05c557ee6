/**
 * Outbound destinations of a tenant (docs/outbound.md#destinations-and-their-types):
 * create (201), list (not paged; `type` and `topics`
 * filters), get, PATCH (merge-patch of config, credentials, delivery_metadata and metadata; `type`
 * cannot change; `rotate_secret`; `transformation` replaced or cleared with null), delete, enable and disable. Config and credentials are validated by
 * the type (lib/outbound/destination-types, docs/destination-types.md); credentials are encrypted at
 * rest and obfuscated on read by the type. Plain CRUD through Prisma Client (docs/architecture.md
 * "Data access"); delivery's reads of destinations (dispatch, claims) stay SQL in lib/outbound/delivery.ts
 * and publish.ts.
 */
import { outboundConfig } from "@/lib/outbound/settings";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { decryptJson, encryptJson } from "@/lib/crypto/secrets";
import { asJson, getPrisma, isRecordNotFound, isUniqueViolation, Prisma } from "@/lib/db/prisma";
import type { OutboundDestination } from "@/lib/generated/prisma/client";
import { base62 } from "@/lib/ids";
import { outboundBadRequest, outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import type { ParsedQuery } from "@/lib/http/query";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { DESTINATION_TYPES, fieldsSchema, OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import type { OutboundTypeInput, OutboundValidateContext } from "@/lib/outbound/destination-types/type";
import { values } from "@/lib/outbound/params";
import { type DeliveryStateView, readDeliveryStates } from "@/lib/delivery/destination-state";
import { getTenant } from "@/lib/outbound/tenants";
import { wantsHealth, withDestinationHealth } from "@/lib/outbound/delivery-health";
import { assertMayWrite, checkTransformationCode, ZTransformationCode } from "@/lib/outbound/transformation";
import {
  type BlockedKey,
  blockedKeysOf,
  normalizeOrdering,
  type Ordering,
  releaseOutboundKeys,
  storedOrdering,
  ZOutboundOrdering,
} from "@/lib/outbound/ordering";
import { OUTBOUND_CHANNEL } from "@/lib/outbound/delivery";

/** An `outbound_destinations` row as Prisma Client reads it. */
type Row = OutboundDestination;

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
  // Per-destination rate limit, as the gateway's (docs/outbound.md "Rate limits"); null: unlimited.
  rate_limit: z.number().int().min(1).max(1_000_000).nullable().optional(),
  rate_limit_period: z.enum(["second", "minute", "hour", "concurrent"]).nullable().optional(),
  // Run on each delivery before it is sent (docs/outbound.md "Transformations"); null: none.
  transformation: ZTransformationCode.optional(),
  // Ordered delivery per key (docs/outbound.md "Ordered delivery"); null (or absent): unordered.
  ordering: ZOutboundOrdering.nullable().optional(),
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
  const credentials = decryptJson<Record<string, string>>(r.credentialsEncrypted) ?? {};
  const type = OUTBOUND_DESTINATION_TYPES.find(r.type);
  const config = r.config as Record<string, string>;
  const ordering = storedOrdering(r.ordering);
  return {
    id: r.id,
    tenant_id: r.tenantId,
    type: r.type,
    topics: r.topics,
    filter: (r.filter as Record<string, unknown> | null) ?? null,
    config,
    credentials: type ? type.obfuscate(credentials, Date.now()) : credentials,
    delivery_metadata: (r.deliveryMetadata as Record<string, string> | null) ?? null,
    metadata: (r.metadata as Record<string, string> | null) ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    disabled_at: r.disabledAt ? r.disabledAt.toISOString() : null,
    // Only when set: the answers of a destination without a limit keep their shape.
    ...(r.rateLimit !== null && { rate_limit: r.rateLimit, rate_limit_period: r.rateLimitPeriod ?? "second" }),
    // Likewise only when set (docs/outbound.md "Transformations").
    ...(r.transformation !== null && { transformation: r.transformation }),
    // Likewise (docs/outbound.md "Ordered delivery"); reads add its blocked keys (withReadState).
    ...(ordering && { ordering: ordering as Ordering & { blocked_keys?: BlockedKey[] } }),
    ...(type ? type.target(config) : { target: "" }),
  };
}

/**
 * The stored rate limit of a create or update body: `rate_limit` null clears it (and its period); a
 * period without a limit (given or stored) is a 422. Returns the columns to write, or {} for no change.
 */
function rateLimitColumns(
  body: { rate_limit?: number | null; rate_limit_period?: string | null },
  current: { rateLimit: number | null; rateLimitPeriod: string | null } | null,
): { rateLimit?: number | null; rateLimitPeriod?: string | null } {
  if (body.rate_limit === undefined && body.rate_limit_period === undefined) return {};
  const limit = body.rate_limit === undefined ? (current?.rateLimit ?? null) : body.rate_limit;
  if (limit === null) {
    if (body.rate_limit_period) throw outboundInvalid(["rate_limit_period: requires rate_limit"]);
    return { rateLimit: null, rateLimitPeriod: null };
  }
  return { rateLimit: limit, rateLimitPeriod: body.rate_limit_period ?? current?.rateLimitPeriod ?? "second" };
}

/**
 * `destinations` (API models) as reads show them: with their read-only `delivery_state` when something
 * happened to them (one statement; docs/outbound.md "Receiver-driven limits"), and the ordered ones with
 * `ordering.blocked_keys` (one more statement, only when one of them is ordered; docs/outbound.md "Ordered delivery").
 */
async function withReadState<T extends { id: string; ordering?: Ordering }>(destinations: T[]): Promise<(T & { delivery_state?: DeliveryStateView })[]> {
  const ordered = destinations.filter((d) => d.ordering).map((d) => d.id);
  const [states, blocked] = await Promise.all([
    readDeliveryStates(
      "outbound",
      destinations.map((d) => d.id),
    ),
    blockedKeysOf(ordered),
  ]);
  return destinations.map((d) => {
    const state = states.get(d.id);
    const shown = d.ordering ? { ...d, ordering: { ...d.ordering, blocked_keys: blocked.get(d.id) ?? [] } } : d;
    return state ? { ...shown, delivery_state: state } : shown;
  });
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

/** A JSON column's value as Prisma writes it: `null` is SQL NULL (not the JSON value null). */
const jsonOrNull = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : asJson(value));

/** Destination `id` of tenant `tenantId`; throws 404 `destination not found`. */
async function row(tenantId: string, id: string): Promise<Row> {
  const found = await getPrisma().outboundDestination.findFirst({ where: { id, tenantId } });
  if (!found) throw outboundNotFound("destination not found");
  return found;
}

/** Runs `write` (an update of one destination); Prisma's "record not found" (deleted meanwhile) is the 404. */
async function orNotFound(write: () => Promise<Row>): Promise<Row> {
  try {
    return await write();
  } catch (err) {
    if (isRecordNotFound(err)) throw outboundNotFound("destination not found");
    throw err;
  }
}

/**
 * `POST /tenants/{tid}/destinations` → 201. Throws 404 (tenant), 400 (exists, limit reached), 403 (JWT
 * setting timestamps, or a transformation without edit access), 422 (also: a transformation that does
 * not parse or register its handler), 429 (the sandbox pool is busy checking it).
 */
export async function createDestination(tenantId: string, input: unknown, caller: OutboundCaller) {
  await getTenant(tenantId);
  const body = ZDestinationCreate.parse(input);
  if (caller.kind === "tenant" && (body.created_at || body.updated_at)) throw outboundForbidden();
  assertMayWrite(caller, body.transformation ?? null, null);
  const type = OUTBOUND_DESTINATION_TYPES.find(body.type);
  if (!type) throw outboundInvalid([`type: ${body.type} is not a destination type`]);
  const errors: string[] = [];
  const topics = checkTopics(body.topics, errors);
  if (body.transformation) errors.push(...(await checkTransformationCode(body.transformation)));
  const { config, credentials } = await validateWithType(
    type.type,
    { config: body.config ?? {}, credentials: body.credentials ?? {} },
    { byTenant: caller.kind === "tenant", current: null },
    errors,
  );
  const prisma = getPrisma();
  if ((await prisma.outboundDestination.count({ where: { tenantId } })) >= outboundConfig().maxDestinationsPerTenant)
    throw outboundBadRequest("maximum number of destinations per tenant reached");
  const now = new Date();
  try {
    const created = await prisma.outboundDestination.create({
      data: {
        id: body.id ?? newDestinationId(),
        tenantId,
        type: type.type,
        topics,
        filter: jsonOrNull(body.filter && Object.keys(body.filter).length ? body.filter : null),
        config: asJson(config),
        credentialsEncrypted: encryptJson(credentials),
        deliveryMetadata: jsonOrNull(body.delivery_metadata),
        metadata: jsonOrNull(body.metadata),
        ...rateLimitColumns(body, null),
        transformation: body.transformation ?? null,
        ordering: jsonOrNull(normalizeOrdering(body.ordering ?? null)),
        disabledAt: body.disabled_at ? new Date(body.disabled_at) : null,
        createdAt: body.created_at ? new Date(body.created_at) : now,
        updatedAt: body.updated_at ? new Date(body.updated_at) : now,
      },
    });
    return { status: 201, body: toDestination(created) };
  } catch (err) {
    if (isUniqueViolation(err)) throw outboundBadRequest("destination already exists");
    throw err;
  }
}

/** `PATCH /tenants/{tid}/destinations/{id}`. Throws 404, 403 (a changed transformation without edit access), 422 (`type cannot be updated`, validation), 429 (as create). */
export async function updateDestination(tenantId: string, id: string, input: unknown, caller: OutboundCaller) {
  const current = await row(tenantId, id);
  const body = ZDestinationUpdate.parse(input ?? {});
  if (body.type !== undefined && body.type !== current.type) throw outboundInvalid(["type cannot be updated"]);
  assertMayWrite(caller, body.transformation, current.transformation);
  const errors: string[] = [];
  const topics = body.topics === undefined ? current.topics : checkTopics(body.topics, errors);
  if (body.transformation && body.transformation !== current.transformation) errors.push(...(await checkTransformationCode(body.transformation)));
  const stored = decryptJson<Record<string, string>>(current.credentialsEncrypted) ?? {};
  const given = {
    config: mergePatch(current.config as Record<string, unknown>, body.config),
    credentials: body.credentials === undefined ? undefined : mergePatch(stored, body.credentials),
  };
  const { config, credentials } = await validateWithType(current.type, given, { byTenant: caller.kind === "tenant", current: stored }, errors);
  const filter = body.filter === undefined ? current.filter : body.filter && Object.keys(body.filter).length ? body.filter : null;
  const updated = await orNotFound(() =>
    getPrisma().outboundDestination.update({
      where: { id, tenantId },
      data: {
        topics,
        filter: jsonOrNull(filter),
        config: asJson(config),
        credentialsEncrypted: encryptJson(credentials),
        deliveryMetadata: asJson(mergePatch((current.deliveryMetadata as Record<string, unknown> | null) ?? {}, body.delivery_metadata)),
        metadata: asJson(mergePatch((current.metadata as Record<string, unknown> | null) ?? {}, body.metadata)),
        ...rateLimitColumns(body, current),
        ...(body.transformation === undefined ? {} : { transformation: body.transformation }),
        // Replaced as a whole (null turns it off); absent keeps it (docs/outbound.md "Ordered delivery").
        ...(body.ordering === undefined ? {} : { ordering: jsonOrNull(normalizeOrdering(body.ordering)) }),
        ...(body.disabled_at === undefined ? {} : { disabledAt: body.disabled_at === null ? null : new Date(body.disabled_at) }),
        updatedAt: new Date(),
      },
    }),
  );
  return { body: toDestination(updated) };
}

export const getDestination = async (tenantId: string, id: string) => ({ body: (await withReadState([toDestination(await row(tenantId, id))]))[0] });

/**
 * `POST …/destinations/{id}/ordering/release` with `{keys?: string[]}` (no body: every key): the blocked
 * keys of the destination go on; the blocking deliveries stay failed (docs/outbound.md "Ordered delivery").
 * Answers `{released}` (how many keys). Throws 404 (destination of another tenant or none), 422 (body).
 */
export async function releaseOrdering(tenantId: string, id: string, input: unknown) {
  await row(tenantId, id);
  const body = ZOrderingRelease.parse(input ?? {});
  const { released, promoted } = await releaseOutboundKeys(id, body.keys);
  if (promoted) await getPrisma().$executeRaw`SELECT pg_notify(${OUTBOUND_CHANNEL}, '')`;
  return { body: { released } };
}

/** The body of `POST …/ordering/release`: the keys to release; absent: every blocked key. */
export const ZOrderingRelease = z.strictObject({
  keys: z.array(z.string().max(1000)).min(1).max(1000).optional().describe("The keys to release; absent: every blocked key of the destination."),
});

/** `DELETE`: `{success: true}`; its attempts stay readable through `/attempts`. Throws 404. */
export async function deleteDestination(tenantId: string, id: string) {
  const { count } = await getPrisma().outboundDestination.deleteMany({ where: { id, tenantId } });
  if (!count) throw outboundNotFound("destination not found");
  return { body: { success: true } };
}

/**
 * `PUT …/enable` / `…/disable` (idempotent). Disabling keeps the first `disabled_at` (a conditional
 * update where none is set, else only `updated_at` is bumped; a concurrent enable in between makes it try
 * again); enabling clears it and the failure count. Throws 404.
 */
export async function setDestinationDisabled(tenantId: string, id: string, disabled: boolean) {
  const destinations = getPrisma().outboundDestination;
  if (!disabled) {
    const enabled = await orNotFound(() =>
      destinations.update({ where: { id, tenantId }, data: { disabledAt: null, consecutiveFailures: 0, updatedAt: new Date() } }),
    );
    return { body: toDestination(enabled) };
  }
  for (;;) {
    const now = new Date();
    const [set] = await destinations.updateManyAndReturn({ where: { id, tenantId, disabledAt: null }, data: { disabledAt: now, updatedAt: now } });
    if (set) return { body: toDestination(set) };
    const [bumped] = await destinations.updateManyAndReturn({ where: { id, tenantId, disabledAt: { not: null } }, data: { updatedAt: now } });
    if (bumped) return { body: toDestination(bumped) };
    await row(tenantId, id);
  }
}

/**
 * `GET /tenants/{tid}/destinations?type[]=…&topics[]=…&include=health`: every destination (not paged), oldest
 * first; with `include=health` each carries `health` (lib/outbound/delivery-health.ts, plus
 * `consecutive_failures`). Throws 404 for an unknown tenant, 400 for a malformed `include`.
 */
export async function listDestinations(tenantId: string, query: ParsedQuery) {
  await getTenant(tenantId);
  const types = values(query, "type");
  const topics = values(query, "topics");
  const rows = await getPrisma().outboundDestination.findMany({
    where: {
      tenantId,
      ...(types ? { type: { in: types } } : {}),
      ...(topics ? { OR: [{ topics: { hasSome: topics } }, { topics: { has: "*" } }] } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const list = await withReadState(rows.map(toDestination));
  if (!wantsHealth(query)) return { body: list };
  // `include=health`: the failure rate and last failure of each, plus its failures in a row (docs/outbound.md "Delivery health").
  const streak = new Map(rows.map((r) => [r.id, r.consecutiveFailures]));
  return { body: (await withDestinationHealth(list)).map((d) => ({ ...d, health: { ...d.health, consecutive_failures: streak.get(d.id) ?? 0 } })) };
}
