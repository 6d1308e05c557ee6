/**
 * Source shapes before 2025-01-01 (docs/gateway-api.md#versions): flat `allowed_http_methods`
 * and `custom_response`, and `verification: {type, configs}` instead of `config.auth_type`/`config.auth`;
 * no `type`. Requests are converted up to the internal shape, responses down.
 */
import type { TSource } from "@/lib/gateway/sources/schemas";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { unprocessable } from "@/lib/http/errors";

const FLAT_FIELDS = ["allowed_http_methods", "custom_response", "verification"] as const;

/**
 * A source request body of `version` in the internal shape (unknown fields are left for validation to
 * refuse). `type` and `config` do not exist before 2025-01-01: 422 naming the field.
 */
export function upgradeSourceBody(body: unknown, version: ApiVersion): unknown {
  if (isAtLeast(version, "2025-01-01") || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const input = { ...(body as Record<string, unknown>) };
  for (const field of ["type", "config"]) {
    if (Object.hasOwn(input, field)) throw unprocessable(`"${field}" is not a source field in API version ${version} (it exists from 2025-01-01)`, { field });
  }
  const present = FLAT_FIELDS.some((f) => Object.hasOwn(input, f));
  const config: Record<string, unknown> = {};
  if (Object.hasOwn(input, "allowed_http_methods")) config.allowed_http_methods = input.allowed_http_methods;
  if (Object.hasOwn(input, "custom_response")) config.custom_response = input.custom_response;
  if (Object.hasOwn(input, "verification")) {
    const v = input.verification as { type?: unknown; configs?: unknown } | null;
    if (v === null) {
      config.auth_type = null;
      config.auth = null;
    } else if (v && typeof v === "object") {
      config.auth_type = typeof v.type === "string" ? v.type.toUpperCase() : v.type;
      config.auth = v.configs ?? {};
    } else config.auth_type = v;
  }
  for (const f of FLAT_FIELDS) delete input[f];
  return present ? { ...input, config } : input;
}

/** A source as `version` returns it; `includeAuth` matches `?include=verification.configs` there. */
export function downgradeSource(source: TSource, version: ApiVersion): Record<string, unknown> {
  if (isAtLeast(version, "2025-01-01")) return source;
  const { type: _type, config, authenticated: _a, ...rest } = source;
  return {
    ...rest,
    allowed_http_methods: config.allowed_http_methods,
    custom_response: config.custom_response,
    verification: config.auth_type ? { type: config.auth_type, ...(config.auth ? { configs: config.auth } : {}) } : null,
  };
}

/** The `include` value that reveals credentials in `version`. */
export const authIncludeFor = (version: ApiVersion) => (isAtLeast(version, "2025-01-01") ? "config.auth" : "verification.configs");

/**
 * A field path of the internal source shape as `version` names it in errors: before 2025-01-01
 * `config.allowed_http_methods` is `allowed_http_methods`, `config.auth_type` is `verification.type`
 * and `config.auth…` is `verification.configs…`.
 */
export function sourceFieldFor(field: string, version: ApiVersion): string {
  if (isAtLeast(version, "2025-01-01")) return field;
  if (field === "config.auth_type") return "verification.type";
  if (field === "config.auth" || field.startsWith("config.auth.")) return `verification.configs${field.slice("config.auth".length)}`;
  if (field.startsWith("config.")) return field.slice("config.".length);
  return field;
}
