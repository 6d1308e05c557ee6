/**
 * The filter syntax of the filter rule (simple-json-match, docs/pipeline.md#filter)
 * translated to a PostgreSQL jsonpath predicate, so the `headers`, `body`, `parsed_query` and
 * `path` filters of the event and request lists (docs/gateway-api.md#content-filters-and-search-requests-and-events) run in the database (`doc @@ path`),
 * never over rows loaded into Node.
 *
 * Supported: nested objects (partial match), primitives (loose: `5` also matches `"5"`), arrays in the
 * schema (every element present), `$eq` `$neq` (primitives), `$gt` `$gte` `$lt` `$lte`, `$in` `$nin`
 * (array operand = one of; string operand = contains), `$startsWith` `$endsWith` (string or array),
 * `$exist`, `$or` `$and` `$not`. A scalar against an array matches when an element matches (jsonpath's
 * lax mode). `$ref` and deep `$eq` on objects are not supported in list filters (400).
 */
import { AppError } from "@/lib/http/errors";

/** A filter the database cannot run: a 400 AppError; the surface answers it naming the parameter. */
const jsonFilterError = (message: string) => new AppError("BAD_REQUEST", message);

/** Deepest schema a list filter may nest. */
const MAX_DEPTH = 16;

const lit = (v: unknown): string => {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "boolean") return String(v);
  throw jsonFilterError(`${JSON.stringify(v)} cannot be compared in a list filter`);
};
const key = (k: string) => JSON.stringify(k);
const regexEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Loose equality of `path` with a primitive (a number also matches its text, and numeric text the number). */
function eq(path: string, v: unknown): string {
  if (v !== null && typeof v === "object") throw jsonFilterError("$eq on objects or arrays is not supported in list filters");
  const alts = [`${path} == ${lit(v)}`];
  if (typeof v === "number") alts.push(`${path} == ${JSON.stringify(String(v))}`);
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) alts.push(`${path} == ${Number(v)}`);
  if (typeof v === "boolean") alts.push(`${path} == "${v}"`);
  if (v === "true" || v === "false") alts.push(`${path} == ${v}`);
  return alts.length === 1 ? alts[0] : `(${alts.join(" || ")})`;
}

const strings = (op: string, v: unknown): string[] => {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || list.some((s) => typeof s !== "string")) throw jsonFilterError(`${op} takes a string or an array of strings`);
  return list as string[];
};
const any = (parts: string[]) => (parts.length === 1 ? parts[0] : `(${parts.join(" || ")})`);
const all = (parts: string[]) => (parts.length === 0 ? "true" : parts.length === 1 ? parts[0] : `(${parts.join(" && ")})`);

function operator(op: string, v: unknown, path: string, depth: number): string {
  switch (op) {
    case "$eq":
      return eq(path, v);
    case "$neq":
      return `!(${eq(path, v)})`;
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte": {
      if (typeof v !== "number" && typeof v !== "string") throw jsonFilterError(`${op} takes a number or a string`);
      const sym = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" }[op];
      return `${path} ${sym} ${lit(v)}`;
    }
    case "$in":
    case "$nin": {
      const inner = Array.isArray(v) ? any(v.map((x) => eq(path, x))) : typeof v === "string" ? `${path} like_regex ${JSON.stringify(regexEscape(v))}` : null;
      if (inner === null) throw jsonFilterError(`${op} takes an array or a string`);
      return op === "$in" ? inner : `!(${inner})`;
    }
    case "$startsWith":
      return any(strings(op, v).map((s) => `${path} starts with ${JSON.stringify(s)}`));
    case "$endsWith":
      return any(strings(op, v).map((s) => `${path} like_regex ${JSON.stringify(`${regexEscape(s)}$`)}`));
    case "$exist":
      if (typeof v !== "boolean") throw jsonFilterError("$exist takes true or false");
      return v ? `exists(${path})` : `!exists(${path})`;
    case "$or":
    case "$and": {
      if (!Array.isArray(v) || v.length === 0) throw jsonFilterError(`${op} takes a non-empty array of filters`);
      const parts = v.map((s) => schema(s, path, depth + 1));
      return op === "$or" ? any(parts) : all(parts);
    }
    case "$not":
      return `!(${schema(v, path, depth + 1)})`;
    default:
      throw jsonFilterError(op === "$ref" ? "$ref is not supported in list filters" : `unknown operator ${op}`);
  }
}

function schema(s: unknown, path: string, depth: number): string {
  if (depth > MAX_DEPTH) throw jsonFilterError(`a filter may nest at most ${MAX_DEPTH} levels`);
  if (Array.isArray(s)) return all(s.map((e) => (e !== null && typeof e === "object" ? schema(e, path, depth + 1) : eq(path, e))));
  if (s === null || typeof s !== "object") return eq(path, s);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    if (k.startsWith("$")) parts.push(operator(k, v, path, depth));
    else parts.push(schema(v, `${path}.${key(k)}`, depth + 1));
  }
  return parts.length ? all(parts) : `exists(${path})`;
}

/**
 * The jsonpath predicate (for `doc @@ $n::jsonpath`) of filter `filter` (a parsed JSON schema, or a
 * string meaning equality). Throws a 400 AppError for what list filters cannot run.
 */
export function jsonFilterPath(filter: unknown): string {
  return schema(filter, "$", 0);
}
