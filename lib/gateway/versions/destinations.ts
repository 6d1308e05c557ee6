/**
 * Destination shapes before 2025-01-01 (shared/spec/gateway.md "2025-01-01"): flat `url`, `cli_path`,
 * `rate_limit`, `rate_limit_period`, `http_method`, `path_forwarding_disabled` (the changelog's
 * `disabled_path_forwarding` is accepted too) and `auth_method: {type, config}`; no `type`.
 */
import type { TDestination } from "@/lib/gateway/destinations/schemas";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";

const FLAT = ["url", "cli_path", "rate_limit", "rate_limit_period", "http_method", "path_forwarding_disabled", "disabled_path_forwarding", "auth_method"] as const;

/** A destination request body of `version` in the internal shape. */
export function upgradeDestinationBody(body: unknown, version: ApiVersion): unknown {
  if (isAtLeast(version, "2025-01-01") || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const input = { ...(body as Record<string, unknown>) };
  if ("type" in input || "config" in input) return input;
  if (!FLAT.some((f) => f in input)) return input;
  const config: Record<string, unknown> = {};
  if ("url" in input) config.url = input.url;
  if ("cli_path" in input) config.path = input.cli_path;
  for (const f of ["rate_limit", "rate_limit_period", "http_method", "path_forwarding_disabled"] as const) if (f in input) config[f] = input[f];
  if ("disabled_path_forwarding" in input) config.path_forwarding_disabled = input.disabled_path_forwarding;
  const method = input.auth_method as { type?: unknown; config?: unknown } | null | undefined;
  if (method && typeof method === "object") {
    config.auth_type = method.type;
    config.auth = method.config ?? {};
  }
  for (const f of FLAT) delete input[f];
  return { ...input, type: "cli_path" in (body as object) ? "CLI" : "HTTP", config };
}

/** A destination as `version` returns it. */
export function downgradeDestination(d: TDestination, version: ApiVersion): Record<string, unknown> {
  if (isAtLeast(version, "2025-01-01")) return d;
  const { type, config, ...rest } = d;
  return {
    ...rest,
    url: config.url ?? null,
    cli_path: type === "CLI" ? (config.path ?? "/") : null,
    rate_limit: config.rate_limit ?? null,
    rate_limit_period: config.rate_limit_period ?? null,
    http_method: config.http_method ?? null,
    path_forwarding_disabled: config.path_forwarding_disabled ?? false,
    auth_method: { type: config.auth_type, ...(config.auth ? { config: config.auth } : {}) },
  };
}

/** The `include` value that reveals credentials in `version`. */
export const destinationAuthInclude = (version: ApiVersion) => (isAtLeast(version, "2025-01-01") ? "config.auth" : "auth_method.config");
