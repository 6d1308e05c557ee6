import { AUTH_SHAPES, DESTINATION_AUTH_TYPES, UNSUPPORTED_AUTH_TYPES, type TDestinationConfigInput } from "@/lib/gateway/destinations/schemas";
import { unprocessable } from "@/lib/http/errors";

/** A destination's stored settings: `config` as JSON (no credentials), `auth` encrypted apart. */
export type ResolvedDestinationConfig = { config: Record<string, unknown>; auth: Record<string, unknown> };

function fail(field: string, message: string, type: string): never {
  throw unprocessable(message, { field, type });
}

/**
 * Validates and completes a destination's `config` for its `type`:
 * HTTP needs an http(s) `url`; CLI needs a `path` starting with "/" and takes no rate-limit fields;
 * MOCK_API is HTTP without url. Defaults (reference §2): `rate_limit` null, `rate_limit_period` "second",
 * `http_method` null, `path_forwarding_disabled` false, `auth_type` GATEWAY_SIGNATURE, `auth` {}.
 * The vendor's OAuth2, AWS and GCP auth types are refused with a 422 saying so: delivery cannot sign
 * with them, and accepting credentials that are never used would mislead.
 * Throws a 422 GatewayError with `data: {field, type, message}` (the real product's body for a
 * missing url: `{type: "HTTP", field: "config.url", message: "HTTP destination requires \`config.url\`."}`).
 */
export function resolveDestinationConfig(type: string, input: TDestinationConfigInput | undefined): ResolvedDestinationConfig {
  const c = input ?? {};
  const config: Record<string, unknown> = {};
  if (type === "HTTP") {
    if (!c.url) fail("config.url", "HTTP destination requires `config.url`.", type);
    let url: URL;
    try {
      url = new URL(c.url);
    } catch {
      fail("config.url", "`config.url` must be an absolute http(s) URL.", type);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) fail("config.url", "`config.url` must be an absolute http(s) URL.", type);
    config.url = c.url;
  } else if (c.url !== undefined) fail("config.url", `${type} destinations take no \`config.url\`.`, type);
  if (type === "CLI") {
    const path = c.path ?? "/";
    if (!path.startsWith("/")) fail("config.path", "`config.path` must start with \"/\".", type);
    if (c.rate_limit != null || c.rate_limit_period !== undefined) fail(c.rate_limit != null ? "config.rate_limit" : "config.rate_limit_period", "CLI destinations do not support rate limits.", type);
    config.path = path;
  } else {
    if (c.path !== undefined) fail("config.path", `${type} destinations take no \`config.path\`; \`config.url\` holds the whole address.`, type);
    config.rate_limit = c.rate_limit ?? null;
    config.rate_limit_period = c.rate_limit_period ?? "second";
  }
  config.http_method = c.http_method ?? null;
  config.path_forwarding_disabled = c.path_forwarding_disabled ?? false;
  const authType = c.auth_type ?? "GATEWAY_SIGNATURE";
  if ((UNSUPPORTED_AUTH_TYPES as readonly string[]).includes(authType)) {
    fail("config.auth_type", `\`config.auth_type\` ${authType} is not supported by this gateway; use one of ${DESTINATION_AUTH_TYPES.join(", ")}.`, type);
  }
  if (!(DESTINATION_AUTH_TYPES as readonly string[]).includes(authType)) {
    fail("config.auth_type", `\`config.auth_type\` must be one of ${DESTINATION_AUTH_TYPES.join(", ")}.`, type);
  }
  config.auth_type = authType;
  const parsed = AUTH_SHAPES[authType as keyof typeof AUTH_SHAPES].safeParse(c.auth ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown credential field is named by its own path (config.auth.extra), as the wrapper does for bodies.
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
    fail(["config", "auth", ...path].join("."), `${authType}: ${path.join(".") || "auth"}: ${issue.message}`, type);
  }
  return { config, auth: parsed.data as Record<string, unknown> };
}
