/**
 * The event catalog (docs/outbound.md "Event catalog"): per topic a description, an example and a JSON
 * Schema (draft 2020-12, Ajv), versioned, with the publish validation mode `off`, `warn` or `enforce`.
 * The operator sets them with `PUT /catalog/{topic}`; everyone reads them (`GET /catalog`), a tenant only
 * the topics it can subscribe to. Publish checks an event with {@link checkEvent}: the compiled
 * validator of each (topic, version) is made once per process and kept (versions never change), and the
 * catalog itself is read again at most every CATALOG_TTL_MS (at once after a change in this process).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { recordSchemaValidation } from "@/lib/observability/metrics";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import { outboundConfig } from "@/lib/outbound/settings";

/** How long a process keeps the catalog before reading it again, ms (like the settings). */
const CATALOG_TTL_MS = 2_000;
/** Largest schema, bytes of its JSON text. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays in a schema. */
export const MAX_SCHEMA_DEPTH = 32;
/** Largest example, bytes of its JSON text. */
const MAX_EXAMPLE_BYTES = 64 * 1024;
/** At most this many failures are reported (422 `data`, or an event's warnings). */
const MAX_REPORTED = 20;

export const VALIDATION_MODES = ["off", "warn", "enforce"] as const;
export type ValidationMode = (typeof VALIDATION_MODES)[number];

/** The body of `PUT /catalog/{topic}`: omitted fields keep their value, null clears one. */
export const ZTopicPut = z.strictObject({
  description: z.string().max(2000).nullable().optional(),
  schema: z.record(z.string(), z.unknown()).nullable().optional(),
  example: z.unknown().optional(),
  validation: z.enum(VALIDATION_MODES).optional(),
});

/** A catalog entry as the API answers it. */
export type CatalogTopic = {
  topic: string;
  description: string | null;
  example: unknown;
  validation: ValidationMode;
  schema_version: number | null;
  schema: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
};

type TopicRow = {
  name: string;
  description: string | null;
  example: unknown;
  validation: ValidationMode;
  schema_version: number | null;
  schema: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
};

const SELECT_TOPICS = `SELECT t.name, t.description, t.example, t.validation, t.schema_version, s.schema, t.created_at, t.updated_at
  FROM outbound_topics t LEFT JOIN outbound_topic_schemas s ON s.topic = t.name AND s.version = t.schema_version`;

const toTopic = (r: TopicRow): CatalogTopic => ({
  topic: r.name,
  description: r.description,
  example: r.example ?? null,
  validation: r.validation,
  schema_version: r.schema_version,
  schema: r.schema,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

// Formats known without a plugin (a schema naming another one is refused at the operator API).
const FORMATS: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i,
  date: /^\d{4}-\d\d-\d\d$/,
  time: /^\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/i,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

let ajv: Ajv2020 | null = null;
/** The one Ajv instance: strict (unknown keywords and formats are schema errors), every failure reported. */
function getAjv(): Ajv2020 {
  // Schemas are compiled once per version and dropped from Ajv's own cache (ours keys by topic and version).
  ajv ??= new Ajv2020({ allErrors: true, strict: true, formats: FORMATS, addUsedSchema: false });
  return ajv;
}

/** Compiled validators by `topic\0version`: a version never changes, so an entry is never stale. */
const validators = new Map<string, ValidateFunction>();

/** The messages of Ajv's errors: `/data/<pointer>: <message>` (a JSON pointer into the publish body), at most MAX_REPORTED. */
function messagesOf(errors: ErrorObject[] | null | undefined): string[] {
  const out = (errors ?? []).slice(0, MAX_REPORTED).map((e) => {
    const extra = e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : "";
    return `/data${e.instancePath}: ${e.message ?? "is invalid"}${extra}`;
  });
  return out.length ? out : ["/data: is invalid"];
}

/** Depth of nested objects and arrays of `v`, stopping once past `limit`. */
function depthOf(v: unknown, limit: number, d = 0): number {
  if (d > limit || !v || typeof v !== "object") return d;
  let max = d + 1;
  for (const x of Object.values(v)) {
    max = Math.max(max, depthOf(x, limit, d + 1));
    if (max > limit) break;
  }
  return max;
}

/**
 * Compiles `schema` (draft 2020-12) and returns the validator. Throws 422 for a schema over
 * MAX_SCHEMA_BYTES or MAX_SCHEMA_DEPTH, or one Ajv refuses (unknown keyword or format, a bad `$ref`, a
 * wrong type), naming the reason.
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) throw outboundInvalid([`schema: larger than ${MAX_SCHEMA_BYTES} bytes`]);
  if (depthOf(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) throw outboundInvalid([`schema: nested deeper than ${MAX_SCHEMA_DEPTH} levels`]);
  const s = schema.$schema;
  if (s !== undefined && s !== "https://json-schema.org/draft/2020-12/schema")
    throw outboundInvalid(["schema: $schema must be https://json-schema.org/draft/2020-12/schema (or absent)"]);
  try {
    return getAjv().compile(schema);
  } catch (err) {
    throw outboundInvalid([`schema: ${(err as Error).message}`]);
  }
}

function validatorOf(topic: string, version: number, schema: Record<string, unknown>): ValidateFunction {
  const key = `${topic}\0${version}`;
  let v = validators.get(key);
  if (!v) validators.set(key, (v = compileSchema(schema)));
  return v;
}

/** What publish needs of a topic: its mode and its current schema's version and schema. */
type Rule = { validation: ValidationMode; version: number | null; schema: Record<string, unknown> | null };
let rules = new Map<string, Rule>();
let loadedAt = 0;
let loading: Promise<void> | null = null;

/**
 * Reads the catalog's rules again when older than CATALOG_TTL_MS (or `force`). A forced read never joins a
 * read already under way (it may have started before the change the caller just committed): it starts
 * after it. Throws database errors.
 */
export function refreshCatalog(force = false): Promise<void> {
  if (!force && Date.now() - loadedAt < CATALOG_TTL_MS) return Promise.resolve();
  if (force && loading) {
    const again = () => refreshCatalog(true);
    return loading.then(again, again);
  }
  loading ??= getPool()
    .query<TopicRow>(SELECT_TOPICS)
    .then(({ rows }) => {
      rules = new Map(rows.map((r) => [r.name, { validation: r.validation, version: r.schema_version, schema: r.schema }]));
      loadedAt = Date.now();
    })
    .finally(() => (loading = null));
  return loading;
}

/** The outcome of checking one event: the version checked against (null: not checked) and, in `warn`, the failures. */
export type SchemaCheck = { version: number | null; warnings: string[] | null };
const UNCHECKED: SchemaCheck = { version: null, warnings: null };

/**
 * Checks event `data` of `topic` against the topic's current schema (the catalog as last read:
 * call refreshCatalog first). `off` or no schema: not checked. `warn`: checked, failures returned as
 * warnings (counted in `hookyard_schema_validations_total`). `enforce`: a failing event throws 422
 * `{status: 422, message: "validation error", data: ["/data/<pointer>: <message>", …]}`.
 */
export function checkEvent(topic: string, data: unknown): SchemaCheck {
  const rule = rules.get(topic);
  if (!rule || rule.validation === "off" || rule.version === null || !rule.schema) return UNCHECKED;
  const validate = validatorOf(topic, rule.version, rule.schema);
  if (validate(data)) {
    recordSchemaValidation("outbound", "valid");
    return { version: rule.version, warnings: null };
  }
  const messages = messagesOf(validate.errors);
  if (rule.validation === "enforce") {
    recordSchemaValidation("outbound", "rejected");
    throw outboundInvalid(messages);
  }
  recordSchemaValidation("outbound", "warned");
  return { version: rule.version, warnings: messages };
}

/** The topics `caller` may see: all for the admin; for a tenant those it can subscribe to (OUTBOUND_TOPICS, or every one when unset). */
function visible(caller: OutboundCaller, topic: string): boolean {
  if (caller.kind !== "tenant") return true;
  const allowed = outboundConfig().topics;
  return allowed.length === 0 || allowed.includes(topic);
}

/** `GET /catalog`: `{models: [topic]}` by name; a tenant sees only the topics it can subscribe to. */
export async function listCatalog(caller: OutboundCaller): Promise<{ models: CatalogTopic[] }> {
  const { rows } = await getPool().query<TopicRow>(`${SELECT_TOPICS} ORDER BY t.name COLLATE "C"`);
  return { models: rows.filter((r) => visible(caller, r.name)).map(toTopic) };
}

/** `GET /catalog/{topic}`: 404 `topic not found` when it has no entry or the tenant cannot subscribe to it. */
export async function getCatalogTopic(topic: string, caller: OutboundCaller): Promise<CatalogTopic> {
  const { rows } = await getPool().query<TopicRow>(`${SELECT_TOPICS} WHERE t.name = $1`, [topic]);
  if (!rows[0] || !visible(caller, topic)) throw outboundNotFound("topic not found");
  return toTopic(rows[0]);
}

/** `GET /catalog/{topic}/schemas/{version}`: `{topic, version, schema, created_at}`; 404 otherwise. */
export async function getTopicSchema(topic: string, version: string, caller: OutboundCaller) {
  const n = Number(version);
  const { rows } = Number.isSafeInteger(n)
    ? await getPool().query<{ version: number; schema: unknown; created_at: Date }>(
        "SELECT version, schema, created_at FROM outbound_topic_schemas WHERE topic = $1 AND version = $2",
        [topic, n],
      )
    : { rows: [] };
  if (!rows[0] || !visible(caller, topic)) throw outboundNotFound("schema not found");
  return { topic, version: rows[0].version, schema: rows[0].schema, created_at: rows[0].created_at.toISOString() };
}

/**
 * `PUT /catalog/{topic}` (admin): creates (201) or updates (200) the entry. A schema different from the
 * current one becomes the next version (the same schema keeps its version); `schema: null` removes it
 * (validation then `off`). The example must pass the schema; `warn` and `enforce` need a schema; with
 * OUTBOUND_TOPICS set the topic must be one of them. Throws 422 naming each problem; nothing is written then.
 */
export async function putCatalogTopic(topic: string, body: unknown): Promise<{ status: number; body: CatalogTopic }> {
  const parsed = ZTopicPut.safeParse(body ?? {});
  if (!parsed.success) throw parsed.error;
  const b = parsed.data;
  const errors: string[] = [];
  if (!topic || topic.length > 255 || topic === "*") errors.push("topic: must be 1 to 255 characters, not *");
  const allowed = outboundConfig().topics;
  if (allowed.length && !allowed.includes(topic)) errors.push(`topic: ${topic} is not a topic of this deployment (OUTBOUND_TOPICS)`);
  if (b.example !== undefined && b.example !== null && Buffer.byteLength(JSON.stringify(b.example)) > MAX_EXAMPLE_BYTES)
    errors.push(`example: larger than ${MAX_EXAMPLE_BYTES} bytes`);
  if (errors.length) throw outboundInvalid(errors);
  const result = await inTransaction(async (client) => {
    // One writer per topic at a time: versions count up without gaps.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('hookyard-topic:' || $1))", [topic]);
    const { rows } = await client.query<TopicRow>(`${SELECT_TOPICS} WHERE t.name = $1`, [topic]);
    const current = rows[0];
    const schema = b.schema === undefined ? (current?.schema ?? null) : b.schema;
    const validation = b.validation ?? (b.schema === null ? "off" : (current?.validation ?? "off"));
    const example = b.example === undefined ? (current?.example ?? null) : b.example;
    const problems: string[] = [];
    const validate = schema ? compileSchema(schema) : null;
    if (!schema && validation !== "off") problems.push(`validation: ${validation} needs a schema`);
    if (validate && example !== null && example !== undefined && !validate(example))
      problems.push(...messagesOf(validate.errors).map((m) => `example${m.slice("/data".length)}`));
    if (problems.length) throw outboundInvalid(problems);
    let version = current?.schema_version ?? null;
    if (schema && !(current?.schema && isDeepStrictEqual(current.schema, schema))) {
      const { rows: v } = await client.query<{ n: number }>("SELECT coalesce(max(version), 0) + 1 AS n FROM outbound_topic_schemas WHERE topic = $1", [topic]);
      version = v[0].n;
    } else if (!schema) version = null;
    await client.query(
      `INSERT INTO outbound_topics (name, description, example, validation, schema_version) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, example = EXCLUDED.example, validation = EXCLUDED.validation,
              schema_version = EXCLUDED.schema_version, updated_at = now()`,
      [
        topic,
        b.description === undefined ? (current?.description ?? null) : b.description,
        example === null ? null : JSON.stringify(example),
        validation,
        version,
      ],
    );
    if (version !== null && version !== current?.schema_version)
      await client.query("INSERT INTO outbound_topic_schemas (topic, version, schema) VALUES ($1, $2, $3)", [topic, version, JSON.stringify(schema)]);
    const { rows: after } = await client.query<TopicRow>(`${SELECT_TOPICS} WHERE t.name = $1`, [topic]);
    return { created: !current, row: after[0] };
  });
  await refreshCatalog(true);
  return { status: result.created ? 201 : 200, body: toTopic(result.row) };
}

/** `DELETE /catalog/{topic}` (admin): removes the entry and its schema versions (events keep the version they recorded). 404 when absent. */
export async function deleteCatalogTopic(topic: string): Promise<{ body: { success: true } }> {
  const { rowCount } = await getPool().query("DELETE FROM outbound_topics WHERE name = $1", [topic]);
  if (!rowCount) throw outboundNotFound("topic not found");
  await refreshCatalog(true);
  return { body: { success: true } };
}
