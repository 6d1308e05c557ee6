/**
 * The `deduplicate` rule (docs/pipeline.md#deduplicate): `{type: "deduplicate", window (s),
 * include_fields?, exclude_fields?}`. Events whose compared fields are equal within `window` of a
 * first occurrence are ignored (cause DEDUPLICATED); only the first is delivered. Field paths name the
 * event's `body`, `headers`, `path` and `query` (parsed): a root name, a dotted path, `[0]` or `[*]`.
 */
import { createHash } from "node:crypto";
import type { TransformRequest } from "@/lib/rules/run-transformation";

export type DeduplicateRule = { type: "deduplicate"; window: number; include_fields?: string[] | null; exclude_fields?: string[] | null };

/** A path segment: a key, an array index, or "*" (every element of an array). */
type Segment = string | number;

function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of path.split(".")) {
    const m = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (!m) {
      segments.push(part);
      continue;
    }
    if (m[1]) segments.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+|\*)\]/g)) segments.push(idx[1] === "*" ? "*" : Number(idx[1]));
  }
  return segments;
}

function pick(value: unknown, segments: Segment[]): unknown {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments;
  if (head === "*") return Array.isArray(value) ? value.map((v) => pick(v, rest)) : undefined;
  if (value === null || typeof value !== "object") return undefined;
  return pick((value as Record<string | number, unknown>)[head], rest);
}

/** The value at field path `path` (`body.id`, `body.items[0].sku`) of `event`, or undefined when absent. */
export const fieldValue = (event: unknown, path: string): unknown => pick(event, parsePath(path));

function omit(value: unknown, segments: Segment[]): unknown {
  if (segments.length === 0 || value === null || typeof value !== "object") return segments.length === 0 ? undefined : value;
  const [head, ...rest] = segments;
  if (Array.isArray(value)) {
    if (head === "*") return rest.length === 0 ? [] : value.map((v) => omit(v, rest));
    if (typeof head !== "number") return value;
    return (value as unknown[]).flatMap((v, i) => (i !== head ? [v] : rest.length === 0 ? [] : [omit(v, rest)]));
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const key = String(head);
  if (!Object.hasOwn(copy, key)) return copy;
  if (rest.length === 0) delete copy[key];
  else copy[key] = omit(copy[key], rest);
  return copy;
}

/** Canonical JSON: object keys sorted, so equal values give equal text. */
export function canonical(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/**
 * SHA-256 (hex) of the fields the rule compares: the whole event (`body`, `headers`, `path`, `query`)
 * minus `exclude_fields`, narrowed to `include_fields` when given.
 */
export function dedupDigest(rule: DeduplicateRule, request: TransformRequest): string {
  let event: unknown = { body: request.body, headers: request.headers, path: request.path, query: request.parsed_query };
  for (const f of rule.exclude_fields ?? []) event = omit(event, parsePath(f));
  const compared = rule.include_fields && rule.include_fields.length > 0 ? rule.include_fields.map((f) => [f, pick(event, parsePath(f))]) : event;
  return createHash("sha256").update(canonical(compared)).digest("hex");
}

/**
 * SHA-256 (hex) of a request's raw data (path, query, headers, body bytes): what a deduplicate rule
 * compares when the parsed request cannot be compared (a body nested too deep for dedupDigest), so
 * identical requests are still ignored as duplicates.
 */
export function rawDedupDigest(raw: { path: string; query: string; headers: Record<string, string>; body: Buffer | null }): string {
  const h = createHash("sha256")
    .update("raw\0")
    .update(raw.path ?? "")
    .update("\0")
    .update(raw.query ?? "")
    .update("\0")
    .update(canonical(raw.headers ?? {}))
    .update("\0");
  if (raw.body) h.update(raw.body);
  return h.digest("hex");
}
