/**
 * What an outbound destination type is (docs/destination-types.md): the delivery engine's
 * DestinationType (lib/delivery/destination-types.ts) with the outbound service's shapes, and
 * {@link defineOutboundType}, which builds one from its field tables (lib/outbound/destination-types/fields.ts),
 * its target and its delivery. Validation, obfuscation and secrets are the same for every type and
 * come from the field tables.
 */
import { randomBytes } from "node:crypto";
import type { DestinationType } from "@/lib/delivery/destination-types";
import { checkFields, type DestinationTypeInfo, fieldsSchema, obfuscateFields } from "@/lib/outbound/destination-types/fields";

/** A delivery this process holds the lease of (`locked_until`), with its event and destination; `orphan` when its event is gone (retention). */
export type Claimed = {
  event_id: string;
  destination_id: string;
  tenant_id: string;
  attempts: number;
  manual: boolean;
  locked_until: Date;
  topic: string;
  time: Date;
  eligible_for_retry: boolean;
  metadata: Record<string, string> | null;
  data: Buffer;
  type: string | null;
  config: Record<string, string> | null;
  credentials_encrypted: string | null;
  delivery_metadata: Record<string, string> | null;
  /** The destination's rate limit (docs/outbound.md "Rate limits"): deliveries per `rate_limit_period`, or null. */
  rate_limit: number | null;
  rate_limit_period: string | null;
  disabled_at: Date | null;
  deleted: boolean;
  orphan: boolean;
  /** The event's publish span (W3C traceparent), parent of its dispatch span (docs/operations.md "Traces"); null untraced. */
  trace_parent: string | null;
};

/** What one delivery gives the attempt record (`outbound_attempts`): `code` the status code or error code, `latencyMs` null when nothing was sent. */
export type Outcome = {
  success: boolean;
  code: string;
  latencyMs: number | null;
  response: { status_code: number | null; body: string; headers: Record<string, string> } | null;
  /** The `Retry-After` header of a 429 or 503 answer (lib/delivery/destination-state.ts honours it); not stored. */
  retryAfter?: string;
};

/** One delivery: the claimed row, with its destination's config and decrypted credentials. */
export type OutboundDelivery = { claimed: Claimed; config: Record<string, string>; credentials: Record<string, string> };

/** What the API shows as a destination's target: `target` for people, `target_url` when it is an HTTP endpoint. */
type OutboundTarget = { target: string; target_url?: string };

/** The values of a create or update: `credentials` undefined keeps the stored ones (an update that does not name them). */
export type OutboundTypeInput = { config: Record<string, unknown>; credentials?: Record<string, unknown> };

/** Who validates and against what: a tenant (JWT) may not set secrets; `current` the stored credentials (null on create). */
export type OutboundValidateContext = { byTenant: boolean; current: Record<string, string> | null };

type Shapes = {
  input: OutboundTypeInput;
  validateContext: OutboundValidateContext;
  /** A message such as `config.url is required` (the 422 body's `data` lists them). */
  issue: string;
  valid: { config: Record<string, string>; credentials: Record<string, string> };
  config: Record<string, string>;
  credentials: Record<string, string>;
  targetContext: void;
  target: OutboundTarget;
  delivery: OutboundDelivery;
  outcome: Outcome;
};

/** An outbound destination type: the engine's interface plus `info`, the `/destination-types` answer. */
export type OutboundDestinationType = DestinationType<Shapes> & { readonly info: DestinationTypeInfo };

/** What a type module declares; the rest comes from {@link defineOutboundType}. */
type OutboundTypeDefinition = {
  info: DestinationTypeInfo;
  /** A new signing secret; required when the type has a `secret` credential. */
  newSecret?: () => string;
  /** Checks of the validated config beyond its fields (e.g. a database lookup), after the credentials'; pushes messages. Throws database errors. */
  checkConfig?: (config: Record<string, string>, issues: string[]) => Promise<void>;
  target: (config: Record<string, string>) => OutboundTarget;
  /** One delivery. Never throws: a failure is an outcome. */
  deliver: (delivery: OutboundDelivery) => Promise<Outcome>;
};

const SECRET_KEYS = ["secret", "previous_secret", "previous_secret_invalid_at"];

/** A new signing secret: `whsec_` + 64 hex characters (32 random bytes). */
export const hexSecret = () => `whsec_${randomBytes(32).toString("hex")}`;

/**
 * The credentials to store: validated, a secret generated when the type has one and none is given,
 * `rotate_secret` applied (the old secret stays valid as `previous_secret` for 24 hours unless
 * `previous_secret_invalid_at` says otherwise). Pushes messages to `issues`.
 */
function settleCredentials(
  def: OutboundTypeDefinition,
  given: Record<string, unknown>,
  ctx: OutboundValidateContext,
  issues: string[],
): Record<string, string> {
  const t = def.info;
  const { rotate_secret: rotate, ...values } = given;
  if (ctx.byTenant)
    for (const k of SECRET_KEYS) if (given[k] !== undefined && given[k] !== (ctx.current ?? {})[k]) issues.push(`credentials.${k} is forbidden`);
  const hasSecret = t.credential_fields.some((f) => f.key === "secret");
  const out = checkFields("credentials", t.credential_fields, values, issues, hasSecret ? ["previous_secret", "previous_secret_invalid_at"] : []);
  if (hasSecret) {
    const newSecret = def.newSecret!;
    if (rotate === true || rotate === "true") {
      const old = ctx.current?.secret ?? out.secret;
      out.secret = newSecret();
      if (old) {
        out.previous_secret = old;
        out.previous_secret_invalid_at =
          typeof values.previous_secret_invalid_at === "string" ? values.previous_secret_invalid_at : new Date(Date.now() + 24 * 3600_000).toISOString();
      }
    }
    out.secret ??= newSecret();
    if ((out.previous_secret === undefined) !== (out.previous_secret_invalid_at === undefined))
      issues.push("credentials.previous_secret and credentials.previous_secret_invalid_at go together");
    if (out.previous_secret_invalid_at !== undefined && !Number.isFinite(Date.parse(out.previous_secret_invalid_at)))
      issues.push("credentials.previous_secret_invalid_at must be an RFC 3339 time");
  } else if (rotate !== undefined) issues.push("credentials.rotate_secret is forbidden");
  return out;
}

/**
 * An outbound destination type from its definition: `schema` from the field tables (fieldsSchema),
 * `validate` checks config, then credentials (unless the input keeps the stored ones), then
 * `checkConfig`, pushing messages in that order; `obfuscate` masks the `sensitive` credential fields.
 * Throws an Error at definition when a type with a `secret` credential has no `newSecret`.
 */
export function defineOutboundType(def: OutboundTypeDefinition): OutboundDestinationType {
  if (def.info.credential_fields.some((f) => f.key === "secret") && !def.newSecret)
    throw new Error(`destination type ${def.info.type}: a secret credential needs newSecret`);
  return {
    type: def.info.type,
    info: def.info,
    schema: { config: fieldsSchema(def.info, "config"), credentials: fieldsSchema(def.info, "credentials") },
    async validate(input, issues, ctx) {
      const config = checkFields("config", def.info.config_fields, input.config, issues);
      const credentials = input.credentials === undefined ? (ctx.current ?? {}) : settleCredentials(def, input.credentials, ctx, issues);
      await def.checkConfig?.(config, issues);
      return { config, credentials };
    },
    obfuscate: (credentials, now) => obfuscateFields(def.info.credential_fields, credentials, now),
    target: (config) => def.target(config),
    deliver: (delivery) => def.deliver(delivery),
  };
}

/** The metadata of a delivery: system (event-id, topic, timestamp) < destination delivery_metadata < event metadata. */
export function metadataOf(c: Claimed): Record<string, string> {
  return {
    "event-id": c.event_id,
    topic: c.topic,
    timestamp: c.time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(c.delivery_metadata ?? {}),
    ...(c.metadata ?? {}),
  };
}
