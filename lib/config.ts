import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * Every Hookyard setting, parsed once from the environment with zod.
 * The README's configuration table and `.env.example` list the same names.
 */
const booleanish = z.enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""]).transform((v) => ["1", "true", "yes", "on"].includes(v));

/** Items of a space and/or comma separated list, empty ones dropped. */
const splitList = (v: string) => v.split(/[\s,]+/).filter(Boolean);
/** An origin as a CSP host-source: http(s), a host (optionally `*.` first), an optional port; nothing that could end the directive. */
const FRAME_ANCESTOR = /^https?:\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;

const ConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: z.url().optional(),
  INGEST_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DIRECT_DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DB_POOL_SIZE: z.coerce.number().int().min(2).max(500).default(20),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  DELIVERY_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
  TRUST_PROXY: z
    .union([booleanish, z.coerce.number().int().min(0).max(10)])
    .default(false)
    .transform((v) => (v === true ? 1 : v === false ? 0 : v)),
  COOKIE_DOMAIN: z.string().default("auto"),
  INGEST_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(20_000),
  INGEST_WRITE_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(1),
  CONSOLE_CREATE_RATE_LIMIT: z.coerce.number().int().min(1).default(60),
  CONSOLE_NEW_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  CLI_COMMAND: z.string().min(1).default("node cli/hookyard.mjs"),
  SECRET_KEY: z.string().min(16).optional(),
  GATEWAY_API_KEY: z.string().min(16).optional(),
  GATEWAY_API_RATE_LIMIT: z.coerce.number().int().min(1).default(240),
  GATEWAY_ENFORCE_VERSION_SUNSET: booleanish.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  WORKER_ENABLED: booleanish.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(200),
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(0),
  WEB_MAX_OLD_SPACE_MB: z.coerce.number().int().min(0).max(1_048_576).default(512),
  V8_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(1024).default(16),
  WORKER_BURST_DELIVERY_RATE: z.coerce.number().int().min(0).max(1_000_000).default(250),
  WORKER_BURST_MAX_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  DELIVERY_RESPONSE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  DELIVERY_ALLOW_PRIVATE_NETWORKS: booleanish.optional(),
  DELIVERY_ALLOWED_CIDRS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every(isCidrOrAddress), { message: "expected a comma-separated list of CIDRs such as 10.0.0.0/8,fd12::/16" }),
  DELIVERY_DESTINATION_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  // Receiver-driven limits and circuit breakers (docs/pipeline.md "Receiver-driven limits").
  DELIVERY_RETRY_AFTER_MAX_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  DELIVERY_PACE_THROTTLES: z.coerce.number().int().min(1).max(1000).default(3),
  DELIVERY_PACE_RECOVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  DELIVERY_BREAKER_ENABLED: booleanish.default(false),
  DELIVERY_BREAKER_FAILURE_RATE: z.coerce.number().gt(0).max(1).default(0.5),
  DELIVERY_BREAKER_MIN_ATTEMPTS: z.coerce.number().int().min(1).max(100_000).default(10),
  DELIVERY_BREAKER_WINDOW_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  DELIVERY_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  DELIVERY_BREAKER_COOLDOWN_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  PIPELINE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  WORKER_STALL_MS: z.coerce.number().int().min(1_000).default(10_000),
  TRANSFORMATION_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  TRANSFORMATION_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(8),
  RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  BULK_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  // Bulk redrives of outbound deliveries a tenant (portal, tenant JWT) may start per hour (docs/outbound.md "Bulk redrive").
  OUTBOUND_REDRIVE_TENANT_LIMIT: z.coerce.number().int().min(0).max(10_000).default(10),
  // What tenants (portal, tenant JWT) may do with their destinations' transformations (docs/outbound.md "Transformations").
  OUTBOUND_PORTAL_TRANSFORMATIONS: z.enum(["edit", "read", "off"]).default("read"),
  OUTBOUND_API_KEY: z.string().min(16).optional(),
  OUTBOUND_JWT_SECRET: z.string().min(32).optional(),
  OUTBOUND_TOPICS: z.string().default(""),
  OUTBOUND_RATE_LIMIT: z.coerce.number().int().min(1).default(240),
  MAX_DESTINATIONS_PER_TENANT: z.coerce.number().int().min(1).max(10_000).default(20),
  IDGEN_DESTINATION_PREFIX: z
    .string()
    .max(32)
    .regex(/^[A-Za-z0-9_-]*$/)
    .default("des_"),
  IDGEN_EVENT_PREFIX: z
    .string()
    .max(32)
    .regex(/^[A-Za-z0-9_-]*$/)
    .default("evt_"),
  IDGEN_ATTEMPT_PREFIX: z
    .string()
    .max(32)
    .regex(/^[A-Za-z0-9_-]*$/)
    .default("atm_"),
  OUTBOUND_DELIVERY_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(5),
  OUTBOUND_RETRY_INTERVAL_SECONDS: z.coerce.number().min(0).max(86_400).default(30),
  OUTBOUND_MAX_RETRY_LIMIT: z.coerce.number().int().min(0).max(100).default(10),
  OUTBOUND_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*(\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*)?$/, "a comma list of seconds")
    .default(""),
  OUTBOUND_WEBHOOK_HEADER_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9-]*$/)
    .default("x-outbound-"),
  OUTBOUND_AUTO_DISABLE_DESTINATION: booleanish.default(false),
  OUTBOUND_ALERT_CONSECUTIVE_FAILURE_COUNT: z.coerce.number().int().min(1).default(100),
  OUTBOUND_OPERATOR_EVENTS_URL: z.url().optional(),
  OUTBOUND_GATEWAY_TEAMS: z
    .string()
    .regex(/^\s*(none|[A-Za-z0-9_]+(\s*,\s*[A-Za-z0-9_]+)*)?\s*$/, 'a comma list of team ids (tm_…), or "none"')
    .optional(),
  OUTBOUND_OPERATOR_EVENTS_SECRET: z.string().default(""),
  OUTBOUND_MAX_OPEN_CLIENTS: z.coerce.number().int().min(1).max(100_000).default(500),
  // Offer the gateway destination type to tenants (docs/outbound.md "The gateway type").
  OUTBOUND_TENANT_GATEWAY_TYPE: booleanish.default(false),
  AUTH_SECRET: z.string().min(32).optional(),
  DASHBOARD_ADMIN_EMAIL: z.email().optional(),
  DASHBOARD_ADMIN_PASSWORD: z.string().min(12).optional(),
  DASHBOARD_SIGN_IN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  TRANSFORMATION_THREAD_IDLE_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  PORTAL_ORGANIZATION_NAME: z.string().max(100).default(""),
  PORTAL_BRAND_COLOR: z
    .string()
    .regex(/^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6})?$/, "a hex color such as #4f46e5")
    .default(""),
  PORTAL_LOGO_URL: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
  PORTAL_FRAME_ANCESTORS: z
    .string()
    .default("")
    .refine(
      (v) => splitList(v).every((o) => FRAME_ANCESTOR.test(o)),
      "space or comma separated origins such as https://app.example.com (a host may start with *.)",
    ),
  // Operations (docs/operations.md "Migrations").
  MIGRATE_ON_START: booleanish.default(true),
  // Metrics and health (docs/operations.md "Metrics and health").
  METRICS_PORT: z.union([z.literal(""), z.coerce.number().int().min(1).max(65534)]).optional(),
  METRICS_TOKEN: z.union([z.literal(""), z.string().min(16)]).optional(),
  // Logs (docs/operations.md "Logs").
  LOG_FORMAT: z.enum(["json", "pretty", ""]).default(""),
  ACCESS_LOG: booleanish.default(true),
  // Archive before retention (docs/operations.md "Archive"): a directory, or an S3-compatible bucket.
  ARCHIVE_DIR: z.string().optional(),
  ARCHIVE_S3_BUCKET: z.string().optional(),
  ARCHIVE_S3_PREFIX: z.string().default(""),
  ARCHIVE_S3_ENDPOINT: z.union([z.literal(""), z.string().url()]).optional(),
  ARCHIVE_S3_REGION: z.string().default("us-east-1"),
  ARCHIVE_S3_ACCESS_KEY_ID: z.string().optional(),
  ARCHIVE_S3_SECRET_ACCESS_KEY: z.string().optional(),
  ARCHIVE_S3_FORCE_PATH_STYLE: booleanish.default(false),
});

export type Config = {
  /** Log lines as JSON or pretty text; null: pretty on a terminal, JSON otherwise (docs/operations.md "Logs"). */
  logFormat: "json" | "pretty" | null;
  /** One info line per HTTP request served by server.ts (docs/operations.md "Logs"). */
  accessLog: boolean;
  /** The signed-in dashboard (docs/dashboard.md). */
  dashboard: {
    /** Signs the session JWT cookies; unset: a random secret kept in `{dataDir}/auth-secret`. */
    authSecret: string | undefined;
    /** Pins the first admin (created or its password reset on start); unset: a one-time sign-in link is printed. */
    adminEmail: string | undefined;
    adminPassword: string | undefined;
    /** Sign-in attempts per 15 minutes per client IP, and per account. */
    signInRateLimit: number;
  };
  /** Days requests, events, attempts, ignored events and executions are kept (whole UTC days; 0 = forever). docs/scaling.md "Retention and sizing". */
  retentionDays: number;
  /** Outbound service (docs/outbound.md): a pinned admin key; the tenant JWT secret; the topics (empty = any); limits and id prefixes (used as-is). */
  outbound: {
    apiKey: string | undefined;
    jwtSecret: string | undefined;
    topics: string[];
    rateLimit: number;
    maxDestinationsPerTenant: number;
    prefixes: { destination: string; event: string; attempt: string };
    /** Per attempt, ms. */
    deliveryTimeoutMs: number;
    /** Delay before retry n (1-based), s: the schedule's nth, or interval·2^(n-1); `maxRetries` retries at most. */
    retryIntervalSeconds: number;
    maxRetries: number;
    retrySchedule: number[];
    webhookHeaderPrefix: string;
    autoDisable: boolean;
    consecutiveFailureLimit: number;
    /** Where operator events (alerts) are posted, and the secret that signs them. */
    operatorEventsUrl: string | undefined;
    operatorEventsSecret: string;
    /**
     * OUTBOUND_GATEWAY_TEAMS: the teams whose sources `gateway` destinations may target (docs/outbound.md
     * "The gateway type"); null (unset or empty) = the gateway team (the oldest team, the one the first
     * start creates); [] ("none") = no team.
     */
    gatewayTeams: string[] | null;
    /** OUTBOUND_MAX_OPEN_CLIENTS: broker and cloud clients a process keeps open at most (docs/outbound.md "Connections"). */
    maxOpenClients: number;
    /** OUTBOUND_TENANT_GATEWAY_TYPE: `GET /destination-types` lists the gateway type to a tenant JWT (the portal); default false. */
    tenantGatewayType: boolean;
    /**
     * OUTBOUND_PORTAL_TRANSFORMATIONS: what a tenant (portal, tenant JWT) may do with its destinations'
     * transformations: edit (set, change, test any code), read (see and test the saved code), off (not
     * shown; no test runs). The admin key always may. docs/outbound.md "Transformations".
     */
    portalTransformations: "edit" | "read" | "off";
  };
  /** Records a bulk operation handles per batch (one transaction with its progress). docs/gateway-api.md "Bulk operations". */
  bulkBatchSize: number;
  /** Redrives a tenant may start per hour (docs/outbound.md "Bulk redrive"); 0 = tenants cannot start any. */
  outboundRedriveTenantLimit: number;
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  /** Base URL of the console web app and API, without trailing slash. */
  publicUrl: string;
  /** Base of source URLs: a source's URL is `{ingestUrl}/{id without src_}`. */
  ingestUrl: string;
  /** Set when an external PostgreSQL is used; unset means the embedded one. */
  databaseUrl: string | undefined;
  /**
   * A direct (session) connection to the same database as `databaseUrl`, for LISTEN, session advisory
   * locks, migrations and worker presence when `databaseUrl` is a transaction-mode pooler (docs/operations.md#pooler).
   * Unset: `databaseUrl` is used for everything.
   */
  directDatabaseUrl: string | undefined;
  /** Absolute directory for embedded PostgreSQL data and other local state. */
  dataDir: string;
  embeddedPgPort: number;
  dbPoolSize: number;
  /** Trusted proxies in front (0 = none): the client IP is that many X-Forwarded-For entries from the right. */
  trustProxy: number;
  /** "auto" (parent domain of the request host), "" (host-only) or an explicit domain. */
  cookieDomain: string;
  /** Largest request body accepted by ingestion, bytes. */
  ingestMaxBodyBytes: number;
  /** Longest a client may take to send a whole request, headers and body (ms); server.ts `requestTimeout`. */
  httpRequestTimeoutMs: number;
  /** Longest a client may take to send a request's headers (ms, at most httpRequestTimeoutMs). */
  httpHeadersTimeoutMs: number;
  /** Group-commit writes in flight at once per process. */
  ingestWriteConcurrency: number;
  /** `POST /` creations per minute per client. */
  consoleCreateRateLimit: number;
  /** `GET /new` pages per minute per client. */
  consoleNewRateLimit: number;
  /**
   * How the CLI is invoked in the console's `cmd_hint` (default `node cli/hookyard.mjs`: the clone's own CLI,
   * never a registry package of that name; docs/cli.md "Running it").
   */
  cliCommand: string;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Key that encrypts secrets at rest; unset: a random key kept in `{dataDir}/secret.key`. */
  secretKey: string | undefined;
  /** Pins an API key of the gateway team (created on start if missing). */
  gatewayApiKey: string | undefined;
  /** Gateway REST API requests per minute per key. */
  gatewayApiRateLimit: number;
  /** Versions past their sunset (a year after their date) answer 410 instead of serving with Deprecation/Sunset headers. docs/gateway-api.md "Version lifecycle". */
  gatewayEnforceVersionSunset: boolean;
  /** Base URL of the gateway REST API (`{publicUrl}/api`). */
  gatewayApiUrl: string;
  /** Run the delivery worker inside `npm start` (false: run `npm run worker` apart). */
  workerEnabled: boolean;
  /** Deliveries in flight at once per worker process. */
  workerConcurrency: number;
  /** Deliveries per second a worker process starts from fan-out while ingestion is saturated; 0 = no limit. */
  workerBurstDeliveryRate: number;
  /** How long one episode of ingestion pressure may slow deliveries (lib/delivery/pacing.ts BurstPacer), ms. */
  workerBurstMaxMs: number;
  /** CPU priority (nice, 0-19) of the worker process `npm start` runs: higher yields the CPU to ingestion. */
  workerNice: number;
  /**
   * V8's old-space limit of the web process `npm start` runs (`--max-old-space-size`), MiB; 0 leaves V8's own
   * (a share of the machine's memory). See docs/operations.md "Memory".
   */
  webMaxOldSpaceMb: number;
  /**
   * Size of each of V8's two young-generation semi-spaces in the web and worker processes `npm start` runs
   * (`--min-semi-space-size` and `--max-semi-space-size`), MiB; 0 leaves V8 to resize them under load. See
   * docs/operations.md "Memory".
   */
  v8SemiSpaceMb: number;
  /** Time allowed for one delivery (connect, headers and body), ms. */
  deliveryTimeoutMs: number;
  /** Bytes of a destination's response body kept on the attempt. */
  deliveryResponseMaxBytes: number;
  /**
   * Deliver to private, loopback, carrier-grade NAT and unique-local addresses (docs/pipeline.md#refused-addresses). Default: true
   * only when PUBLIC_URL's host is loopback (a developer's machine). Link-local and cloud metadata are always refused.
   */
  deliveryAllowPrivateNetworks: boolean;
  /** Private CIDRs delivered to even when private networks are refused ("10.0.0.0/8", "fd12::/16"; never metadata). */
  deliveryAllowedCidrs: string[];
  /** Deliveries in flight at once to one destination per worker process (when it sets no `concurrent` limit). */
  deliveryDestinationConcurrency: number;
  /** Receiver-driven limits and circuit breakers (docs/pipeline.md "Receiver-driven limits"). */
  destinationState: {
    /** The longest pause a `Retry-After` may ask for, ms. */
    retryAfterMaxMs: number;
    /** 429s without `Retry-After` within DELIVERY_PACE_RECOVERY_MS that halve a destination's pace. */
    paceThrottles: number;
    /** Good answers for this long raise a slowed pace by half again, ms. */
    paceRecoveryMs: number;
    /**
     * Whether breakers open at all (DELIVERY_BREAKER_ENABLED, default off: the specs' retry schedules and
     * auto-disable run exactly as written unless the operator turns breakers on).
     */
    breakerEnabled: boolean;
    /** Share of failed attempts (0–1] over the window that opens the breaker. */
    breakerFailureRate: number;
    /** Attempts in the window before the breaker may open. */
    breakerMinAttempts: number;
    /** The failure window, ms. */
    breakerWindowMs: number;
    /** The first cool-down of an open breaker, ms; doubled by each failed probe up to `breakerCooldownMaxMs`. */
    breakerCooldownMs: number;
    breakerCooldownMaxMs: number;
  };
  /** How often each worker looks for left-behind fan-outs and deliveries, ms. */
  pipelineSweepIntervalMs: number;
  /** Due work older than this while the worker ran none is a stall (lib/delivery/watchdog.ts), ms. */
  workerStallMs: number;
  /** Transformation sandbox threads per process (web and worker each): runs at once. */
  transformationThreads: number;
  /** `PUT /transformations/run` calls that wait for a busy thread per process; more get 429. */
  transformationQueueMax: number;
  /** A sandbox thread idle this long exits and returns its memory, ms. */
  transformationThreadIdleMs: number;
  /** How long a new database connection may take before the query fails (ingestion then answers 503), ms. */
  dbConnectTimeoutMs: number;
  /** Branding of the tenant portal (/portal): the operator's name (shown in its header and title), accent color (hex) and logo (http(s) URL). */
  portal: {
    organizationName: string;
    brandColor: string;
    logoUrl: string | undefined;
    /** Origins allowed to frame the portal (CSP `frame-ancestors`; docs/portal.md "Embedding"); empty: none may. */
    frameAncestors: string[];
  };
  /** A delivery lease's length, renewed by its live worker every third of it; a dead worker's events are taken over after it, ms. */
  deliveryLeaseMs: number;
  /**
   * MIGRATE_ON_START: `npm start` and `npm run worker` apply pending migrations at start (default true); false: they
   * only check, and refuse to start while migrations are pending (docs/operations.md "Migrations").
   */
  migrateOnStart: boolean;
  /** Prometheus metrics and the operator view of /healthz (docs/operations.md "Metrics and health"). */
  metrics: {
    /** METRICS_PORT: each process serves /metrics, /livez, /readyz on a listener of its own there (the worker child of `npm start` on port + 1); undefined: none. */
    port: number | undefined;
    /** METRICS_TOKEN: `Authorization: Bearer` token for /metrics on the main port and the detailed /healthz; undefined: /metrics there answers 404. */
    token: string | undefined;
  };
  /**
   * Where retention archives a day before dropping it (docs/operations.md "Archive"): ARCHIVE_DIR (a
   * directory) or ARCHIVE_S3_BUCKET (+ ARCHIVE_S3_*; credentials unset: the SDK's usual chain); null: no
   * archive, retention drops days as before.
   */
  archive:
    | { kind: "dir"; dir: string }
    | {
        kind: "s3";
        bucket: string;
        prefix: string;
        endpoint: string | undefined;
        region: string;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        forcePathStyle: boolean;
      }
    | null;
};

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** "10.0.0.0/8" or a bare address ("10.1.2.3", one host). */
function isCidrOrAddress(text: string): boolean {
  return text.includes("/") ? ipaddr.isValidCIDR(text) : ipaddr.isValid(text);
}

/** Whether `url`'s host is loopback: localhost, *.localhost, 127.0.0.0/8, ::1 (also IPv4-mapped). */
function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === "loopback";
}

/**
 * Parses settings from `env`. Throws an Error naming every invalid variable.
 * Exported for tests; application code calls {@link getConfig}.
 */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const publicUrl = trimSlash(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  const metricsPort = e.METRICS_PORT === "" || e.METRICS_PORT === undefined ? undefined : e.METRICS_PORT;
  if (metricsPort !== undefined && (metricsPort === e.PORT || metricsPort + 1 === e.PORT)) {
    throw new Error(`Invalid configuration: METRICS_PORT: ${metricsPort} collides with PORT ${e.PORT} (the worker of npm start uses METRICS_PORT + 1)`);
  }
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    ingestUrl: trimSlash(e.INGEST_URL ?? `${publicUrl}/e`),
    databaseUrl: e.DATABASE_URL,
    directDatabaseUrl: e.DIRECT_DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    dbPoolSize: e.DB_POOL_SIZE,
    trustProxy: e.TRUST_PROXY,
    cookieDomain: e.COOKIE_DOMAIN.trim(),
    ingestMaxBodyBytes: e.INGEST_MAX_BODY_BYTES,
    httpRequestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    httpHeadersTimeoutMs: Math.min(e.HTTP_HEADERS_TIMEOUT_MS, e.HTTP_REQUEST_TIMEOUT_MS),
    ingestWriteConcurrency: e.INGEST_WRITE_CONCURRENCY,
    consoleCreateRateLimit: e.CONSOLE_CREATE_RATE_LIMIT,
    consoleNewRateLimit: e.CONSOLE_NEW_RATE_LIMIT,
    cliCommand: e.CLI_COMMAND,
    logLevel: e.LOG_LEVEL,
    secretKey: e.SECRET_KEY,
    gatewayApiKey: e.GATEWAY_API_KEY,
    gatewayApiRateLimit: e.GATEWAY_API_RATE_LIMIT,
    gatewayEnforceVersionSunset: e.GATEWAY_ENFORCE_VERSION_SUNSET,
    gatewayApiUrl: `${publicUrl}/api`,
    workerEnabled: e.WORKER_ENABLED,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerBurstDeliveryRate: e.WORKER_BURST_DELIVERY_RATE,
    workerBurstMaxMs: e.WORKER_BURST_MAX_MS,
    workerNice: e.WORKER_NICE,
    webMaxOldSpaceMb: e.WEB_MAX_OLD_SPACE_MB,
    v8SemiSpaceMb: e.V8_SEMI_SPACE_MB,
    deliveryTimeoutMs: e.DELIVERY_TIMEOUT_MS,
    deliveryResponseMaxBytes: e.DELIVERY_RESPONSE_MAX_BYTES,
    deliveryAllowPrivateNetworks: e.DELIVERY_ALLOW_PRIVATE_NETWORKS ?? isLoopbackUrl(publicUrl),
    deliveryAllowedCidrs: e.DELIVERY_ALLOWED_CIDRS,
    deliveryDestinationConcurrency: e.DELIVERY_DESTINATION_CONCURRENCY,
    destinationState: {
      retryAfterMaxMs: e.DELIVERY_RETRY_AFTER_MAX_MS,
      paceThrottles: e.DELIVERY_PACE_THROTTLES,
      paceRecoveryMs: e.DELIVERY_PACE_RECOVERY_MS,
      breakerEnabled: e.DELIVERY_BREAKER_ENABLED,
      breakerFailureRate: e.DELIVERY_BREAKER_FAILURE_RATE,
      breakerMinAttempts: e.DELIVERY_BREAKER_MIN_ATTEMPTS,
      breakerWindowMs: e.DELIVERY_BREAKER_WINDOW_MS,
      breakerCooldownMs: e.DELIVERY_BREAKER_COOLDOWN_MS,
      breakerCooldownMaxMs: e.DELIVERY_BREAKER_COOLDOWN_MAX_MS,
    },
    pipelineSweepIntervalMs: e.PIPELINE_SWEEP_INTERVAL_MS,
    workerStallMs: e.WORKER_STALL_MS,
    transformationThreads: e.TRANSFORMATION_THREADS,
    transformationQueueMax: e.TRANSFORMATION_QUEUE_MAX,
    transformationThreadIdleMs: e.TRANSFORMATION_THREAD_IDLE_MS,
    dbConnectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    retentionDays: e.RETENTION_DAYS,
    bulkBatchSize: e.BULK_BATCH_SIZE,
    outboundRedriveTenantLimit: e.OUTBOUND_REDRIVE_TENANT_LIMIT,
    outbound: {
      apiKey: e.OUTBOUND_API_KEY,
      jwtSecret: e.OUTBOUND_JWT_SECRET,
      topics: e.OUTBOUND_TOPICS.split(",")
        .map((t) => t.trim())
        .filter(Boolean),
      rateLimit: e.OUTBOUND_RATE_LIMIT,
      maxDestinationsPerTenant: e.MAX_DESTINATIONS_PER_TENANT,
      prefixes: { destination: e.IDGEN_DESTINATION_PREFIX, event: e.IDGEN_EVENT_PREFIX, attempt: e.IDGEN_ATTEMPT_PREFIX },
      deliveryTimeoutMs: e.OUTBOUND_DELIVERY_TIMEOUT_SECONDS * 1000,
      retryIntervalSeconds: e.OUTBOUND_RETRY_INTERVAL_SECONDS,
      maxRetries: e.OUTBOUND_RETRY_SCHEDULE.trim() ? e.OUTBOUND_RETRY_SCHEDULE.split(",").length : e.OUTBOUND_MAX_RETRY_LIMIT,
      retrySchedule: e.OUTBOUND_RETRY_SCHEDULE.trim() ? e.OUTBOUND_RETRY_SCHEDULE.split(",").map((s) => Number(s.trim())) : [],
      webhookHeaderPrefix: e.OUTBOUND_WEBHOOK_HEADER_PREFIX.toLowerCase(),
      autoDisable: e.OUTBOUND_AUTO_DISABLE_DESTINATION,
      consecutiveFailureLimit: e.OUTBOUND_ALERT_CONSECUTIVE_FAILURE_COUNT,
      operatorEventsUrl: e.OUTBOUND_OPERATOR_EVENTS_URL,
      gatewayTeams: !e.OUTBOUND_GATEWAY_TEAMS?.trim()
        ? null
        : e.OUTBOUND_GATEWAY_TEAMS.trim() === "none"
          ? []
          : e.OUTBOUND_GATEWAY_TEAMS.split(",").map((t) => t.trim()),
      operatorEventsSecret: e.OUTBOUND_OPERATOR_EVENTS_SECRET,
      maxOpenClients: e.OUTBOUND_MAX_OPEN_CLIENTS,
      tenantGatewayType: e.OUTBOUND_TENANT_GATEWAY_TYPE,
      portalTransformations: e.OUTBOUND_PORTAL_TRANSFORMATIONS,
    },
    deliveryLeaseMs: e.DELIVERY_LEASE_MS,
    migrateOnStart: e.MIGRATE_ON_START,
    portal: {
      organizationName: e.PORTAL_ORGANIZATION_NAME.trim(),
      brandColor: e.PORTAL_BRAND_COLOR || "#4f46e5",
      logoUrl: e.PORTAL_LOGO_URL || undefined,
      frameAncestors: splitList(e.PORTAL_FRAME_ANCESTORS).map((o) => o.toLowerCase()),
    },
    logFormat: e.LOG_FORMAT || null,
    accessLog: e.ACCESS_LOG,
    dashboard: {
      authSecret: e.AUTH_SECRET,
      adminEmail: e.DASHBOARD_ADMIN_EMAIL?.toLowerCase(),
      adminPassword: e.DASHBOARD_ADMIN_PASSWORD,
      signInRateLimit: e.DASHBOARD_SIGN_IN_RATE_LIMIT,
    },
    metrics: { port: metricsPort, token: e.METRICS_TOKEN || undefined },
    archive: e.ARCHIVE_S3_BUCKET
      ? {
          kind: "s3",
          bucket: e.ARCHIVE_S3_BUCKET,
          prefix: e.ARCHIVE_S3_PREFIX.replace(/^\/+|\/+$/g, ""),
          endpoint: e.ARCHIVE_S3_ENDPOINT || undefined,
          region: e.ARCHIVE_S3_REGION,
          accessKeyId: e.ARCHIVE_S3_ACCESS_KEY_ID || undefined,
          secretAccessKey: e.ARCHIVE_S3_SECRET_ACCESS_KEY || undefined,
          forcePathStyle: e.ARCHIVE_S3_FORCE_PATH_STYLE,
        }
      : e.ARCHIVE_DIR
        ? { kind: "dir", dir: e.ARCHIVE_DIR }
        : null,
  };
}

let cached: Config | undefined;

/** The process's settings, parsed on first use. Throws on invalid settings. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
