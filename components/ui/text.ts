/**
 * A JSON value as display text: a string as it is, a number or boolean as String() writes it, anything
 * else (null, arrays, objects) as JSON; undefined as "".
 */
export function displayText(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v) ?? "";
}
