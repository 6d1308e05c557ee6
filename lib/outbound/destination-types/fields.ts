/**
 * The field tables of outbound destination types (docs/outbound.md#destinations-and-their-types): each type's input schema (label, description, SVG icon, markdown
 * instructions, `config_fields`, `credential_fields`) is served at `/destination-types` (the portal
 * generates its forms from it), validates create and update (checkFields), and gives the zod schemas of
 * the OpenAPI document (fieldsSchema). Values are strings on the wire; `custom_headers` is accepted as an
 * object or its JSON text and kept as JSON text. docs/destination-types.md.
 */
import { z } from "zod";
import { HEADER_VALUE, HEADER_VALUE_MESSAGE } from "@/lib/http/header-syntax";

export type Field = {
  key: string;
  type: "text" | "checkbox" | "key_value_map" | "select";
  label: string;
  description: string;
  required: boolean;
  default?: string;
  sensitive?: boolean;
  pattern?: string;
  options?: { label: string; value: string }[];
};

/**
 * Whether `f` is a signing secret (generated, rotated, never set by a tenant, not obfuscated on read):
 * a `secret` credential that is not `sensitive`. A sensitive `secret` (the AWS secret access key) is a
 * plain credential (docs/destination-types.md).
 */
export const isSigningSecret = (f: Pick<Field, "key" | "sensitive">) => f.key === "secret" && !f.sensitive;

/** A destination type as `GET /destination-types` answers it (key order is the answer's). */
export type DestinationTypeInfo = {
  type: string;
  label: string;
  description: string;
  icon: string;
  instructions: string;
  config_fields: Field[];
  credential_fields: Field[];
};

/** An SVG icon (24×24, stroked) around `path`. */
export const icon = (path: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${path}</svg>`;
/** The pattern of an http(s) URL field. */
export const URL_PATTERN = "^https?:\\/\\/[^\\s]+$";
/** The `custom_headers` field of the HTTP types. */
export const customHeaders: Field = {
  key: "custom_headers",
  type: "key_value_map",
  label: "Custom headers",
  description: "Headers added to every delivery (names: letters, digits, - and _).",
  required: false,
};

const HEADER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const FORBIDDEN_HEADERS = new Set(["content-type", "content-length", "host", "connection", "user-agent"]);

/** `custom_headers` (an object or its JSON text) as JSON text; messages for what is wrong. */
function customHeadersText(value: unknown, errors: string[]): string | undefined {
  let obj = value;
  if (typeof value === "string") {
    try {
      obj = JSON.parse(value);
    } catch {
      errors.push("config.custom_headers must be a JSON object");
      return undefined;
    }
  }
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) {
    errors.push("config.custom_headers must be an object");
    return undefined;
  }
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length === 0) errors.push("config.custom_headers must not be empty; omit it instead");
  for (const [k, v] of entries) {
    if (!HEADER_NAME.test(k)) errors.push(`config.custom_headers.${k} is not a valid header name`);
    else if (FORBIDDEN_HEADERS.has(k.toLowerCase())) errors.push(`config.custom_headers.${k} cannot be set`);
    if (typeof v !== "string" || v === "") errors.push(`config.custom_headers.${k} must be a non-empty string`);
    else if (!HEADER_VALUE.test(v)) errors.push(`config.custom_headers.${k} ${HEADER_VALUE_MESSAGE}`);
  }
  return JSON.stringify(obj);
}

/** A wire value as the string it is stored as (booleans and numbers as text, objects as JSON). */
const asString = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : `${v as number | boolean | bigint | undefined}`;

/**
 * Validates and normalises `values` (`config` or `credentials`, already merged) against `fields`:
 * required fields, patterns, checkbox and select values, unknown keys (forbidden). Pushes messages
 * (`config.url is required`) to `errors`; returns the string map.
 */
export function checkFields(
  section: "config" | "credentials",
  fields: Field[],
  values: Record<string, unknown>,
  errors: string[],
  extraKeys: string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined) continue;
    const field = fields.find((f) => f.key === k);
    if (!field) {
      if (extraKeys.includes(k)) out[k] = asString(v);
      else errors.push(`${section}.${k} is forbidden`);
      continue;
    }
    if (field.type === "key_value_map") {
      const text = customHeadersText(v, errors);
      if (text !== undefined) out[k] = text;
      continue;
    }
    let s = asString(v);
    if (field.type === "checkbox") {
      s = s === "on" ? "true" : s;
      if (s !== "true" && s !== "false") errors.push(`${section}.${k} must be true or false`);
    }
    if (field.pattern && !new RegExp(field.pattern).test(s)) errors.push(`${section}.${k} failed pattern validation`);
    out[k] = s;
  }
  for (const f of fields) {
    if (out[f.key] === undefined && f.default !== undefined) out[f.key] = f.default;
    if (f.required && (out[f.key] === undefined || out[f.key] === "")) errors.push(`${section}.${f.key} is required`);
  }
  return out;
}

/**
 * Credentials as answered: values of the `sensitive` fields obfuscated (shorter than 10 characters: all
 * `*`; else the first 4 kept); an expired previous secret (`previous_secret_invalid_at` not after `now`,
 * ms since the epoch) dropped.
 */
export function obfuscateFields(fields: Field[], credentials: Record<string, string>, now: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(credentials)) {
    if (k === "previous_secret" || k === "previous_secret_invalid_at") {
      const until = Date.parse(credentials.previous_secret_invalid_at ?? "");
      if (!(until > now)) continue;
    }
    const sensitive = fields.find((f) => f.key === k)?.sensitive;
    out[k] = sensitive ? (v.length < 10 ? "*".repeat(v.length) : v.slice(0, 4) + "*".repeat(v.length - 4)) : v;
  }
  return out;
}

/**
 * The zod schema of a `config` or `credentials` object of type `t`, built from the same field table
 * checkFields validates with (required fields, patterns, checkbox and select values, no unknown keys):
 * the OpenAPI document's per-type schemas. `update`: every key optional and nullable (null deletes it).
 */
export function fieldsSchema(t: DestinationTypeInfo, section: "config" | "credentials", update = false): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const f of section === "config" ? t.config_fields : t.credential_fields) {
    let s: z.ZodType =
      f.type === "checkbox"
        ? z.union([z.enum(["true", "false", "on"]), z.boolean()])
        : f.type === "key_value_map"
          ? z.union([z.record(z.string(), z.string().min(1).regex(HEADER_VALUE)), z.string()])
          : f.type === "select"
            ? z.enum((f.options ?? []).map((o) => o.value) as [string, ...string[]])
            : f.pattern
              ? z.string().regex(new RegExp(f.pattern))
              : z.string();
    s = s.describe(f.description || f.label);
    shape[f.key] = update ? s.nullable().optional() : f.required ? s : s.optional();
  }
  if (section === "credentials" && t.credential_fields.some(isSigningSecret)) {
    shape.previous_secret = z.string().describe("The secret before a rotation; signs too until previous_secret_invalid_at.").optional();
    shape.previous_secret_invalid_at = z.iso.datetime({ offset: true }).optional();
    shape.rotate_secret = z.boolean().describe("true: a new secret; the current one becomes previous_secret for 24 hours.").optional();
    shape.rotate_secret_overlap_seconds = z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .describe("With rotate_secret: how long the previous secret keeps signing, seconds (default 86400; 0: not at all). A tenant may set it.")
      .optional();
  }
  return z.strictObject(shape);
}
