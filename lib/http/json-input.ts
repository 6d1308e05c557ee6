/**
 * JSON input of every API surface (docs/gateway-api.md#input-limits): a JSON body
 * or JSON query parameter is parsed and then checked, without recursion, against limits that keep bad
 * input a clear 4xx instead of a 5xx deeper down (a stack overflow in validation, PostgreSQL refusing
 * text, an object key reaching a prototype). Each surface's wrapper maps the 400 AppError of
 * {@link jsonInputError} to its own error body (lib/gateway/http.ts, lib/console/http.ts, lib/cli-channel/routes.ts).
 * Limits: docs/gateway-api.md#input-limits, docs/console-api.md#limits.
 */
import { AppError } from "@/lib/http/errors";

/** Keys that would reach an object's prototype chain when assigned: never assigned from user input. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** True for `__proto__`, `constructor` and `prototype` (no prototype pollution: docs/gateway-api.md#input-limits). */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** True when `s` holds U+0000 or a lone surrogate (text PostgreSQL cannot store or compare). */
export function hasUnstorableText(s: string): boolean {
  return s.includes("\0") || !(s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Deepest nesting of arrays and objects a JSON input may have (the top-level value is depth 1). */
export const JSON_MAX_DEPTH = 64;

/**
 * Why a JSON input was refused: a 400 AppError; `message` is meant for the client, `details.field` is the
 * dotted path of the offending value (`config.auth.key`), "" for the whole input.
 */
const jsonInputError = (message: string, field: string) => new AppError("BAD_REQUEST", message, { field });

const fieldOf = (path: (string | number)[]) => path.join(".");

/**
 * Throws a 400 AppError ({@link jsonInputError}) when `value` (a JSON.parse result) nests deeper than `maxDepth`, has a
 * key `__proto__`, `constructor` or `prototype`, or has a string or key with U+0000 or a lone surrogate.
 * Iterative: any depth is checked without growing the stack.
 */
export function checkJsonInput(value: unknown, maxDepth = JSON_MAX_DEPTH): void {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (hasUnstorableText(v)) throw jsonInputError(`${fieldOf(path) || "body"}: strings must not contain U+0000 or unpaired surrogates`, fieldOf(path));
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (path.length + 1 > maxDepth) throw jsonInputError(`JSON nests deeper than ${maxDepth} levels`, fieldOf(path.slice(0, 8)));
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (isForbiddenKey(key)) throw jsonInputError(`${fieldOf([...path, key])}: the key "${key}" is not allowed`, fieldOf([...path, key]));
      if (hasUnstorableText(key)) throw jsonInputError(`${fieldOf(path) || "body"}: keys must not contain U+0000 or unpaired surrogates`, fieldOf(path));
      stack.push({ v: (v as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
}

/** JSON.parse then {@link checkJsonInput}. Throws SyntaxError for invalid JSON, a 400 AppError past the limits. */
export function parseJsonInput(text: string, maxDepth = JSON_MAX_DEPTH): unknown {
  const value: unknown = JSON.parse(text);
  checkJsonInput(value, maxDepth);
  return value;
}

/**
 * Nesting captured content (webhook bodies, destination responses) may have to be shown or filtered as
 * parsed JSON; deeper documents are kept and shown as text, because serialising or rendering them again
 * would overflow the stack (a 10,000-deep body once broke the preview).
 */
const CAPTURED_JSON_MAX_DEPTH = 256;

/**
 * JSON.parse for captured content: the parsed value when `text` is JSON nesting at most `maxDepth`
 * levels; throws (SyntaxError, or RangeError past the depth) otherwise, so callers fall back to the text.
 * Unlike {@link parseJsonInput} it accepts any strings and keys (captured data is kept as sent).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- typed like JSON.parse, which it replaces
export function parseCapturedJson(text: string, maxDepth = CAPTURED_JSON_MAX_DEPTH): any {
  const value: unknown = JSON.parse(text);
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) throw new RangeError(`JSON nests deeper than ${maxDepth} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return value;
}
