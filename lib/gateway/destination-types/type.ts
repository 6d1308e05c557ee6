/**
 * What a gateway destination type is (docs/destination-types.md): the delivery engine's DestinationType
 * (lib/delivery/destination-types.ts) with the gateway's shapes, and the validation every type shares
 * (method override, path forwarding, `auth_type` and its credentials; docs/gateway-api.md#destinations:
 * defaults and auth types). A type validates its own fields, then calls {@link validateShared}.
 */
import { z } from "zod";
import type { DestinationType } from "@/lib/delivery/destination-types";
import type { EventDelivery } from "@/lib/delivery/outgoing";
import type { AttemptContext, AttemptOutcome } from "@/lib/gateway/delivery/attempt-context";
import { AUTH_SHAPES, DESTINATION_AUTH_TYPES, type TDestinationConfigInput, UNSUPPORTED_AUTH_TYPES } from "@/lib/gateway/destinations/config-schemas";

/** A destination's stored settings: `config` as JSON (no credentials), `auth` encrypted apart. */
export type ResolvedDestinationConfig = { config: Record<string, unknown>; auth: Record<string, unknown> };

/** One validation problem: the 422 body's `data.field` and `message` (the product adds `data.type`). */
export type GatewayIssue = { field: string; message: string };

/** One delivery of a claimed event to its destination. */
export type GatewayDelivery = {
  attempt: AttemptContext;
  /** The event's connection (`webhook_id`). */
  connectionId: string;
  delivery: EventDelivery & { eventUrl: string; willRetryAfterS: number | null };
  /** DELIVERY_TIMEOUT_MS. */
  timeoutMs: number;
  /** To call once the destination is done with the delivery (its answer is in): frees the destination's slot while the attempt is recorded. */
  answered: () => void;
};

type Shapes = {
  input: TDestinationConfigInput;
  validateContext: void;
  issue: GatewayIssue;
  valid: ResolvedDestinationConfig;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
  /** The event's path and query (as received, or as a transformation left them). */
  targetContext: { path: string; query: string };
  /** Where the event goes (an event's `data.url`): a URL, a CLI path, or null. */
  target: string | null;
  delivery: GatewayDelivery;
  /** The attempt to record, or null when the delivery was handed over and its answer records the attempt (CLI). */
  outcome: AttemptOutcome | null;
};

/** A gateway destination type. */
export type GatewayDestinationType = DestinationType<Shapes>;

/** The credentials of any supported `auth_type` (AUTH_SHAPES). */
export const ZDestinationAuth = z.union(Object.values(AUTH_SHAPES));

/**
 * Pushes the issue `{field, message}` and returns an empty result, which the caller ignores once an
 * issue is pushed: `return invalid(issues, …)` stops a validation at its first problem.
 */
export function invalid(issues: GatewayIssue[], field: string, message: string): ResolvedDestinationConfig {
  issues.push({ field, message });
  return { config: {}, auth: {} };
}

/**
 * The rest of a validation, after the type's own fields (already in `config`): `http_method` (default
 * null), `path_forwarding_disabled` (default false), `auth_type` (default GATEWAY_SIGNATURE; the
 * vendor's OAuth2, AWS and GCP types are refused, saying so: delivery cannot sign with them) and `auth`
 * checked against its auth type's shape. Stops at the first problem, pushed to `issues`.
 */
export function validateShared(c: TDestinationConfigInput, config: Record<string, unknown>, issues: GatewayIssue[]): ResolvedDestinationConfig {
  config.http_method = c.http_method ?? null;
  config.path_forwarding_disabled = c.path_forwarding_disabled ?? false;
  const authType = c.auth_type ?? "GATEWAY_SIGNATURE";
  if ((UNSUPPORTED_AUTH_TYPES as readonly string[]).includes(authType)) {
    return invalid(
      issues,
      "config.auth_type",
      `\`config.auth_type\` ${authType} is not supported by this gateway; use one of ${DESTINATION_AUTH_TYPES.join(", ")}.`,
    );
  }
  if (!(DESTINATION_AUTH_TYPES as readonly string[]).includes(authType)) {
    return invalid(issues, "config.auth_type", `\`config.auth_type\` must be one of ${DESTINATION_AUTH_TYPES.join(", ")}.`);
  }
  config.auth_type = authType;
  const parsed = AUTH_SHAPES[authType as keyof typeof AUTH_SHAPES].safeParse(c.auth ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown credential field is named by its own path (config.auth.extra), as the wrapper does for bodies.
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
    return invalid(issues, ["config", "auth", ...path].join("."), `${authType}: ${path.join(".") || "auth"}: ${issue.message}`);
  }
  return { config, auth: parsed.data as Record<string, unknown> };
}

/** Rate limits as stored for the types that have them: `rate_limit` (default null) and `rate_limit_period` (default "second"). */
export function withRateLimit(c: TDestinationConfigInput, config: Record<string, unknown>): void {
  config.rate_limit = c.rate_limit ?? null;
  config.rate_limit_period = c.rate_limit_period ?? "second";
}

/** Credentials as read: the gateway shows them as stored (only on `include=config.auth`, docs/gateway-api.md#destinations). */
export const credentialsAsStored = (credentials: Record<string, unknown>) => credentials;
