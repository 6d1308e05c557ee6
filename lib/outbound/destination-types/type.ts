/**
 * What an outbound destination type is (docs/destination-types.md): the delivery engine's
 * DestinationType (lib/delivery/destination-types.ts) with the outbound service's shapes, and
 * {@link defineOutboundType}, which builds one from its field tables (lib/outbound/destination-types/fields.ts),
 * its target and its delivery. Validation, obfuscation and secrets are the same for every type and
 * come from the field tables.
 */
import { randomBytes } from "node:crypto";
import type { DestinationType } from "@/lib/delivery/destination-types";
import { checkFields, type DestinationTypeInfo, fieldsSchema, isSigningSecret, obfuscateFields } from "@/lib/outbound/destination-types/fields";

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
  /** The destination's transformation (docs/outbound.md "Transformations"), or null. */
  transformation?: string | null;
  /** Ordered delivery (docs/outbound.md "Ordered delivery"): the delivery's key (null unordered) and the destination's `ordering` column. */
  ordering_key?: string | null;
  ordering?: unknown;
  /**
   * The metadata a transformation returned: {@link metadataOf} answers them instead of the computed ones
   * (set by lib/outbound/transformation.ts on its copy of the row, never stored).
   */
  transformed_metadata?: Record<string, string>;
};

/** What one delivery gives the attempt record (`outbound_attempts`): `code` the status code or error code, `latencyMs` null when nothing was sent. */
export type Outcome = {
  success: boolean;
  code: string;
  latencyMs: number | null;
  response: { status_code: number | null; body: string; headers: Record<string, string> } | null;
  /** The `Retry-After` header of a 429 or 503 answer (lib/delivery/destination-state.ts honours it); not stored. */
  retryAfter?: string;
  /** What the destination's transformation made of the delivery (docs/outbound.md "Transformations"); stored with the attempt. */
  transformation?: unknown;
};

/**
 * One delivery: the claimed row, with its destination's config and decrypted credentials. `request`:
 * an HTTP type's headers (before signing) and URL as the destination's transformation returned them
 * (docs/outbound.md "Transformations"); absent without one.
 */
export type OutboundDelivery = {
  claimed: Claimed;
  config: Record<string, string>;
  credentials: Record<string, string>;
  request?: { headers: Record<string, string>; url: string };
};

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
export type OutboundDestinationType = DestinationType<Shapes> & {
  readonly info: DestinationTypeInfo;
  /**
   * An HTTP type's request headers before signing (custom headers, content type, metadata headers): what
   * its transformation sees and may change, along with the URL's path (docs/outbound.md "Transformations").
   * Absent for the other types, whose transformation changes the body and the metadata only.
   */
  readonly requestHeaders?: (delivery: OutboundDelivery) => Record<string, string>;
};

/** What a type module declares; the rest comes from {@link defineOutboundType}. */
type OutboundTypeDefinition = {
  info: DestinationTypeInfo;
  /** A new signing secret; required when the type has a `secret` credential. */
  newSecret?: () => string;
  /**
   * Kinds of signing secret besides the default one (`newSecret`), told apart by prefix and chosen with the
   * write-only credential `key_type` (a `select` field of the type, never stored: read from the secret):
   * the first kind is `newSecret`'s. docs/destination-types.md.
   */
  secretKinds?: { key_type: string; prefix: string; generate: () => string }[];
  /** Checks of the settled credentials beyond their fields' patterns (e.g. that a key pair matches); pushes messages. */
  checkCredentials?: (credentials: Record<string, string>, issues: string[]) => void;
  /** Read-only credentials the answer adds (e.g. a public key); given back on an update, they are ignored. */
  readOnlyCredentials?: string[];
  /** The credentials as answered, from the obfuscated ones (`shown`: expired previous secret dropped) and the stored ones. */
  present?: (shown: Record<string, string>, stored: Record<string, string>) => Record<string, string>;
  /** Checks of the settled config and credentials together (e.g. a credential required unless a config field is set), after the credentials'; pushes messages. */
  checkValues?: (config: Record<string, string>, credentials: Record<string, string>, issues: string[]) => void;
  /** Checks of the validated config beyond its fields (e.g. a database lookup), after the credentials'; pushes messages. Throws database errors. */
  checkConfig?: (config: Record<string, string>, issues: string[]) => Promise<void>;
  target: (config: Record<string, string>) => OutboundTarget;
  /** See {@link OutboundDestinationType.requestHeaders}. */
  requestHeaders?: (delivery: OutboundDelivery) => Record<string, string>;
  /** One delivery. Never throws: a failure is an outcome. */
  deliver: (delivery: OutboundDelivery) => Promise<Outcome>;
};

const SECRET_KEYS = ["secret", "previous_secret", "previous_secret_invalid_at"];
/** Longest overlap `rotate_secret_overlap_seconds` takes: 7 days. */
const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
/** The overlap of a rotation that names none: 24 hours. */
const DEFAULT_OVERLAP_MS = 24 * 3600_000;

/** A new signing secret: `whsec_` + 64 hex characters (32 random bytes). */
export const hexSecret = () => `whsec_${randomBytes(32).toString("hex")}`;

/** `rotate_secret_overlap_seconds` as ms: a whole number of seconds from 0 to 7 days (number or digits), else a message. */
function overlapMs(v: unknown, issues: string[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_OVERLAP_SECONDS) {
    issues.push(`credentials.rotate_secret_overlap_seconds must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS}`);
    return undefined;
  }
  return n * 1000;
}

/**
 * The credentials to store: validated, a secret generated when the type has one and none is given,
 * `rotate_secret` applied (the old secret stays valid as `previous_secret` for
 * `rotate_secret_overlap_seconds`, 24 hours when not given, unless this request sets
 * `previous_secret_invalid_at`; an overlap of 0 drops it at once). A `key_type` other than the
 * secret's rotates into a secret of that kind. Pushes messages to `issues`. docs/outbound.md "Signing secrets".
 */
function settleCredentials(
  def: OutboundTypeDefinition,
  given: Record<string, unknown>,
  ctx: OutboundValidateContext,
  issues: string[],
): Record<string, string> {
  const t = def.info;
  const { rotate_secret: rotate, rotate_secret_overlap_seconds: overlapGiven, ...values } = given;
  for (const k of def.readOnlyCredentials ?? []) delete values[k];
  const hasSecret = t.credential_fields.some(isSigningSecret);
  if (ctx.byTenant && hasSecret)
    for (const k of SECRET_KEYS) if (given[k] !== undefined && given[k] !== (ctx.current ?? {})[k]) issues.push(`credentials.${k} is forbidden`);
  const out = checkFields("credentials", t.credential_fields, values, issues, hasSecret ? ["previous_secret", "previous_secret_invalid_at"] : []);
  if (hasSecret) {
    const kinds = def.secretKinds ?? [];
    const asked = out.key_type;
    delete out.key_type; // write-only: the stored secret says its kind
    const kindOf = (secret: string | undefined) => (secret === undefined ? undefined : kinds.find((k) => secret.startsWith(k.prefix))?.key_type);
    const generate = (like: string | undefined) => {
      const kind = asked ?? kindOf(like);
      return (kinds.find((k) => k.key_type === kind) ?? kinds[0])?.generate() ?? def.newSecret!();
    };
    const secretGiven = out.secret !== undefined && out.secret !== ctx.current?.secret;
    const kindChange = kinds.length > 0 && asked !== undefined && !secretGiven && out.secret !== undefined && kindOf(out.secret) !== asked;
    const overlap = overlapMs(overlapGiven, issues);
    // Set by this request (not the stored value a merge-patch carries along).
    const invalidAtGiven =
      typeof values.previous_secret_invalid_at === "string" && values.previous_secret_invalid_at !== ctx.current?.previous_secret_invalid_at;
    if (rotate === true || rotate === "true" || kindChange) {
      const old = ctx.current?.secret ?? out.secret;
      out.secret = generate(old);
      if (overlap !== undefined && invalidAtGiven)
        issues.push("credentials.rotate_secret_overlap_seconds and credentials.previous_secret_invalid_at exclude each other");
      if (old && (invalidAtGiven || overlap !== 0)) {
        out.previous_secret = old;
        out.previous_secret_invalid_at = invalidAtGiven
          ? (values.previous_secret_invalid_at as string)
          : new Date(Date.now() + (overlap ?? DEFAULT_OVERLAP_MS)).toISOString();
      } else {
        delete out.previous_secret;
        delete out.previous_secret_invalid_at;
      }
    } else if (overlapGiven !== undefined) issues.push("credentials.rotate_secret_overlap_seconds goes with rotate_secret");
    out.secret ??= generate(undefined);
    if (asked !== undefined && kindOf(out.secret) !== asked) issues.push(`credentials.key_type ${asked} does not match credentials.secret`);
    if ((out.previous_secret === undefined) !== (out.previous_secret_invalid_at === undefined))
      issues.push("credentials.previous_secret and credentials.previous_secret_invalid_at go together");
    if (out.previous_secret_invalid_at !== undefined && !Number.isFinite(Date.parse(out.previous_secret_invalid_at)))
      issues.push("credentials.previous_secret_invalid_at must be an RFC 3339 time");
    def.checkCredentials?.(out, issues);
  } else {
    if (rotate !== undefined) issues.push("credentials.rotate_secret is forbidden");
    if (overlapGiven !== undefined) issues.push("credentials.rotate_secret_overlap_seconds is forbidden");
  }
  return out;
}

/**
 * An outbound destination type from its definition: `schema` from the field tables (fieldsSchema),
 * `validate` checks config, then credentials (unless the input keeps the stored ones), then
 * `checkValues` and `checkConfig`, pushing messages in that order; `obfuscate` masks the `sensitive` credential fields.
 * Throws an Error at definition when a type with a `secret` credential has no `newSecret`.
 */
export function defineOutboundType(def: OutboundTypeDefinition): OutboundDestinationType {
  if (def.info.credential_fields.some(isSigningSecret) && !def.newSecret && !def.secretKinds?.length)
    throw new Error(`destination type ${def.info.type}: a secret credential needs newSecret`);
  return {
    type: def.info.type,
    info: def.info,
    schema: { config: fieldsSchema(def.info, "config"), credentials: fieldsSchema(def.info, "credentials") },
    async validate(input, issues, ctx) {
      const config = checkFields("config", def.info.config_fields, input.config, issues);
      const credentials = input.credentials === undefined ? (ctx.current ?? {}) : settleCredentials(def, input.credentials, ctx, issues);
      def.checkValues?.(config, credentials, issues);
      await def.checkConfig?.(config, issues);
      return { config, credentials };
    },
    obfuscate: (credentials, now) => {
      const shown = obfuscateFields(def.info.credential_fields, credentials, now);
      return def.present ? def.present(shown, credentials) : shown;
    },
    target: (config) => def.target(config),
    ...(def.requestHeaders ? { requestHeaders: def.requestHeaders } : {}),
    deliver: (delivery) => def.deliver(delivery),
  };
}

/**
 * The metadata of a delivery: system (event-id, topic, timestamp) < destination delivery_metadata < event
 * metadata; or, after a transformation, the metadata it returned.
 */
export function metadataOf(c: Claimed): Record<string, string> {
  if (c.transformed_metadata) return c.transformed_metadata;
  return {
    "event-id": c.event_id,
    topic: c.topic,
    timestamp: c.time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(c.delivery_metadata ?? {}),
    ...(c.metadata ?? {}),
  };
}
