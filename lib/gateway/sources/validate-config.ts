import { z } from "zod";
import { type ApiVersion, isAtLeast } from "@/lib/gateway/versions";
import { GENERIC_AUTH_TYPES, type TSourceConfigInput, ZApiKeyAuth, ZBasicAuth, ZHmacAuth } from "@/lib/gateway/sources/schemas";
import { findSourceType, type HttpMethod } from "@/lib/gateway/sources/types";
import { unprocessable } from "@/lib/http/errors";

/** A source's settings after validation: `config` is stored as JSON, `auth` encrypted apart. */
type ResolvedSourceConfig = {
  type: string;
  config: { allowed_http_methods: HttpMethod[]; custom_response: TSourceConfigInput["custom_response"] | null; auth_type: string | null };
  auth: Record<string, unknown> | null;
};

const FIREBLOCKS_ENVIRONMENTS = ["US_PRODUCTION", "EU", "EU2", "SANDBOX"] as const;

function fail(field: string, message: string): never {
  throw unprocessable(message, { field });
}

function checkAuth(schema: z.ZodType, auth: unknown, authType: string): Record<string, unknown> {
  const parsed = schema.safeParse(auth ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown key is reported on its parent; name the key itself.
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
    fail(["config", "auth", ...path].join("."), `${authType} authentication: ${path.join(".") || "auth"}: ${issue.message}`);
  }
  return parsed.data as Record<string, unknown>;
}

/**
 * Validates a source's `type` and `config` for API `version` and fills the defaults: the type's
 * allowed methods, `custom_response` null, `auth_type` from the type for provider sources.
 * Generic sources (WEBHOOK, HTTP) verify with `auth_type` HMAC, BASIC_AUTH or API_KEY (or a provider
 * scheme); provider sources take their provider's credential fields in `auth`. From 2025-07-01 the
 * retired combined type is refused and FIREBLOCKS needs `auth.environment` (its `public_key` is dropped).
 * Throws a 422 AppError (VALIDATION) naming the field.
 */
export function resolveSourceConfig(type: string, config: TSourceConfigInput | undefined, version: ApiVersion): ResolvedSourceConfig {
  const definition = findSourceType(type);
  if (!definition) fail("type", `"${type}" is not a supported source type`);
  if (definition.acceptedUntil && isAtLeast(version, "2025-07-01")) {
    fail("type", `"${type}" is no longer accepted from API version 2025-07-01; use a product-specific type such as ${type}_BILLING`);
  }
  const generic = type === "WEBHOOK" || type === "HTTP";
  const allowed = config?.allowed_http_methods ?? definition.defaultAllowedMethods;
  let authType = config?.auth_type ?? null;
  let auth = config?.auth ?? null;

  if (generic) {
    if (auth && !authType) fail("config.auth_type", "config.auth_type is required with config.auth");
    if (authType) {
      if (type === "HTTP" && !(GENERIC_AUTH_TYPES as readonly string[]).includes(authType)) {
        fail("config.auth_type", "HTTP sources verify with HMAC, BASIC_AUTH or API_KEY");
      }
      if (authType === "HMAC") auth = checkAuth(ZHmacAuth, auth, authType);
      else if (authType === "BASIC_AUTH") auth = checkAuth(ZBasicAuth, auth, authType);
      else if (authType === "API_KEY") auth = checkAuth(ZApiKeyAuth, auth, authType);
      else {
        const scheme = findSourceType(authType);
        if (!scheme || scheme.type === "WEBHOOK" || scheme.type === "HTTP") fail("config.auth_type", `"${authType}" is not a supported auth_type`);
        auth = providerAuth(scheme.type, scheme.authFields ?? [], auth, version);
      }
    }
  } else {
    if (authType && authType !== type) fail("config.auth_type", `a ${type} source verifies with its own scheme; omit config.auth_type`);
    authType = auth ? type : null;
    if (auth) auth = providerAuth(type, definition.authFields ?? [], auth, version);
    else if (type === "FIREBLOCKS" && isAtLeast(version, "2025-07-01")) fail("config.auth.environment", "FIREBLOCKS sources require config.auth.environment");
  }
  return { type, config: { allowed_http_methods: [...new Set(allowed)], custom_response: config?.custom_response ?? null, auth_type: authType }, auth };
}

function providerAuth(type: string, fields: string[], auth: Record<string, unknown> | null, version: ApiVersion): Record<string, unknown> {
  const input = { ...(auth ?? {}) };
  if (type === "FIREBLOCKS") {
    if (isAtLeast(version, "2025-07-01")) {
      delete input.public_key;
      if (!(FIREBLOCKS_ENVIRONMENTS as readonly unknown[]).includes(input.environment)) {
        fail("config.auth.environment", `FIREBLOCKS sources require config.auth.environment, one of ${FIREBLOCKS_ENVIRONMENTS.join(", ")}`);
      }
      return { environment: input.environment };
    }
    const shape = z.strictObject({ public_key: z.string().min(1).optional(), environment: z.enum(FIREBLOCKS_ENVIRONMENTS).optional() });
    return checkAuth(shape, input, type);
  }
  const shape = z.strictObject(Object.fromEntries(fields.map((f) => [f, z.string().min(1).max(4000)])));
  return checkAuth(shape, input, type);
}
