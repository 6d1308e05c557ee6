/**
 * Query-string formatting of the gateway API (docs/gateway-api.md#lists-and-paging):
 * `item[1]=a&item[2]=b`, `item[]=a` and repeated `item=a&item=b` are arrays; `created_at[gte]=…` are
 * operators; dates are full or date-only ISO; JSON parameters are URL-encoded JSON.
 * Every parser throws a 400 AppError (badRequest) naming the parameter on bad input.
 */
import { AppError, badRequest } from "@/lib/http/errors";
import { hasUnstorableText, isForbiddenKey, parseJsonInput } from "@/lib/http/json-input";

export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };
export type ParsedQuery = Record<string, QueryValue>;

/** Bracket levels a query key may nest (`a[b][c]` is 2); docs/gateway-api.md "Input limits". */
export const QUERY_MAX_DEPTH = 16;
/** Parameters a query string may hold; docs/gateway-api.md "Input limits". */
export const QUERY_MAX_PARAMS = 1000;

/** An object without a prototype: assigning any key to it only ever creates an own property. */
const dict = (): Record<string, QueryValue> => Object.create(null) as Record<string, QueryValue>;

function setPath(target: Record<string, QueryValue>, keys: string[], value: string) {
  let node: Record<string, QueryValue> = target;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const last = i === keys.length - 1;
    if (last) {
      const prev = node[key];
      // `a[]=x` or a repeated key: append.
      if (key === "" || prev !== undefined) node[key] = prev === undefined ? [value] : Array.isArray(prev) ? [...prev, value] : [prev, value];
      else node[key] = value;
      return;
    }
    const child = node[key];
    if (child === undefined || typeof child === "string" || Array.isArray(child)) {
      const fresh = dict();
      if (typeof child === "string") fresh[""] = [child];
      node[key] = fresh;
    }
    node = node[key] as Record<string, QueryValue>;
  }
}

/** Objects whose keys are all numeric or empty become arrays (in numeric order). Objects stay null-prototype. */
function normalise(value: QueryValue): QueryValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length && keys.every((k) => k === "" || /^\d+$/.test(k))) {
    return keys
      .sort((a, b) => (a === "" ? -1 : b === "" ? 1 : Number(a) - Number(b)))
      .flatMap((k) => {
        const v = normalise(value[k]);
        return Array.isArray(v) ? v : [v];
      });
  }
  const out = dict();
  for (const k of keys) out[k] = normalise(value[k]);
  return out;
}

/**
 * Parses a raw query string into nested values (null-prototype objects). Keys naming `__proto__`,
 * `constructor` or `prototype` at any level are dropped. Past {@link QUERY_MAX_DEPTH} bracket levels the
 * remaining brackets stay one literal key, and parameters past {@link QUERY_MAX_PARAMS} are dropped —
 * unless `strict` (the API surfaces' own queries): then all three, and a key or value holding U+0000 or
 * an unpaired surrogate, throw a 400 AppError. Captured requests' queries and form bodies are parsed leniently and never throw.
 */
export function parseQuery(search: URLSearchParams, opts: { strict?: boolean } = {}): ParsedQuery {
  const out = dict();
  let count = 0;
  for (const [rawKey, value] of search) {
    if (++count > QUERY_MAX_PARAMS) {
      if (opts.strict) throw badRequest(`A query may hold at most ${QUERY_MAX_PARAMS} parameters`, { limit: QUERY_MAX_PARAMS });
      break;
    }
    if (opts.strict && (hasUnstorableText(rawKey) || hasUnstorableText(value))) {
      throw badRequest("Query parameters must not contain U+0000", { parameter: rawKey.replace(/\0/g, "\\u0000").slice(0, 200) });
    }
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    let keys = m ? [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1])] : [rawKey];
    if (keys.length - 1 > QUERY_MAX_DEPTH) {
      if (opts.strict) throw badRequest(`Query keys may nest at most ${QUERY_MAX_DEPTH} brackets deep`, { limit: QUERY_MAX_DEPTH });
      keys = [
        ...keys.slice(0, QUERY_MAX_DEPTH),
        keys
          .slice(QUERY_MAX_DEPTH)
          .map((k) => `[${k}]`)
          .join(""),
      ];
    }
    if (keys.some(isForbiddenKey)) {
      // An API parameter so named would be dropped silently (a filter ignored): refuse it instead.
      if (opts.strict) throw badRequest("Query keys must not name __proto__, constructor or prototype", { parameter: rawKey.slice(0, 200) });
      continue;
    }
    setPath(out, keys, value);
  }
  const parsed = dict();
  for (const k of Object.keys(out)) parsed[k] = normalise(out[k]);
  return parsed;
}

/** A `%` that starts no `%XX` escape: kept literally, as URLSearchParams does. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/**
 * Throws a 400 AppError when the raw query string `search` (with or without its `?`) holds a
 * percent-encoded byte sequence that is not UTF-8 (`%FF`, `%C0%80`, an encoded surrogate `%ED%A0%80`):
 * URLSearchParams would turn it into U+FFFD silently, so a filter would compare against a value nobody
 * sent. A lone `%` that starts no escape is kept literally, as URLSearchParams keeps it.
 */
export function checkQueryEncoding(search: string): void {
  const bad = badlyEncodedParameter(search);
  if (bad !== null) throw badRequest("Query parameters must be valid UTF-8 percent-encoding", { parameter: bad });
}

/**
 * The (raw, shortened) name of the first parameter of the raw query `search` whose percent-encoding is
 * not UTF-8 (see {@link checkQueryEncoding}), or null when all are. Never throws.
 */
export function badlyEncodedParameter(search: string): string | null {
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!part.includes("%")) continue;
    try {
      decodeURIComponent(part.replace(/\+/g, " ").replace(LONE_PERCENT, "%25"));
    } catch {
      return part.split("=")[0].slice(0, 200);
    }
  }
  return null;
}

/**
 * The query of an API request (gateway and outbound surfaces): {@link checkQueryEncoding}, then
 * {@link parseQuery} in strict mode (U+0000 or an unpaired surrogate in a key or value, nesting past
 * QUERY_MAX_DEPTH and more than QUERY_MAX_PARAMS parameters are a 400). Every string filter of both
 * surfaces reads its values from here, so none reaches PostgreSQL with text it refuses. Throws a 400
 * AppError; the outbound wrapper answers it in its own error body (lib/outbound/http.ts).
 */
export function parseApiQuery(url: URL): ParsedQuery {
  checkQueryEncoding(url.search);
  return parseQuery(url.searchParams, { strict: true });
}

/** A filter on one column: equality (one or many values) and the documented operators (docs/gateway-api.md#lists-and-paging). */
export type Filter =
  | { kind: "eq"; values: (string | number | boolean | Date)[] }
  | { kind: "ops"; gte?: number | Date; gt?: number | Date; lte?: number | Date; lt?: number | Date; any?: boolean; contains?: string };

const OPERATORS = ["gte", "gt", "lte", "lt", "any", "contains"] as const;
const RANGE = ["gte", "gt", "lte", "lt"] as const;

/** An ISO date-time or date-only value; throws 400 otherwise. */
export function parseDate(name: string, value: string): Date {
  const ok = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/.test(value);
  const date = new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value);
  // Date() rolls impossible days over (2024-02-30 → 2024-03-01): the calendar date must exist as written.
  const [y, m, d] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(y, m - 1, d));
  const exists = calendar.getUTCFullYear() === y && calendar.getUTCMonth() === m - 1 && calendar.getUTCDate() === d;
  if (!ok || !exists || Number.isNaN(date.getTime())) throw badRequest(`Invalid date for "${name}": "${value}"`, { [name]: value });
  return date;
}

function parseScalar(name: string, type: "string" | "number" | "date" | "boolean", value: QueryValue): string | number | boolean | Date {
  if (typeof value !== "string") throw badRequest(`Invalid value for "${name}"`, { [name]: value });
  switch (type) {
    case "string":
      return value;
    case "number": {
      const n = Number(value);
      if (value.trim() === "" || !Number.isFinite(n)) throw badRequest(`Invalid number for "${name}": "${value}"`, { [name]: value });
      return n;
    }
    case "date":
      return parseDate(name, value);
    case "boolean":
      if (value === "true" || value === "1") return true;
      if (value === "false" || value === "0") return false;
      throw badRequest(`Invalid boolean for "${name}": "${value}"`, { [name]: value });
  }
}

/**
 * Parses the filter parameter `name` of type `type`: a value, an array of values, or an operator object
 * (`gte gt lte lt` for dates and numbers, `any` for all types, `contains` for strings).
 * Returns undefined when absent; throws 400 for operators the type does not take or bad values.
 */
export function parseFilter(query: ParsedQuery, name: string, type: "string" | "number" | "date" | "boolean"): Filter | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw === "string") return { kind: "eq", values: [parseScalar(name, type, raw)] };
  if (Array.isArray(raw)) return { kind: "eq", values: raw.map((v) => parseScalar(name, type, v)) };
  const ops: Extract<Filter, { kind: "ops" }> = { kind: "ops" };
  for (const [op, value] of Object.entries(raw)) {
    if (!(OPERATORS as readonly string[]).includes(op)) throw badRequest(`Unknown operator "${op}" for "${name}"`, { [name]: raw });
    if ((RANGE as readonly string[]).includes(op)) {
      if (type !== "date" && type !== "number") throw badRequest(`Operator "${op}" does not apply to "${name}"`, { [name]: raw });
      ops[op as (typeof RANGE)[number]] = parseScalar(`${name}[${op}]`, type, value) as number | Date;
    } else if (op === "any") {
      ops.any = parseScalar(`${name}[any]`, "boolean", value) as boolean;
    } else {
      if (type !== "string") throw badRequest(`Operator "contains" does not apply to "${name}"`, { [name]: raw });
      ops.contains = parseScalar(`${name}[contains]`, "string", value) as string;
    }
  }
  return ops;
}

/** A URL-encoded JSON parameter (`query=%7B…%7D`), or an already nested object. Throws 400 when not JSON. */
export function parseJsonParam(query: ParsedQuery, name: string): unknown {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") return raw;
  try {
    return parseJsonInput(raw);
  } catch (err) {
    if (err instanceof AppError) throw badRequest(`"${name}": ${err.message}`, { [name]: raw.slice(0, 200) });
    throw badRequest(`"${name}" must be URL-encoded JSON`, { [name]: raw.slice(0, 200) });
  }
}

/**
 * SQL for a filter on `column`, with parameters appended to `params`. `eq` on several values is
 * `= ANY`; `contains` is a case-insensitive substring match; `any: true` means not null.
 */
export function filterSql(column: string, filter: Filter, params: unknown[], cast = ""): string {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}${cast}`;
  };
  if (filter.kind === "eq") {
    if (filter.values.length === 1) return `${column} = ${p(filter.values[0])}`;
    params.push(filter.values);
    return `${column} = ANY($${params.length}${cast ? `${cast}[]` : ""})`;
  }
  const parts: string[] = [];
  if (filter.gte !== undefined) parts.push(`${column} >= ${p(filter.gte)}`);
  if (filter.gt !== undefined) parts.push(`${column} > ${p(filter.gt)}`);
  if (filter.lte !== undefined) parts.push(`${column} <= ${p(filter.lte)}`);
  if (filter.lt !== undefined) parts.push(`${column} < ${p(filter.lt)}`);
  if (filter.any !== undefined) parts.push(filter.any ? `${column} IS NOT NULL` : `${column} IS NULL`);
  if (filter.contains !== undefined) {
    params.push(`%${filter.contains.replace(/[\\%_]/g, "\\$&")}%`);
    parts.push(`${column} ILIKE $${params.length}`);
  }
  return parts.length ? parts.join(" AND ") : "TRUE";
}

/**
 * `parsed_query` of a raw query string (without "?"): brackets nest (`a[b]=1` → `{a: {b: "1"}}`),
 * `a[]=x`, `a[0]=x` and repeated keys (`a=1&a=2`) give arrays, as the API's own query parameters parse.
 */
export function parseQueryString(raw: string): Record<string, unknown> {
  return parseQuery(new URLSearchParams(raw));
}
