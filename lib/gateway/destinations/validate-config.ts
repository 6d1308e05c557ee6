import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import type { ResolvedDestinationConfig } from "@/lib/gateway/destination-types/type";
import type { TDestinationConfigInput } from "@/lib/gateway/destinations/config-schemas";
import { unprocessable } from "@/lib/http/errors";

export type { ResolvedDestinationConfig };

/**
 * Validates and completes a destination's `config` for its `type`, with the type's module
 * (lib/gateway/destination-types; docs/destination-types.md): HTTP needs an http(s) `url`; CLI needs a
 * `path` starting with "/" and takes no rate-limit fields; MOCK_API is HTTP without url. Defaults
 * (docs/gateway-api.md#destinations): `rate_limit` null, `rate_limit_period` "second", `http_method` null,
 * `path_forwarding_disabled` false, `auth_type` GATEWAY_SIGNATURE, `auth` {}. The vendor's OAuth2, AWS
 * and GCP auth types are refused with a 422 saying so: delivery cannot sign with them, and accepting
 * credentials that are never used would mislead.
 * Throws a 422 AppError (VALIDATION) with `data: {field, type, message}` for the first problem (the real product's
 * body for a missing url: `{type: "HTTP", field: "config.url", message: "HTTP destination requires \`config.url\`."}`).
 */
export async function resolveDestinationConfig(type: string, input: TDestinationConfigInput | undefined): Promise<ResolvedDestinationConfig> {
  const issues: { field: string; message: string }[] = [];
  const resolved = await GATEWAY_DESTINATION_TYPES.get(type).validate(input ?? {}, issues, undefined);
  const first = issues[0];
  if (first) throw unprocessable(first.message, { field: first.field, type });
  return resolved;
}
