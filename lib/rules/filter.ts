/**
 * The `filter` rule: `{type: "filter", body?, headers?, query?, path?}`, each matched with
 * simple-json-match, the real product's engine (docs/pipeline.md#filter).
 * Every given part must match. `query` is matched against `parsed_query`.
 */
import * as simpleJsonMatch from "simple-json-match";
import type { TransformRequest } from "@/lib/rules/run-transformation";

type MatchFn = (input: unknown, schema: unknown) => boolean;
const mod = simpleJsonMatch as unknown as { default: MatchFn | { default: MatchFn } };
const match: MatchFn = typeof mod.default === "function" ? mod.default : mod.default.default;

/** simple-json-match's verdict of `schema` on `input` (the one engine of gateway and outbound filters). Throws what the engine throws. */
export const jsonMatches = (input: unknown, schema: unknown): boolean => match(input, schema);

export type FilterRule = { type: "filter"; body?: unknown; headers?: unknown; query?: unknown; path?: unknown };

/** The parts of the request that failed their filter (empty when the request passes). */
export function failedFilterParts(rule: FilterRule, request: TransformRequest): ("body" | "headers" | "query" | "path")[] {
  const failed: ("body" | "headers" | "query" | "path")[] = [];
  const check = (part: "body" | "headers" | "query" | "path", input: unknown) => {
    const schema = rule[part];
    if (schema === undefined) return;
    let ok: boolean;
    try {
      ok = match(input, schema);
    } catch {
      ok = false;
    }
    if (!ok) failed.push(part);
  };
  check("body", request.body);
  check("headers", request.headers);
  check("query", request.parsed_query);
  check("path", request.path);
  return failed;
}
