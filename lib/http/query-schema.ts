/**
 * List filters as zod schemas (docs/gateway-api.md#lists-and-paging): each resource declares a
 * table `{parameter: filter}` (column, type, zod schema of what the query string may hold). The same
 * table validates a list's query (400 BAD_REQUEST naming the parameter, so a bad value never reaches
 * SQL), builds its WHERE clauses, and gives the OpenAPI parameters (lib/gateway/openapi/operations.ts).
 *
 * Accepted forms: strings and enums take a value, an array (`id[]=a&id[]=b`, `id[0]=…`, repeated
 * `id=a&id=b`) or `{contains, any}`; numbers a value, an array or `{gte, gt, lte, lt, any}`; dates a
 * value or `{gte, gt, lte, lt, any}`; booleans `true`/`false` (or `1`/`0`) or `{any}`.
 */
import { z } from "zod";
import { AppError, badRequest, notFound } from "@/lib/http/errors";
import { jsonFilterPath } from "@/lib/http/json-filter";
import { parseJsonInput } from "@/lib/http/json-input";
import { filterSql, type ParsedQuery, parseDate, parseFilter, type QueryValue } from "@/lib/http/query";

type FilterType = "string" | "number" | "date" | "boolean";

export type FilterDef = {
  /** SQL of the filtered column (a trusted constant); null for a parameter the caller applies itself (validated and documented here). */
  column: string | null;
  type: FilterType;
  description: string;
  /** What each form of the parameter may hold: one value, an array, an operator object. */
  forms: { value: z.ZodType; array?: z.ZodType; ops: z.ZodType };
  /** Maps each given value before comparing (e.g. an alternative spelling to the stored one). */
  map?: (value: string) => string;
  /** Builds the WHERE clause itself (params appended), for filters no column comparison expresses; throws 400. */
  sql?: (value: QueryValue, params: unknown[], name: string) => string;
  /** Takes a JSON document in the rules' filter syntax (documentFilter): a bulk `query` hands it on as its JSON text. */
  document?: true;
};
export type FilterTable = Record<string, FilterDef>;

const MAX_VALUES = 250;
const MAX_LENGTH = 1024;
const INT32 = 2 ** 31;

const text = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_LENGTH)
  .refine((s) => !s.includes("\u0000"), "must not contain NUL characters");
const bool = z.enum(["true", "false", "1", "0"]);
const int = z
  .string()
  .regex(/^-?\d{1,10}$/, "must be an integer")
  .refine((s) => Math.abs(Number(s)) < INT32, "is out of range");
const date = z.string().refine((s) => {
  try {
    parseDate("", s);
    return true;
  } catch {
    return false;
  }
}, "must be an ISO date (2026-01-31) or date-time (2026-01-31T12:00:00Z)");
const many = <T extends z.ZodType>(value: T) => z.array(value).min(1).max(MAX_VALUES);
const range = (value: z.ZodType) =>
  z.strictObject({ gte: value.optional(), gt: value.optional(), lte: value.optional(), lt: value.optional(), any: bool.optional() });

/** A string column (ids, codes): a value, an array, or `{contains, any}`. */
export const stringFilter = (column: string, description: string): FilterDef => ({
  column,
  type: "string",
  description,
  forms: { value: text, array: many(text), ops: z.strictObject({ contains: text.optional(), any: bool.optional() }) },
});

/** A column with a closed set of values: a value, an array, or `{any}`; `map` translates accepted alternative spellings. */
export const enumFilter = (column: string, values: readonly [string, ...string[]], description: string, map?: (value: string) => string): FilterDef => ({
  column,
  type: "string",
  description,
  forms: { value: z.enum(values), array: many(z.enum(values)), ops: z.strictObject({ any: bool.optional() }) },
  ...(map ? { map } : {}),
});

/** An integer column: a value, an array, or `{gte, gt, lte, lt, any}`. */
export const numberFilter = (column: string, description: string): FilterDef => ({
  column,
  type: "number",
  description,
  forms: { value: int, array: many(int), ops: range(int) },
});

/** A timestamp column: a value or `{gte, gt, lte, lt, any}`. */
export const dateFilter = (column: string, description: string): FilterDef => ({
  column,
  type: "date",
  description,
  forms: { value: date, ops: range(date) },
});

/** A boolean column: `true`/`false` (`1`/`0`), or `{any}`. */
export const booleanFilter = (column: string, description: string): FilterDef => ({
  column,
  type: "boolean",
  description,
  forms: { value: bool, ops: z.strictObject({ any: bool.optional() }) },
});

/** The bracket form of a filter (`body[type]=x&body[data][id]=1`) as a schema: an object of strings. */
function bracketSchema(value: QueryValue): unknown {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(bracketSchema);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bracketSchema(v)]));
}

/**
 * A filter in the filter rule's syntax (simple-json-match) over a JSON document (`doc`, SQL), run
 * in PostgreSQL as a jsonpath predicate (lib/http/json-filter.ts). Takes URL-encoded JSON
 * (`body=%7B%22type%22%3A%22order.created%22%7D`), the bracket form (`body[type]=order.created`), or a
 * plain string (equality; `path=/orders`). `wrap` places the condition (`{}`) where `doc` is reachable,
 * e.g. inside an EXISTS over the request's raw data. A filter the database cannot run is a 400.
 */
export const documentFilter = (doc: string, wrap: string, description: string): FilterDef => ({
  column: null,
  type: "string",
  description,
  forms: { value: z.string().max(10_000), ops: z.record(z.string(), z.unknown()) },
  document: true,
  sql: (value, params, name) => {
    let schema: unknown = bracketSchema(value);
    if (typeof value === "string") {
      try {
        schema = parseJsonInput(value);
      } catch (err) {
        if (err instanceof AppError) throw badRequest(`Invalid value for "${name}": ${err.message}`, { field: name });
        schema = value;
      }
    }
    try {
      params.push(jsonFilterPath(schema));
    } catch (err) {
      if (err instanceof AppError) throw badRequest(`Invalid value for "${name}": ${err.message}`, { field: name, message: err.message });
      throw err;
    }
    return wrap.replace("{}", `(${doc}) @@ $${params.length}::jsonpath`);
  },
});

/**
 * `search_term`: a text found in the request's body (bytes), headers, path or query, or in `extra`
 * (SQL text, e.g. a transformed event's data). `wrap` places the raw-data condition (`{}`) as in documentFilter.
 */
export const searchFilter = (wrap: string, description: string, extra?: string): FilterDef => ({
  column: null,
  type: "string",
  description,
  forms: { value: text, ops: z.strictObject({}) },
  sql: (value, params) => {
    const term = typeof value === "string" ? value : JSON.stringify(value); // forms.value admits only a string
    params.push(term, `%${term.replace(/[\\%_]/g, "\\$&")}%`);
    const [raw, like] = [`$${params.length - 1}`, `$${params.length}`];
    const inRaw = wrap.replace(
      "{}",
      `(position(convert_to(${raw}, 'UTF8') in coalesce(raw.body, ''::bytea)) > 0 OR raw.headers::text ILIKE ${like} OR raw.path ILIKE ${like} OR raw.query ILIKE ${like})`,
    );
    return extra ? `(${inRaw} OR ${extra} ILIKE ${like})` : inRaw;
  },
});

/**
 * A string filter on a value held in a link table (`link`: SQL selecting the linked values of the row,
 * e.g. `SELECT ie.issue_id AS v FROM issue_events ie WHERE ie.event_id = e.id`): the row matches when
 * one of its linked values matches (a value, an array, `contains`); `any=true|false` asks whether it
 * has any at all.
 */
export const linkedFilter = (link: string, description: string): FilterDef => ({
  ...stringFilter("v", description),
  column: null,
  sql: (value, params, name) => {
    const filter = parseFilter({ [name]: value }, name, "string")!;
    if (filter.kind === "ops" && filter.contains === undefined) return filter.any === false ? `NOT EXISTS (${link})` : `EXISTS (${link})`;
    return `EXISTS (SELECT 1 FROM (${link}) linked WHERE ${filterSql("linked.v", filter, params)})`;
  },
});

/** A boolean switch the caller applies itself (e.g. `disabled=true` widening a list): validated and documented, no WHERE clause. */
export const flagParameter = (description: string): FilterDef => ({
  column: null,
  type: "boolean",
  description,
  forms: { value: bool, ops: z.strictObject({}) },
});

const schemaOf = (f: FilterDef) => z.union(f.forms.array ? [f.forms.value, f.forms.array, f.forms.ops] : [f.forms.value, f.forms.ops]);

/** The zod object of a filter table (every parameter optional; other parameters are ignored). */
export function filterSchema(table: FilterTable) {
  return z.object(Object.fromEntries(Object.entries(table).map(([name, f]) => [name, schemaOf(f).optional().meta({ description: f.description })])));
}

/** Throws 400 BAD_REQUEST naming the first parameter of `table` whose value `query` gets wrong. */
export function validateFilters(table: FilterTable, query: ParsedQuery): void {
  for (const [name, f] of Object.entries(table)) {
    const value = query[name];
    if (value === undefined) continue;
    const form = typeof value === "string" ? f.forms.value : Array.isArray(value) ? f.forms.array : f.forms.ops;
    if (!form) throw badRequest(`Invalid value for "${name}": takes one value or operators, not an array`, { field: name, [name]: value });
    const result = form.safeParse(value);
    if (result.success) continue;
    const issue = result.error.issues[0];
    const field = [name, ...issue.path.map(String)].join(".");
    const message = issue.code === "unrecognized_keys" ? `unknown operator ${issue.keys.map((k) => `"${k}"`).join(", ")}` : issue.message;
    throw badRequest(`Invalid value for "${field}": ${message}`, { field, message, [name]: value });
  }
}

/** Validates `query` against `table` and adds a WHERE clause (params appended) for each filter given. */
export function applyFilterTable(table: FilterTable, query: ParsedQuery, where: string[], params: unknown[]): void {
  validateFilters(table, query);
  for (const [name, f] of Object.entries(table)) {
    if (f.sql) {
      if (query[name] !== undefined) where.push(f.sql(query[name], params, name));
      continue;
    }
    if (f.column === null) continue;
    const filter = parseFilter(query, name, f.type);
    if (!filter) continue;
    if (f.map && filter.kind === "eq") filter.values = filter.values.map((v) => (typeof v === "string" ? f.map!(v) : v));
    where.push(filterSql(f.column, filter, params));
  }
}

/** OpenAPI query parameters of a filter table (`deepObject`: `created_at[gte]=…`, `id[]=…`). */
export function filterParameters(
  table: FilterTable,
): { name: string; description: string; schema: Record<string, unknown>; style: "deepObject"; explode: true }[] {
  return Object.entries(table).map(([name, f]) => {
    const schema = z.toJSONSchema(schemaOf(f), { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete schema.$schema;
    return { name, description: f.description, schema, style: "deepObject", explode: true };
  });
}

/** A path id as given, or 404 when it cannot be an id at all (empty, too long, control characters): never a query error. */
export function pathId(id: string | undefined): string {
  if (!id || id.length > 255 || !/^[\x21-\x7e]+$/.test(id)) throw notFound(String(id ?? ""));
  return id;
}
