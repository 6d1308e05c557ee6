/**
 * Source shapes of the gateway API in the internal (newest, 2025-07-01) form. Older versions are
 * converted to and from these by lib/gateway/versions/sources.ts. docs/gateway-api.md#sources;
 * docs/pipeline.md#verification for `auth_type` and `auth`.
 */
import { z } from "zod";
import { HTTP_METHODS } from "@/lib/gateway/sources/types";

export const GENERIC_AUTH_TYPES = ["HMAC", "BASIC_AUTH", "API_KEY"] as const;

export const ZHmacAuth = z.strictObject({
  algorithm: z.enum(["sha1", "sha256", "sha512", "md5"]),
  encoding: z.enum(["base64", "base64url", "hex"]),
  header_key: z.string().min(1).max(255),
  webhook_secret_key: z.string().min(1).max(1000),
});
export const ZBasicAuth = z.strictObject({ username: z.string().min(1).max(255), password: z.string().min(1).max(1000) });
export const ZApiKeyAuth = z.strictObject({ header_key: z.string().min(1).max(255), api_key: z.string().min(1).max(1000) });

const ZCustomResponse = z.strictObject({
  content_type: z.enum(["json", "text", "xml"]),
  body: z.string().max(1000),
});

const ZSourceConfigInput = z.strictObject({
  allowed_http_methods: z.array(z.enum(HTTP_METHODS)).min(1).optional(),
  custom_response: ZCustomResponse.nullable().optional(),
  auth_type: z.string().max(64).nullable().optional(),
  auth: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type TSourceConfigInput = z.infer<typeof ZSourceConfigInput>;

const name = z.string().trim().min(1).max(155);
const description = z.string().max(500).nullable().optional();

/** `POST /sources`, `PUT /sources` (upsert by name). */
export const ZSourceCreate = z.strictObject({
  name,
  type: z
    .string()
    .max(64)
    .regex(/^[A-Z0-9_]+$/, "type must be upper case")
    .optional(),
  description,
  config: ZSourceConfigInput.optional(),
});
export type TSourceCreate = z.infer<typeof ZSourceCreate>;

/** `PUT /sources/{id}`: every field optional. */
export const ZSourceUpdate = ZSourceCreate.partial();
export type TSourceUpdate = z.infer<typeof ZSourceUpdate>;

/** A source as the API returns it (2025-01-01 and later). */
export const ZSource = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.string(),
    url: z.url(),
    authenticated: z.boolean(),
    config: z.object({
      allowed_http_methods: z.array(z.string()),
      custom_response: ZCustomResponse.nullable(),
      auth_type: z.string().nullable().optional(),
      auth: z.record(z.string(), z.unknown()).nullable().optional(),
    }),
    disabled_at: z.iso.datetime().nullable(),
    updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Source" });
export type TSource = z.infer<typeof ZSource>;
