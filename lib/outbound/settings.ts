/**
 * Instance settings of the outbound service and the managed form's configuration endpoints
 * (docs/outbound.md#configuration-managed-form): `GET /config` answers the settings under the real
 * product's names (string values); `PATCH /config` changes them (stored in PostgreSQL, applied by every
 * process within SETTINGS_TTL_MS without a restart); `null` restores the default (the environment's);
 * an unknown key or a bad value is a 422. Code reads the effective settings with outboundConfig().
 */
import { z } from "zod";
import { type Config, getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { outboundInvalid } from "@/lib/outbound/errors";

type OutboundConfig = Config["outbound"];
/** How long a process keeps the stored settings before reading them again, ms. */
const SETTINGS_TTL_MS = 2_000;
const PREFIX = "config:";

const num =
  (min: number, max: number, integer = true) =>
  (v: string) => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      throw new Error(`must be a number from ${min} to ${max}`);
    return n;
  };
const bool = (v: string) => {
  if (v !== "true" && v !== "false") throw new Error('must be "true" or "false"');
  return v === "true";
};
const prefix = (v: string) => {
  if (!/^[A-Za-z0-9_-]{0,32}$/.test(v)) throw new Error("must be up to 32 letters, digits, _ or -");
  return v;
};

/** Each supported key: how to read its value into the settings, and how to show the current one. */
const KEYS: Record<string, { apply: (c: OutboundConfig, v: string) => void; show: (c: OutboundConfig) => string }> = {
  TOPICS: {
    apply: (c, v) =>
      (c.topics = v
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean)),
    show: (c) => c.topics.join(","),
  },
  DELIVERY_TIMEOUT_SECONDS: { apply: (c, v) => (c.deliveryTimeoutMs = num(0.1, 300, false)(v) * 1000), show: (c) => String(c.deliveryTimeoutMs / 1000) },
  RETRY_INTERVAL_SECONDS: { apply: (c, v) => (c.retryIntervalSeconds = num(0, 86_400, false)(v)), show: (c) => String(c.retryIntervalSeconds) },
  MAX_RETRY_LIMIT: { apply: (c, v) => (c.maxRetries = num(0, 100)(v)), show: (c) => String(c.maxRetries) },
  RETRY_SCHEDULE: {
    apply: (c, v) => {
      const list = v.trim() ? v.split(",").map((s) => num(0, 86_400, false)(s.trim())) : [];
      c.retrySchedule = list;
      if (list.length) c.maxRetries = list.length;
    },
    show: (c) => c.retrySchedule.join(","),
  },
  MAX_DESTINATIONS_PER_TENANT: { apply: (c, v) => (c.maxDestinationsPerTenant = num(1, 10_000)(v)), show: (c) => String(c.maxDestinationsPerTenant) },
  DESTINATIONS_WEBHOOK_HEADER_PREFIX: { apply: (c, v) => (c.webhookHeaderPrefix = prefix(v).toLowerCase()), show: (c) => c.webhookHeaderPrefix },
  ALERT_AUTO_DISABLE_DESTINATION: { apply: (c, v) => (c.autoDisable = bool(v)), show: (c) => String(c.autoDisable) },
  ALERT_CONSECUTIVE_FAILURE_COUNT: { apply: (c, v) => (c.consecutiveFailureLimit = num(1, 1_000_000)(v)), show: (c) => String(c.consecutiveFailureLimit) },
  IDGEN_EVENT_PREFIX: { apply: (c, v) => (c.prefixes = { ...c.prefixes, event: prefix(v) }), show: (c) => c.prefixes.event },
  IDGEN_DESTINATION_PREFIX: { apply: (c, v) => (c.prefixes = { ...c.prefixes, destination: prefix(v) }), show: (c) => c.prefixes.destination },
  PORTAL_TRANSFORMATIONS: {
    apply: (c, v) => {
      if (v !== "edit" && v !== "read" && v !== "off") throw new Error('must be "edit", "read" or "off"');
      c.portalTransformations = v;
    },
    show: (c) => c.portalTransformations,
  },
  IDGEN_ATTEMPT_PREFIX: { apply: (c, v) => (c.prefixes = { ...c.prefixes, attempt: prefix(v) }), show: (c) => c.prefixes.attempt },
};

/** The body of `PATCH /config` as a schema (its keys are KEYS'; values are checked by patchManagedConfig): the OpenAPI document's. */
export const ZConfigPatch = z.strictObject(Object.fromEntries(Object.keys(KEYS).map((k) => [k, z.string().nullable().optional()])));

let stored: Record<string, string> = {};
let loadedAt = 0;
let loading: Promise<void> | null = null;
/** Reads started, and the latest of them whose answer is in `stored`: an older answer never replaces a newer one. */
let readsStarted = 0;
let readApplied = 0;

/** One read of the stored settings, begun now. Throws database errors. */
function readSettings(): Promise<void> {
  const read = ++readsStarted;
  return getPool()
    .query<{ key: string; value: string }>("SELECT key, value FROM outbound_settings WHERE key LIKE 'config:%'")
    .then(({ rows }) => {
      if (read < readApplied) return;
      readApplied = read;
      stored = Object.fromEntries(rows.map((r) => [r.key.slice(PREFIX.length), r.value]));
      loadedAt = Date.now();
    });
}

/**
 * Reads the stored settings again when older than SETTINGS_TTL_MS; `force`: with a read begun now, so that a
 * caller sees its own change (a read already under way may have begun before it). Throws database errors.
 */
export function refreshOutboundSettings(force = false): Promise<void> {
  if (force) return readSettings();
  if (Date.now() - loadedAt < SETTINGS_TTL_MS) return Promise.resolve();
  loading ??= readSettings().finally(() => (loading = null));
  return loading;
}

/** The effective outbound settings: the environment's, with the stored ones (as last read) over them. */
export function outboundConfig(): OutboundConfig {
  const c: OutboundConfig = { ...getConfig().outbound, prefixes: { ...getConfig().outbound.prefixes } };
  for (const [k, v] of Object.entries(stored)) {
    try {
      if (Object.hasOwn(KEYS, k)) KEYS[k].apply(c, v);
    } catch {
      /* validated when stored */
    }
  }
  return c;
}

/** `GET /config`: every supported setting's current value, as strings. */
export async function getManagedConfig(): Promise<Record<string, string>> {
  await refreshOutboundSettings(true);
  const c = outboundConfig();
  return Object.fromEntries(Object.entries(KEYS).map(([k, def]) => [k, def.show(c)]));
}

/** `PATCH /config` `{KEY: "value" | null}`: stores the values (null: back to the default). Throws 422 naming unknown keys and bad values. */
export async function patchManagedConfig(body: unknown): Promise<Record<string, string>> {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw outboundInvalid(["the body must be an object of settings"]);
  const errors: string[] = [];
  const probe: OutboundConfig = { ...getConfig().outbound, prefixes: { ...getConfig().outbound.prefixes } };
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (!Object.hasOwn(KEYS, k)) errors.push(`${k} is not a supported setting`);
    else if (v !== null && typeof v !== "string") errors.push(`${k} must be a string or null`);
    else if (typeof v === "string") {
      try {
        KEYS[k].apply(probe, v);
      } catch (err) {
        errors.push(`${k} ${(err as Error).message}`);
      }
    }
  }
  if (errors.length) throw outboundInvalid(errors);
  for (const [k, v] of Object.entries(body as Record<string, string | null>)) {
    if (v === null) await getPool().query("DELETE FROM outbound_settings WHERE key = $1", [PREFIX + k]);
    else
      await getPool().query(
        "INSERT INTO outbound_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        [PREFIX + k, v],
      );
  }
  return getManagedConfig();
}
