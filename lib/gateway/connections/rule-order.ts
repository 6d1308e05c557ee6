/**
 * The order a connection's rules run in, from the API version that last wrote them (`rules_version`;
 * docs/pipeline.md#connection-rules): from 2025-07-01 transformations and filters run in array order;
 * before, every transformation ran first (in array order), then the filters. `delay`, `retry` and
 * `deduplicate` have no place in the order and are returned after them, in array order. For the
 * delivery pipeline; the API returns `rules` exactly as written.
 */
import { API_VERSIONS, type ApiVersion, isAtLeast } from "@/lib/gateway/versions";

type Rule = { type: string } & Record<string, unknown>;

export function executionOrder<R extends Rule>(rules: readonly R[], rulesVersion: string): { steps: R[]; settings: R[] } {
  const version = (API_VERSIONS as readonly string[]).includes(rulesVersion) ? (rulesVersion as ApiVersion) : "2025-07-01";
  const steps = rules.filter((r) => r.type === "transform" || r.type === "filter");
  const settings = rules.filter((r) => r.type !== "transform" && r.type !== "filter");
  if (isAtLeast(version, "2025-07-01")) return { steps, settings };
  return { steps: [...steps.filter((r) => r.type === "transform"), ...steps.filter((r) => r.type === "filter")], settings };
}
