/**
 * The `config` of a gateway destination as the API accepts it, and its credentials (`config.auth`) per
 * `auth_type`: what the destination type modules (lib/gateway/destination-types) validate with.
 * docs/gateway-api.md#destinations, docs/pipeline.md#destination-auth-configauth_type-configauth.
 */
import { z } from "zod";
import { MAX_CUSTOM_SIGNATURE_OVERLAP_SECONDS } from "@/lib/gateway/destinations/custom-signature";
import { HEADER_NAME_TOKEN, HEADER_VALUE, HEADER_VALUE_MESSAGE } from "@/lib/http/header-syntax";

export const RATE_LIMIT_PERIODS = ["second", "minute", "hour", "concurrent"] as const;
export const DESTINATION_AUTH_TYPES = ["GATEWAY_SIGNATURE", "CUSTOM_SIGNATURE", "BASIC_AUTH", "API_KEY", "BEARER_TOKEN"] as const;
/** The vendor's other auth types: refused with a 422 that says they are not supported here. */
export const UNSUPPORTED_AUTH_TYPES = ["OAUTH2_CLIENT_CREDENTIALS", "OAUTH2_AUTHORIZATION_CODE", "AWS_SIGNATURE", "GCP_SERVICE_ACCOUNT"] as const;

const HEADER_NAME_MESSAGE = "must be a header name (letters, digits and !#$%&'*+-.^_`|~)";
/** A credential sent as a header's name (RFC 9110 token): anything else would fail every delivery. */
const headerName = z.string().min(1).max(255).regex(HEADER_NAME_TOKEN, HEADER_NAME_MESSAGE);

/** Credentials per destination `auth_type`; what is sent in a header must be sendable (lib/http/header-syntax.ts). */
export const AUTH_SHAPES: Record<(typeof DESTINATION_AUTH_TYPES)[number], z.ZodType> = {
  GATEWAY_SIGNATURE: z.strictObject({}),
  // A new `signing_secret` with `rotate_secret_overlap_seconds` (write-only) keeps the old one signing `{key}-2`
  // until `previous_signing_secret_invalid_at` (lib/gateway/destinations/custom-signature.ts).
  CUSTOM_SIGNATURE: z.strictObject({
    key: headerName,
    signing_secret: z.string().min(1).max(1000),
    rotate_secret_overlap_seconds: z.number().int().min(0).max(MAX_CUSTOM_SIGNATURE_OVERLAP_SECONDS).optional(),
    previous_signing_secret: z.string().min(1).max(1000).optional(),
    previous_signing_secret_invalid_at: z.iso.datetime({ offset: true }).optional(),
  }),
  BASIC_AUTH: z.strictObject({ username: z.string().min(1).max(255), password: z.string().min(1).max(1000) }),
  // Sent as a header (`to: header`): a header name and value; as a query parameter: any text (URL-encoded).
  API_KEY: z
    .strictObject({ key: z.string().min(1).max(255), api_key: z.string().min(1).max(1000), to: z.enum(["header", "query"]).default("header") })
    .superRefine((a, ctx) => {
      if (a.to !== "header") return;
      if (!HEADER_NAME_TOKEN.test(a.key)) ctx.addIssue({ code: "custom", path: ["key"], message: HEADER_NAME_MESSAGE });
      if (!HEADER_VALUE.test(a.api_key)) ctx.addIssue({ code: "custom", path: ["api_key"], message: HEADER_VALUE_MESSAGE });
    }),
  BEARER_TOKEN: z.strictObject({ token: z.string().min(1).max(4000).regex(HEADER_VALUE, HEADER_VALUE_MESSAGE) }),
};

export const ZDestinationConfigInput = z.strictObject({
  url: z.string().max(2000).optional(),
  path: z.string().max(2000).optional(),
  rate_limit: z.number().int().min(1).nullable().optional(),
  rate_limit_period: z.enum(RATE_LIMIT_PERIODS).optional(),
  http_method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).nullable().optional(),
  path_forwarding_disabled: z.boolean().optional(),
  auth_type: z.string().max(64).nullable().optional(),
  auth: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type TDestinationConfigInput = z.infer<typeof ZDestinationConfigInput>;
