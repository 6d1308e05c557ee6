/**
 * Destination shapes before 2025-01-01 (docs/gateway-api.md#versions):
 * flat `url`, `cli_path`, `rate_limit`, `rate_limit_period`, `http_method`, `path_forwarding_disabled`
 * (also accepted as `disabled_path_forwarding`, an old changelog's name;
 * `path_forwarding_disabled` is returned) and `auth_method: {type, config}`; no `type`, no `config`.
 * Requests are converted up to the internal shape, responses down.
 */
import type { TDestination } from "@/lib/gateway/destinations/schemas";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { unprocessable } from "@/lib/http/errors";

const FLAT = [
  "url",
  "cli_path",
  "rate_limit",
  "rate_limit_period",
  "http_method",
  "path_forwarding_disabled",
  "disabled_path_forwarding",
  "auth_method",
] as const;

/**
 * A destination request body of `version` in the internal shape. Before 2025-01-01 `type` and
 * `config` do not exist (422 naming the field); `cli_path` makes a CLI destination and `url` an HTTP
 * one, and a body with neither (an update of other fields) leaves the type as it is.
 */
export function upgradeDestinationBody(body: unknown, version: ApiVersion): unknown {
  if (isAtLeast(version, "2025-01-01") || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const input = { ...(body as Record<string, unknown>) };
  for (const field of ["type", "config"]) {
    if (Object.hasOwn(input, field))
      throw unprocessable(`"${field}" is not a destination field in API version ${version} (it exists from 2025-01-01)`, { field });
  }
  if (!FLAT.some((f) => Object.hasOwn(input, f))) return input;
  // `url`, `cli_path` and `rate_limit_period` are null in responses where they do not apply: a body
  // echoing a response back sends them null, which means "not given".
  for (const f of ["url", "cli_path", "rate_limit_period"] as const) if (input[f] === null) delete input[f];
  const config: Record<string, unknown> = {};
  if (Object.hasOwn(input, "url")) config.url = input.url;
  if (Object.hasOwn(input, "cli_path")) config.path = input.cli_path;
  for (const f of ["rate_limit", "rate_limit_period", "http_method", "path_forwarding_disabled"] as const) if (Object.hasOwn(input, f)) config[f] = input[f];
  if (Object.hasOwn(input, "disabled_path_forwarding") && !Object.hasOwn(input, "path_forwarding_disabled"))
    config.path_forwarding_disabled = input.disabled_path_forwarding;
  if (Object.hasOwn(input, "auth_method")) {
    const method = input.auth_method as { type?: unknown; config?: unknown } | null;
    if (method === null) {
      config.auth_type = null; // back to the default, GATEWAY_SIGNATURE
      config.auth = null;
    } else if (typeof method === "object" && !Array.isArray(method)) {
      config.auth_type = typeof method.type === "string" ? method.type.toUpperCase() : method.type;
      config.auth = method.config ?? {};
    } else {
      throw unprocessable("auth_method must be an object {type, config}", { field: "auth_method" });
    }
  }
  const type = Object.hasOwn(input, "cli_path") ? "CLI" : Object.hasOwn(input, "url") ? "HTTP" : undefined;
  for (const f of FLAT) delete input[f];
  return { ...input, ...(type ? { type } : {}), config };
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

/** The `include` value that reveals credentials in `version` (`config.auth` is accepted in every version). */
export const destinationAuthInclude = (version: ApiVersion) => (isAtLeast(version, "2025-01-01") ? "config.auth" : "auth_method.config");

/**
 * A field path of the internal destination shape as `version` names it in errors: before 2025-01-01
 * `config.path` is `cli_path`, `config.auth_type` is `auth_method.type`, `config.auth…` is
 * `auth_method.config…` and the other `config.x` are flat `x`.
 */
export function destinationFieldFor(field: string, version: ApiVersion): string {
  if (isAtLeast(version, "2025-01-01")) return field;
  if (field === "config.path") return "cli_path";
  if (field === "config.auth_type") return "auth_method.type";
  if (field === "config.auth" || field.startsWith("config.auth.")) return `auth_method.config${field.slice("config.auth".length)}`;
  if (field.startsWith("config.")) return field.slice("config.".length);
  return field;
}
