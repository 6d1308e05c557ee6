/**
 * Outbound destination types (issue 13 §2; shared/reference/outbound-product.md §1 DestinationTypeSchema,
 * §2, §3): each type is its input schema (label, description, SVG icon, markdown instructions,
 * `config_fields`, `credential_fields`), served at `/destination-types`, and the same schema validates
 * create and update. Values are strings on the wire; `custom_headers` is accepted as an object or its
 * JSON text and kept as JSON text. Sensitive credentials are obfuscated on read (the webhook secret is
 * not); secrets are generated when absent. Delivery (each type's `deliver`) comes with publish.
 */
import { randomBytes } from "node:crypto";
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

export type DestinationType = {
  type: string;
  label: string;
  description: string;
  icon: string;
  instructions: string;
  config_fields: Field[];
  credential_fields: Field[];
};

const icon = (path: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${path}</svg>`;
const URL_PATTERN = "^https?:\\/\\/[^\\s]+$";
const customHeaders: Field = { key: "custom_headers", type: "key_value_map", label: "Custom headers", description: "Headers added to every delivery (names: letters, digits, - and _).", required: false };

export const DESTINATION_TYPES: DestinationType[] = [
  {
    type: "webhook",
    label: "Webhook",
    description: "Send events to an HTTP endpoint, signed with HMAC-SHA256.",
    icon: icon('<path d="M18 16.98h-5.99c-1.1 0-1.95.94-2.48 1.9A4 4 0 0 1 2 17c.01-.7.2-1.4.57-2"/><path d="m6 17 3.13-5.78c.53-.97.1-2.18-.5-3.1a4 4 0 1 1 6.89-4.06"/><path d="m12 6 3.13 5.73C15.66 12.7 16.9 13 18 13a4 4 0 0 1 0 8"/>'),
    instructions: "Deliveries are `POST` requests whose body is the event's data as published. Verify them with the `x-outbound-signature` header: `v0=` followed by the hex HMAC-SHA256 of the raw body with your secret (during a rotation, two signatures separated by a comma).",
    config_fields: [{ key: "url", type: "text", label: "URL", description: "The endpoint receiving the events.", required: true, pattern: URL_PATTERN }, customHeaders],
    credential_fields: [{ key: "secret", type: "text", label: "Signing secret", description: "Generated when left empty.", required: false }],
  },
  {
    type: "standard_webhook",
    label: "Standard Webhooks",
    description: "Send events to an HTTP endpoint following the Standard Webhooks specification.",
    icon: icon('<path d="M4 12h16"/><path d="M12 4v16"/><circle cx="12" cy="12" r="9"/>'),
    instructions: "Deliveries carry `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64>`) as in the Standard Webhooks specification: verify them with any of its libraries and your `whsec_` secret.",
    config_fields: [{ key: "url", type: "text", label: "URL", description: "The endpoint receiving the events.", required: true, pattern: URL_PATTERN }, customHeaders],
    credential_fields: [{ key: "secret", type: "text", label: "Signing secret", description: "`whsec_` + base64 of 24 to 64 bytes; generated when left empty.", required: false, pattern: "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$" }],
  },
  {
    type: "gateway",
    label: "Hookyard gateway",
    description: "Send events into a source of this deployment's event gateway, to filter, transform and fan them out with connections.",
    icon: icon('<rect x="3" y="4" width="18" height="6" rx="1"/><rect x="3" y="14" width="18" height="6" rx="1"/><path d="M7 10v4"/><path d="M17 10v4"/>'),
    instructions: "Events become requests of the gateway source you name (its id, `src_…`), ingested directly inside this deployment. Only sources of the gateway team the operator links to this service can be named. Each request goes through the source's verification: signed with the source's secret when it uses generic HMAC, an API key or Basic auth; a source verified by a provider's scheme rejects it.",
    config_fields: [{ key: "source_id", type: "text", label: "Source id", description: "The gateway source (`src_…`), of the team linked to this service.", required: true, pattern: "^src_[A-Za-z0-9]{22}$" }],
    credential_fields: [],
  },
  {
    type: "rabbitmq",
    label: "RabbitMQ",
    description: "Publish events to a RabbitMQ exchange, with the topic as routing key.",
    icon: icon('<rect x="4" y="4" width="16" height="16" rx="2"/><path d="M9 9h6v6H9z"/>'),
    instructions: "Each event is published to the exchange with its topic as routing key and its metadata as message headers.",
    config_fields: [
      { key: "server_url", type: "text", label: "Server", description: "host:port of the broker ([IPv6 address]:port for an IPv6 address).", required: true, pattern: "^(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:\\[\\]]+):\\d{1,5}$" },
      { key: "exchange", type: "text", label: "Exchange", description: "The exchange to publish to (default exchange when empty).", required: false },
      { key: "tls", type: "checkbox", label: "TLS", description: "Connect with amqps.", required: false, default: "false" },
    ],
    credential_fields: [
      { key: "username", type: "text", label: "Username", description: "", required: true },
      { key: "password", type: "text", label: "Password", description: "", required: true, sensitive: true },
    ],
  },
];

/** The type named `type`, or undefined. */
export const destinationType = (type: string) => DESTINATION_TYPES.find((t) => t.type === type);

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
const asString = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v));

/**
 * Validates and normalises `values` (`config` or `credentials`, already merged) against `fields`:
 * required fields, patterns, checkbox and select values, unknown keys (forbidden). Pushes messages
 * (`config.url is required`) to `errors`; returns the string map.
 */
export function checkFields(section: "config" | "credentials", fields: Field[], values: Record<string, unknown>, errors: string[], extraKeys: string[] = []): Record<string, string> {
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

/** A new signing secret for `type`: `whsec_` + 64 hex (webhook) or + base64 of 32 bytes (Standard Webhooks). */
export function newSecret(type: string): string {
  return type === "standard_webhook" ? `whsec_${randomBytes(32).toString("base64")}` : `whsec_${randomBytes(32).toString("hex")}`;
}

/** Credentials as answered: sensitive values obfuscated (shorter than 10 characters: all `*`; else the first 4 kept); an expired previous secret dropped. */
export function obfuscated(type: string, credentials: Record<string, string>, now = Date.now()): Record<string, string> {
  const fields = destinationType(type)?.credential_fields ?? [];
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
export function fieldsSchema(t: DestinationType, section: "config" | "credentials", update = false): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const f of section === "config" ? t.config_fields : t.credential_fields) {
    let s: z.ZodType =
      f.type === "checkbox" ? z.union([z.enum(["true", "false", "on"]), z.boolean()])
      : f.type === "key_value_map" ? z.union([z.record(z.string(), z.string().min(1).regex(HEADER_VALUE)), z.string()])
      : f.type === "select" ? z.enum((f.options ?? []).map((o) => o.value) as [string, ...string[]])
      : f.pattern ? z.string().regex(new RegExp(f.pattern)) : z.string();
    s = s.describe(f.description || f.label);
    shape[f.key] = update ? s.nullable().optional() : f.required ? s : s.optional();
  }
  if (section === "credentials" && t.credential_fields.some((f) => f.key === "secret")) {
    shape.previous_secret = z.string().describe("The secret before a rotation; signs too until previous_secret_invalid_at.").optional();
    shape.previous_secret_invalid_at = z.iso.datetime({ offset: true }).optional();
    shape.rotate_secret = z.boolean().describe("true: a new secret; the current one becomes previous_secret for 24 hours.").optional();
  }
  return z.strictObject(shape);
}
