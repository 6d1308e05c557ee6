/**
 * Text PostgreSQL cannot store, made storable without losing it (docs/pipeline.md#text-postgresql-cannot-store).
 * PostgreSQL refuses U+0000 in `text` and `jsonb`
 * and unpaired surrogates (`\ud800`) in `jsonb`; one such value in a multi-row statement fails the
 * whole statement. Captured content (parsed bodies and queries, headers, paths, transformation input,
 * output and logs, destination answers) goes through these before it is written: each U+0000 or lone
 * surrogate in a string becomes the six characters of its JSON escape (`\u0000`, `\ud800`), so it stays
 * readable and nothing else changes. Raw request bodies are `bytea` and stored byte-exact, untouched.
 */

// An escape JSON.stringify writes for U+0000 or a lone surrogate (it writes paired ones as they are),
// preceded by an even number of backslashes (so it is an escape, not an escaped backslash + "u0000").
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/gi;
// U+0000 or a surrogate that is not half of a pair, in a JS string.
// eslint-disable-next-line no-control-regex -- U+0000 is the character PostgreSQL cannot store, so the pattern must name it
const UNSTORABLE_CHAR = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `json` (JSON.stringify output) with every string's U+0000 and lone surrogates turned into the
 * literal text of their escape (`"\\u0000"`), which `jsonb` stores. Cheap when there are none (two
 * substring scans).
 */
export function storableJsonText(json: string): string {
  if (!json.includes("\\u0000") && !/\\u[dD][89a-fA-F]/.test(json)) return json;
  return json.replace(UNSTORABLE_ESCAPE, (_, backslashes: string, hex: string) => `${backslashes}\\\\u${hex}`);
}

/**
 * `value` as JSON text `jsonb` accepts (see storableJsonText), or `fallback` when it cannot be written
 * as JSON at all (nested too deep for JSON.stringify, a cycle, a BigInt). `undefined` gives `fallback`.
 */
export function storableJson(value: unknown, fallback: string | null = null): string | null {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return fallback;
  }
  return json === undefined ? fallback : storableJsonText(json);
}

/** `text` with U+0000 and lone surrogates written as their escapes (`\u0000`), for `text` columns. */
export function storableText(text: string): string;
export function storableText(text: string | null): string | null;
export function storableText(text: string | null): string | null {
  if (text === null) return null;
  UNSTORABLE_CHAR.lastIndex = 0;
  if (!UNSTORABLE_CHAR.test(text)) return text;
  return text.replace(UNSTORABLE_CHAR, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
