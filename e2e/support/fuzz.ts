/**
 * The property-based fuzz of every HTTP surface (docs/gateway-api.md#input-limits), shared by e2e/fuzz.test.ts
 * (fixed seed, in `npm test`) and scripts/fuzz.ts (`npm run fuzz`, more runs). fast-check generates
 * requests — methods (odd ones included), paths of every endpoint with ids in odd encodings, bracket
 * queries (`__proto__` chains, deep nesting, NUL, forged cursors, huge numbers), headers, JSON and
 * non-JSON bodies (NUL, lone surrogates, deep nesting) — and sends them with node:http (fetch refuses
 * TRACE and rewrites paths). The property: no 5xx, no hang.
 *
 * Endpoints come from app/api/[version] (every route directory), server.ts's own routes (console,
 * ingestion, publish), lib/cli-channel/routes.ts, the outbound API (OUTBOUND_TEMPLATES, both forms;
 * e2e/fuzz.test.ts checks it lists every route of lib/outbound/routes.ts), the tenant portal's and the
 * dashboard's pages (app/portal, app/dashboard) and the dashboard API. Besides "no 5xx", every JSON 4xx
 * must be in the body of the surface addressed ({@link shapeProblem}).
 */
import http from "node:http";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { API_VERSIONS } from "@/lib/gateway/versions";
import { type Surface, surfaceOf } from "@/lib/http/request-line";

/** One generated request. `path` is already percent-encoded (it may hold invalid encodings on purpose). */
export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body?: Buffer };
export type FuzzAnswer = { status: number; contentType: string; body: string };

/** Real credentials and ids the generator mixes in, so requests get past authentication and lookups. */
export type FuzzContext = {
  apiKeys: string[];
  cliKeys: string[];
  /** Console test-URL public ids, gateway resource ids, request ids… */
  ids: string[];
  /** Outbound admin keys and tenant JWTs (also sent as the portal's cookie). */
  outboundTokens?: string[];
  /** Outbound tenant, destination, event and attempt ids. */
  outboundIds?: string[];
  /** Dashboard session cookies (`hookyard.dashboard-session=…`). */
  dashboardCookies?: string[];
};

/** Gateway route templates from app/api/[version] (`sources/[id]/[action]`), without the version. */
export function gatewayTemplates(root = path.resolve("app/api/[version]")): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string[]) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, [...rel, name]);
      else if (name === "route.ts") out.push(rel.join("/"));
    }
  };
  walk(root, []);
  return out;
}

/** server.ts's own routes and the CLI channel's (lib/cli-channel/routes.ts); `[id]` etc. are filled in. */
export const SERVER_TEMPLATES = [
  "", // POST / create; GET / page
  "openapi.json",
  "new",
  "[id]",
  "[id]/live",
  "[id]/requests/[id]/raw",
  "[id]/requests/[id]/events",
  "[id]/requests/[id]/retry",
  "e/[id]",
  "e/[id]/[...rest]",
  "e/v1/publish",
  "cli/sessions",
  "cli/sessions/[id]/stream",
  "cli/attempts/[id]",
  "_next/static/[id]",
  "favicon.svg",
];

/** Every outbound route (lib/outbound/routes.ts), relative to a form's base; `:name` segments are filled in. */
export const OUTBOUND_TEMPLATES = [
  "tenants",
  "tenants/:tenant_id",
  "tenants/:tenant_id/token",
  "tenants/:tenant_id/portal",
  "tenants/:tenant_id/destinations",
  "tenants/:tenant_id/destinations/:destination_id",
  "tenants/:tenant_id/destinations/:destination_id/enable",
  "tenants/:tenant_id/destinations/:destination_id/disable",
  "tenants/:tenant_id/destinations/:destination_id/attempts",
  "tenants/:tenant_id/destinations/:destination_id/attempts/:attempt_id",
  "tenants/:tenant_id/destinations/:destination_id/transformation/test",
  "tenants/:tenant_id/destinations/:destination_id/ordering/release",
  "destination-health",
  "destination-types",
  "destination-types/:type",
  "config",
  "healthz",
  "openapi.json",
  "topics",
  "publish",
  "retry",
  "events",
  "events/:event_id",
  "metrics/events",
  "metrics/attempts",
  "attempts",
  "attempts/:attempt_id",
  "catalog",
  "catalog/:topic",
  "catalog/:topic/schemas/:version",
  "redrives",
  "redrives/plan",
  "redrives/:redrive_id",
  "redrives/:redrive_id/cancel",
  "archive-replays",
  "archive-replays/plan",
  "archive-replays/:archive_replay_id",
  "archive-replays/:archive_replay_id/cancel",
];
/** Outbound bases: both forms, and bad ones. */
const OUTBOUND_PREFIXES = ["outbound/api/v1", "outbound/2025-07-01", "outbound/api/v1", "outbound/2025-07-01", "outbound/v9", "outbound/api/%FF"];

/** Page templates of a Next.js app directory (`app/portal` → `portal/destinations/[id]`), route groups left out. */
export function pageTemplates(root: string, base: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string[]) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, name.startsWith("(") ? rel : [...rel, name]);
      else if (name === "page.tsx" || name === "route.ts") out.push([base, ...rel].join("/"));
    }
  };
  walk(root, []);
  return out;
}
/** The dashboard API's actions (next-auth) and odd ones. */
const AUTH_ACTIONS = [
  "session",
  "csrf",
  "providers",
  "signin",
  "signout",
  "callback/credentials",
  "callback/link",
  "signin/credentials",
  "error",
  "_log",
  "nope",
  "__proto__",
];

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "PURGE", "LOCK", "SEARCH"];

/** Path segments in odd encodings: invalid UTF-8, NUL, overlong forms, lone surrogates as UTF-8, traversal, prototype names. */
const ODD_SEGMENTS = [
  "%FF",
  "%00",
  "a%00b",
  "%ED%A0%80",
  "%C0%80",
  "%E2%82",
  "..",
  "%2e%2e",
  "%2F",
  "a%2Fb",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "%E2%82%AC",
  "%F0%9F%98%80",
  "%25",
  "x".repeat(3000),
  "-1",
  "1e400",
  "null",
  "undefined",
  "%20",
  "a;b",
  "a,b",
];

const encodeSegment = (s: string) => encodeURIComponent(s);

/** A path segment: a real id, an odd one, or random text (encoded). */
function segmentArb(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: ctx.ids.length ? fc.constantFrom(...ctx.ids) : fc.constant("src_x") },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30, unit: "binary" }).map(encodeSegment) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("src_", "des_", "web_", "req_", "evt_", "trs_", "exc_", "atm_", "ign_", "bch_", "iss_", "it_", "bmk_", "edt_")
        .chain((p) => fc.string({ maxLength: 24 }).map((s) => p + encodeSegment(s))),
    },
  );
}

/** An outbound path segment: a real tenant, destination, event or attempt id, or any segment. */
function outboundSegmentArb(ctx: FuzzContext): fc.Arbitrary<string> {
  return ctx.outboundIds?.length
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ctx.outboundIds) }, { weight: 2, arbitrary: segmentArb(ctx) })
    : segmentArb(ctx);
}

const ACTIONS = ["disable", "enable", "archive", "unarchive", "pause", "unpause", "constructor", "__proto__", "toString", "%FF"];
/** Bulk families (`bulk/[resource]/[verb]`): the real ones mostly, so requests reach their handlers. */
const BULK_RESOURCES = ["events", "ignored-events", "requests", "__proto__", "%FF"];
const BULK_VERBS = ["retry", "cancel", "replay", "constructor", "%00"];
/** Metrics names (`metrics/[name]`). */
const METRICS = ["requests", "events", "attempts", "events-by-issue", "queue-depth", "transformations", "events-pending-timeseries", "__proto__"];

const named = (values: string[], ctx: FuzzContext) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: segmentArb(ctx) });

function fill(template: string, ctx: FuzzContext): fc.Arbitrary<string> {
  const parts = template.split("/").filter((p) => p !== "");
  const segment = (p: string) => {
    if (p === "[action]") return fc.constantFrom(...ACTIONS);
    if (p === "[resource]") return named(BULK_RESOURCES, ctx);
    if (p === "[verb]") return named(BULK_VERBS, ctx);
    if (p === "[name]") return named(METRICS, ctx);
    if (p === "[...rest]") return fc.array(segmentArb(ctx), { minLength: 1, maxLength: 4 }).map((a) => a.join("/"));
    if (p === "[...nextauth]") return named(AUTH_ACTIONS, ctx);
    if (p === ":type")
      return named(
        ["webhook", "standard_webhook", "gateway", "rabbitmq", "redis_stream", "nats", "mqtt", "aws_sqs", "aws_s3", "aws_kinesis", "gcp_pubsub", "kafka"],
        ctx,
      );
    if (p.startsWith(":") || p === "[tenant]") return outboundSegmentArb(ctx);
    return p.startsWith("[") ? segmentArb(ctx) : fc.constant(p);
  };
  return fc.tuple(...parts.map(segment)).map((a) => a.join("/"));
}

/** Gateway prefixes: every version, none, and bad ones. */
const API_PREFIXES = [...API_VERSIONS.map((v) => `api/${v}`), "api", "api/2023-01-01", "api/%FF"];

function pathArb(ctx: FuzzContext): fc.Arbitrary<string> {
  const gateway = fc
    .tuple(fc.constantFrom(...API_PREFIXES), fc.constantFrom(...gatewayTemplates()))
    .chain(([prefix, t]) => fill(t, ctx).map((rest) => `/${prefix}${rest ? `/${rest}` : ""}`));
  const server = fc.constantFrom(...SERVER_TEMPLATES).chain((t) => fill(t, ctx).map((p) => `/${p}`));
  const outbound = fc
    .tuple(fc.constantFrom(...OUTBOUND_PREFIXES), fc.constantFrom(...OUTBOUND_TEMPLATES))
    .chain(([prefix, t]) => fill(t, ctx).map((rest) => `/${prefix}/${rest}`));
  const pages = fc
    .constantFrom(...pageTemplates(path.resolve("app/portal"), "portal"), ...pageTemplates(path.resolve("app/dashboard"), "dashboard"))
    .chain((t) => fill(t, ctx).map((p) => `/${p}`));
  const random = fc.array(segmentArb(ctx), { minLength: 1, maxLength: 5 }).map((a) => `/${a.join("/")}`);
  return fc.oneof(
    { weight: 5, arbitrary: gateway },
    { weight: 3, arbitrary: server },
    { weight: 4, arbitrary: outbound },
    { weight: 1, arbitrary: pages },
    { weight: 1, arbitrary: random },
  );
}

/** `a[b][c]` keys: real parameter names, prototype names, and nesting up to 40 levels or, rarely, 3,000. */
function queryKeyArb(): fc.Arbitrary<string> {
  const name = fc.constantFrom(
    "name",
    "id",
    "limit",
    "next",
    "prev",
    "order_by",
    "dir",
    "created_at",
    "updated_at",
    "source_id",
    "destination_id",
    "status",
    "body",
    "headers",
    "query",
    "path",
    "include",
    "attempts",
    "response_status",
    "disabled",
    "type",
    "__proto__",
    "constructor",
    "prototype",
    "a",
    "",
    "query_partial_match",
    "in_progress",
    "completed_at",
    "cancelled_at",
    "issue_id",
    "bulk_retry_id",
    "aggregation_keys",
    "search_term",
    "label",
    "date_range",
    "measures",
    "dimensions",
    "granularity",
    "filters",
    "time",
    "tenant_id",
    "event_id",
    "topic",
    "theme",
    "token",
    "callbackUrl",
  );
  const sub = fc.constantFrom(
    "",
    "0",
    "1",
    "99999999",
    "gte",
    "gt",
    "lte",
    "lt",
    "any",
    "contains",
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "x",
    "%5B",
    "]",
    "start",
    "end",
    "tenant_id",
    "topic",
    "status",
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(name, fc.array(sub, { maxLength: 4 })).map(([n, s]) => n + s.map((k) => `[${k}]`).join("")) },
    { weight: 1, arbitrary: fc.integer({ min: 17, max: 40 }).map((d) => `a${"[b]".repeat(d)}`) },
    { weight: 1, arbitrary: fc.constant(`a${"[b]".repeat(3000)}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: "binary" }) },
  );
}

/** A cursor as the API encodes it (lib/http/paging.ts), of any payload. */
export const encodeCursor = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
/** Forged cursor payloads: out-of-range dates, U+0000, lone surrogates, wrong types, oversized values. */
export const FORGED_CURSOR_PAYLOADS: { o: string; d: string; v: unknown; i: unknown }[] = [
  { o: "created_at", d: "desc", v: "+275760-09-13T00:00:00.000Z", i: "src_x" },
  { o: "created_at", d: "desc", v: "-271821-04-20T00:00:00.000Z", i: "src_x" },
  { o: "created_at", d: "desc", v: "+010000-01-01T00:00:00.000Z", i: "src_x" },
  { o: "created_at", d: "desc", v: "0000-01-01T00:00:00Z", i: "src_x" },
  { o: "created_at", d: "desc", v: "2026-01-01T00:00:00Z", i: "src_\u0000" },
  { o: "created_at", d: "desc", v: "2026-01-01\u0000", i: "x" },
  { o: "name", d: "asc", v: "a\u0000", i: "x" },
  { o: "name", d: "asc", v: "\ud800", i: "\udc00" },
  { o: "created_at", d: "desc", v: 1e308, i: null },
  { o: "created_at", d: "desc", v: "x".repeat(5000), i: "y" },
];
/** Forged outbound cursor payloads (`{t, i}`, lib/outbound/params.ts): the same classes. */
export const FORGED_OUTBOUND_CURSOR_PAYLOADS: { t: unknown; i: unknown }[] = [
  { t: "2026-01-01T00:00:00.000Z", i: "evt_\u0000" },
  { t: "-271821-04-20T00:00:00.000Z", i: "evt_x" },
  { t: "+275760-09-13T00:00:00.000Z", i: "evt_x" },
  { t: "2026-01-01T00:00:00.000Z", i: "\ud800" },
  { t: "2026-01-01T00:00:00.000Z", i: 5 },
  { t: 1e308, i: "x".repeat(5000) },
];
const FORGED_CURSORS = [
  ...FORGED_CURSOR_PAYLOADS.map(encodeCursor),
  ...FORGED_OUTBOUND_CURSOR_PAYLOADS.map(encodeCursor),
  encodeCursor([]),
  encodeCursor(null),
  "%FF",
  "AAAA",
];

function queryValueArb(): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "1",
        "0",
        "-1",
        "true",
        "false",
        "asc",
        "desc",
        "created_at",
        "name",
        "2026-01-01",
        "2026-02-30",
        "+275760-09-13",
        "1e400",
        "1e308",
        "99999999999999999999999",
        "NaN",
        "-0",
        "0x10",
        "FAILED",
        "SUCCESSFUL",
        "%00",
        "a%00b",
        "%FF",
        "%ED%A0%80",
        "%C0%80",
        "",
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "count",
        "rate",
        "tenant_id",
        "topic",
        "destination_id",
        "status",
        "1h",
        "1M",
        "9999w",
        "2026-01-01T00:00:00Z",
        "0001-01-01",
        "9999-12-31T23:59:59Z",
        "webhook",
        "light",
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom(...FORGED_CURSORS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        encodeURIComponent('{"__proto__":{"x":1}}'),
        encodeURIComponent(`${"[".repeat(5000)}${"]".repeat(5000)}`),
        encodeURIComponent('{"a":"\\u0000"}'),
        encodeURIComponent('{"a":"\\ud800"}'),
      ),
    },
    { weight: 2, arbitrary: fc.string({ maxLength: 20, unit: "binary" }).map(encodeURIComponent) },
  );
}

function queryArb(): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(queryKeyArb(), queryValueArb()), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, "[").replace(/%5D/g, "]")}=${v}`).join("&"));
}

/** A JSON value with the strings that break storage and the shapes that break recursion. */
function jsonArb(): fc.Arbitrary<string> {
  const nasty = fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\ud83d\ude00", "__proto__", "", "x".repeat(5000));
  const value = fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.oneof(
        fc.string({ maxLength: 12 }),
        nasty,
        fc.integer(),
        fc.double(),
        fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, 0, -1),
        fc.boolean(),
        fc.constant(null),
      ),
      fc.array(tie("v"), { maxLength: 4 }),
      fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.constantFrom(
            "name",
            "config",
            "url",
            "rules",
            "type",
            "source",
            "destination",
            "code",
            "request",
            "env",
            "__proto__",
            "constructor",
            "prototype",
            "\u0000",
            "status",
            "webhook_id",
            "source_id",
            "target",
            "webhook_ids",
            "cause",
            "body",
            "$or",
            "$in",
            "$ref",
            "gte",
          ),
        ),
        tie("v"),
        { maxKeys: 4 },
      ),
    ),
  })).v;
  const resource = fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 20 }), nasty),
      description: fc.oneof(fc.string({ maxLength: 20 }), nasty),
      type: fc.constantFrom("WEBHOOK", "HTTP", "CLI", "STRIPE", "filter", "transform", "__proto__"),
      config: value,
      source: fc.record({ name: fc.oneof(fc.string({ maxLength: 12 }), nasty) }),
      destination: fc.record({ name: fc.oneof(fc.string({ maxLength: 12 }), nasty), config: value }),
      rules: fc.array(fc.record({ type: fc.constantFrom("filter", "transform", "delay", "retry", "deduplicate"), body: value, headers: value, query: value }), {
        maxLength: 2,
      }),
      code: fc.constantFrom("addHandler('transform', (request) => request)", "x".repeat(10), "\u0000"),
      source_name: fc.oneof(fc.string({ maxLength: 12 }), nasty),
      event_id: fc.oneof(fc.string({ maxLength: 12 }), nasty),
      // Bulk operations, issue triggers, issues, bookmarks, notifications.
      query: value,
      configs: value,
      channels: value,
      status: fc.constantFrom("OPENED", "RESOLVED", "CLOSED", "", "__proto__"),
      event_data_id: fc.oneof(fc.string({ maxLength: 12 }), nasty, fc.constant("edt_x")),
      webhook_id: fc.oneof(fc.string({ maxLength: 12 }), nasty),
      label: fc.oneof(fc.string({ maxLength: 12 }), nasty),
      enabled: value,
      topics: value,
      source_id: fc.oneof(fc.string({ maxLength: 12 }), nasty),
    },
    { requiredKeys: [] },
  );
  // JSON.stringify keeps lone surrogates as \ud800 escapes and U+0000 as \u0000: both reach the server as sent.
  return fc.oneof(
    { weight: 4, arbitrary: resource.map((r) => JSON.stringify(r)) },
    { weight: 3, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 200 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`) },
    { weight: 1, arbitrary: fc.constant(`{"rules":[{"type":"filter","body":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}]}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"name":123456789012345678901234567890e99999}',
        '{"__proto__":{"x":1},"name":"p"}',
        '{"constructor":{"prototype":{"x":1}}}',
        "[",
        '{"a":',
        "nul",
        '"\\ud800"',
      ),
    },
  );
}

function bodyArb(): fc.Arbitrary<{ type?: string; body?: Buffer }> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 5, arbitrary: jsonArb().map((t) => ({ type: "application/json", body: Buffer.from(t) })) },
    { weight: 1, arbitrary: queryArb().map((q) => ({ type: "application/x-www-form-urlencoded", body: Buffer.from(q) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ type: "application/octet-stream", body: Buffer.from(b) })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(Buffer.from([0xff, 0xfe, 0x00, 0x7b]), Buffer.from('{"a":"\xff"}', "latin1"))
        .map((b) => ({ type: "application/json", body: b })),
    },
  );
}

function headersArb(ctx: FuzzContext, surface: Surface): fc.Arbitrary<Record<string, string>> {
  const own = surface === "outbound" || surface === "portal" ? ctx.outboundTokens : undefined;
  const auth = fc.oneof(
    { weight: own?.length ? 1 : 6, arbitrary: ctx.apiKeys.length ? fc.constantFrom(...ctx.apiKeys).map((k) => `Bearer ${k}`) : fc.constant("Bearer x") },
    { weight: own?.length ? 1 : 2, arbitrary: ctx.cliKeys.length ? fc.constantFrom(...ctx.cliKeys).map((k) => `Bearer ${k}`) : fc.constant("Bearer y") },
    { weight: own?.length ? 8 : 1, arbitrary: own?.length ? fc.constantFrom(...own).map((k) => `Bearer ${k}`) : fc.constant("Bearer z") },
    { weight: 1, arbitrary: fc.constantFrom("", "Bearer", "Basic", "Basic %%%", "Basic " + Buffer.from(":").toString("base64"), "Bearer " + "k".repeat(5000)) },
  );
  // Browser sessions: the portal's cookie (a tenant JWT), the dashboard's session cookie.
  const cookies = [...(ctx.outboundTokens ?? []).filter((t) => t.includes(".")).map((t) => `hy_portal=${t}`), ...(ctx.dashboardCookies ?? [])];
  const cookie = fc.option(cookies.length ? fc.constantFrom(...cookies) : fc.constant("hy_portal=x"), {
    nil: undefined,
    freq: surface === "portal" || surface === "dashboard" ? 2 : 6,
  });
  const latin1 = fc.string({ maxLength: 16, unit: "binary" }).map((s) => s.replace(/[^\x20-\x7e\x80-\xff]/g, "").trimStart());
  const extra = fc.dictionary(
    fc.constantFrom(
      "__proto__",
      "constructor",
      "x-gateway-source-name",
      "x-gateway-source-id",
      "accept",
      "cookie",
      "x-test",
      "content-encoding",
      "x-hub-signature-256",
    ),
    latin1,
    { maxKeys: 3 },
  );
  return fc
    .record({
      auth: fc.option(auth, { nil: undefined, freq: cookies.length && (surface === "portal" || surface === "dashboard") ? 2 : 5 }),
      extra,
      cookie,
      accept: fc.constantFrom("application/json", "text/html", "*/*", "text/event-stream"),
    })
    .map(({ auth, extra, cookie, accept }) => ({
      accept,
      ...extra,
      ...(cookie !== undefined ? { cookie } : {}),
      ...(auth !== undefined ? { authorization: auth } : {}),
    }));
}

/** Generated requests against the endpoints of every surface. `ip` gives each its own console rate-limit bucket. */
export function requestArb(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS.slice(0, 6)) }, { weight: 2, arbitrary: fc.constantFrom(...METHODS.slice(6)) }),
      pathAndHeaders: pathArb(ctx).chain((p) => headersArb(ctx, surfaceOf(p)).map((headers) => ({ p, headers }))),
      query: fc.option(queryArb(), { nil: undefined }),
      body: bodyArb(),
      ip: fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })),
    })
    .map(({ pathAndHeaders, ...rest }) => ({ ...rest, path: pathAndHeaders.p, headers: pathAndHeaders.headers }))
    .map(({ method, path: p, query, headers, body, ip }) => {
      // Request lines stay under Node's 16 KiB header limit (past it Node answers 431 and resets the socket).
      let q = query ?? "";
      while (q && `${p}?${q}`.length > 14_000) q = q.slice(0, Math.max(0, q.lastIndexOf("&")));
      return { method, query: q, p, headers, body, ip };
    })
    .map(({ method, p, query, headers, body, ip }) => ({
      method,
      path: query ? `${p}?${query}` : p,
      headers: { ...headers, "x-forwarded-for": `10.${ip.join(".")}`, ...(body.type ? { "content-type": body.type } : {}) },
      ...(body.body && method !== "GET" && method !== "HEAD" ? { body: body.body } : {}),
    }));
}

/**
 * Sends `r` to `base` with node:http and resolves with the status and up to 4 KiB of body. Event
 * streams are cut as soon as they answer. Rejects on a socket error or after `timeoutMs` without an answer.
 */
export function send(base: string, r: FuzzRequest, timeoutMs = 20_000): Promise<FuzzAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: r.method,
      path: r.path,
      headers: { ...r.headers, ...(r.body ? { "content-length": String(r.body.length) } : {}) },
      agent: false,
      maxHeaderSize: 256 * 1024,
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms: ${r.method} ${r.path.slice(0, 200)}`));
    }, timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on("response", (res) => {
      const contentType = String(res.headers["content-type"] ?? "");
      let body = "";
      const done = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, contentType, body });
      };
      if (contentType.startsWith("text/event-stream")) {
        done();
        req.destroy();
        return;
      }
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        if (body.length < 4096) body += d;
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.end(r.body);
  });
}

/** `METHOD path` shortened for reports. */
export const describeRequest = (r: FuzzRequest) =>
  `${r.method} ${r.path.length > 160 ? `${r.path.slice(0, 160)}…(${r.path.length})` : r.path}${r.body ? ` body=${JSON.stringify(r.body.toString("utf8").slice(0, 120))}` : ""}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why answer `a` to `r` is not in the error body of the surface `r` addressed, or null when it is (or
 * is no JSON 4xx): the outbound API, the portal and the dashboard answer `{status, message}`, the gateway
 * `{handled, status, message, data}`, the CLI channel `{error, message}`, the console `{code, status, data}`
 * (or its 429 `{error, message, retry_after}`). Ingestion answers as each source is configured, and a HEAD
 * answer has no body: not checked.
 */
export function shapeProblem(r: FuzzRequest, a: FuzzAnswer): string | null {
  if (a.status < 400 || a.status >= 500 || r.method === "HEAD" || !a.contentType.startsWith("application/json")) return null;
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return a.body.length >= 4096 ? null : "the body is not JSON";
  }
  if (!isObject(body)) return "the body is not an object";
  const surface = surfaceOf(r.path.split("?")[0]);
  const ok = (() => {
    switch (surface) {
      case "outbound":
      case "portal":
      case "dashboard":
        return body.status === a.status && typeof body.message === "string";
      case "gateway":
        return typeof body.handled === "boolean" && body.status === a.status && typeof body.message === "string" && "data" in body;
      case "cli":
        return typeof body.error === "string" && typeof body.message === "string";
      case "console":
        return a.status === 429
          ? typeof body.error === "string" && typeof body.retry_after === "number"
          : typeof body.code === "string" && body.status === a.status && Array.isArray(body.data);
      case "ingest":
        return true;
    }
  })();
  return ok ? null : `not the ${surface} error body`;
}

/**
 * Outbound credentials and ids for the fuzz, made on the server at `base`: an admin key and a tenant's JWT
 * (also the portal cookie), that tenant, a destination and a published event; the dashboard session
 * cookie of a new user of `teamId`. Needs DATABASE_URL (keys and users are made directly). Throws when a
 * step fails.
 */
export async function outboundFuzzContext(base: string, teamId: string): Promise<Pick<FuzzContext, "outboundTokens" | "outboundIds" | "dashboardCookies">> {
  const { createOutboundKey } = await import("@/lib/outbound/auth");
  const { createUser } = await import("@/lib/dashboard/users");
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const admin = (await createOutboundKey(`fuzz-${run}`)).key;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}/outbound/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const tenant = `fuzz-${run}`;
  await call("PUT", `/tenants/${tenant}`, { metadata: { a: "b" } });
  const destination = await call("POST", `/tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: "http://127.0.0.1:9/fuzz" } });
  const event = await call("POST", "/publish", { tenant_id: tenant, topic: "fuzz.created", data: { a: 1 } });
  const { token } = await call("GET", `/tenants/${tenant}/token`);
  // A dashboard session: next-auth's csrf, then the credentials callback.
  const password = `pw-${run}-long-enough`;
  const email = `fuzz-${run}@example.test`;
  await createUser(email, password, teamId, { operator: true });
  const ip = { "x-forwarded-for": `10.99.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` };
  const csrf = await fetch(`${base}/dashboard/api/auth/csrf`, { headers: ip });
  const csrfCookies = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await fetch(`${base}/dashboard/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...ip, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies, origin: base },
    body: new URLSearchParams({ email, password, csrfToken, json: "true" }),
  });
  const session = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith("hookyard.dashboard-session="));
  return { outboundTokens: [admin, token], outboundIds: [tenant, destination.id, event.id].filter(Boolean), dashboardCookies: session ? [session] : [] };
}
