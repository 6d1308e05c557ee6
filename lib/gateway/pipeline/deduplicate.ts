/**
 * The `deduplicate` rule (docs/pipeline.md#deduplicate): `{type: "deduplicate", window (s),
 * include_fields?, exclude_fields?}`. Events whose compared fields are equal within `window` of a
 * first occurrence are ignored (cause DEDUPLICATED); only the first is delivered. Field paths name the
 * event's `body`, `headers`, `path` and `query` (parsed): a root name, a dotted path, `[0]` or `[*]`.
 */
import { createHash } from "node:crypto";
import { canonical, parsePath, pick, type Segment } from "@/lib/rules/field-path";
import type { TransformRequest } from "@/lib/rules/run-transformation";

export { canonical, fieldValue } from "@/lib/rules/field-path";

export type DeduplicateRule = { type: "deduplicate"; window: number; include_fields?: string[] | null; exclude_fields?: string[] | null };

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
