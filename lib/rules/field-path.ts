/**
 * Field paths into JSON values, shared by the gateway's deduplicate rule and ordering keys
 * (docs/pipeline.md#deduplicate) and the outbound service's ordering keys (docs/outbound.md
 * "Ordered delivery"): a root name, a dotted path, `[0]` or `[*]`; and canonical JSON.
 */

/** A path segment: a key, an array index, or "*" (every element of an array). */
export type Segment = string | number;

/** The segments of field path `path` (`body.items[0].sku` → body, items, 0, sku). */
export function parsePath(path: string): Segment[] {
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

/** The value at `segments` of `value` (an array of values under `*`), or undefined when absent. */
export function pick(value: unknown, segments: Segment[]): unknown {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments;
  if (head === "*") return Array.isArray(value) ? value.map((v) => pick(v, rest)) : undefined;
  if (value === null || typeof value !== "object") return undefined;
  return pick((value as Record<string | number, unknown>)[head], rest);
}

/** The value at field path `path` (`body.id`, `body.items[0].sku`) of `event`, or undefined when absent. */
export const fieldValue = (event: unknown, path: string): unknown => pick(event, parsePath(path));

/** Canonical JSON: object keys sorted, so equal values give equal text. */
export function canonical(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/**
 * An ordering key's text from the value found at its path (docs/pipeline.md "Ordered delivery"): a
 * string is itself, a number or boolean its text, another JSON value its canonical JSON, and a missing
 * value (undefined or null) the empty key "".
 */
export function keyText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return canonical(value);
}
