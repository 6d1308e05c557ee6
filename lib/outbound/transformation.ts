/**
 * Transformations of outbound destinations (docs/outbound.md "Transformations"): a destination's optional
 * JavaScript (`addHandler("transform", (request, context) => request)`), run on each delivery before it
 * is sent, in the gateway's sandbox and thread pool (lib/rules/run-transformation.ts: same limits, same
 * pool). This file holds what the destinations API, the delivery and the test-run endpoint share:
 *
 * - what the code sees: `request` = `{headers, body, path, query, parsed_query}`. HTTP types (webhook,
 *   standard webhook): the request headers before signing, the event's data, and the URL's path and query.
 *   Other types: the delivery's metadata as `headers`, the data as `body`; `path` and `query` are "" and
 *   what the code returns for them is ignored. `context` = `{event: {id, topic, time, metadata},
 *   destination: {id, tenant_id, type}}`.
 * - what its answer changes: the body sent (a string as is, anything else as JSON; an unchanged body keeps
 *   its bytes), the headers (HTTP types; signature headers are added afterwards, over the body sent) or the
 *   metadata (other types), and for HTTP types the URL's path and query (never its origin).
 * - the record of a run ({@link TransformationOutput}), kept with the attempt and answered by the test run.
 * - who may do what: the admin key always; a tenant as OUTBOUND_PORTAL_TRANSFORMATIONS (managed form:
 *   the `PORTAL_TRANSFORMATIONS` setting of `PATCH /config`) says.
 */
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { parseQueryString } from "@/lib/http/query";
import { runTransformation, type TransformRequest } from "@/lib/rules/run-transformation";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { type Claimed, metadataOf, type OutboundDelivery, type OutboundDestinationType } from "@/lib/outbound/destination-types/type";
import { outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import { outboundConfig } from "@/lib/outbound/settings";

/** Largest transformation, bytes of UTF-8 (the gateway's limit). */
const CODE_MAX_BYTES = 100 * 1024;
/** Largest transformed body kept with an attempt, bytes of its JSON; a larger one is replaced by a note. */
const STORED_BODY_MAX_BYTES = 64 * 1024;
/** Headers the HTTP sender sets itself: a transformation's values for them are dropped. */
const SENDER_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "expect", "te", "trailer"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The `transformation` field of a destination's create and update bodies: JavaScript, or null for none. */
export const ZTransformationCode = z
  .string()
  .min(1)
  .refine((code) => Buffer.byteLength(code, "utf8") <= CODE_MAX_BYTES, { message: `must be at most ${CODE_MAX_BYTES} bytes` })
  .nullable()
  .meta({
    description: `JavaScript calling addHandler("transform", (request, context) => request), run on each delivery (docs/outbound.md "Transformations"); null: none. At most ${CODE_MAX_BYTES} bytes.`,
  });

const ZConsoleLine = z.object({ type: z.enum(["log", "info", "warn", "error", "debug"]), message: z.string() });

/** What one run made of a delivery: the answer of the test run, and `transformation` of an attempt (`include=transformation`). */
export const ZTransformationOutput = z
  .object({
    log_level: z.enum(["debug", "info", "warn", "error", "fatal"]),
    request: z
      .object({
        headers: z.record(z.string(), z.string()).meta({ description: "HTTP types: the request headers before signing; other types: the metadata" }),
        body: z.unknown(),
        url: z.string().optional().meta({ description: "HTTP types: the URL the delivery is sent to" }),
        path: z.string().optional(),
        query: z.string().optional(),
      })
      .optional()
      .meta({ description: "The delivery as transformed; absent when the code failed" }),
    console: z.array(ZConsoleLine),
    error: z.string().optional().meta({ description: "Why the code failed; the delivery was then not sent" }),
  })
  .meta({ description: 'What a transformation run made of a delivery (docs/outbound.md "Transformations")' });
export type TransformationOutput = z.infer<typeof ZTransformationOutput>;

/** `POST …/destinations/{id}/transformation/test`: `code` (default: the saved one) run on an event of the tenant or a sample. */
export const ZTransformationTest = z
  .strictObject({
    code: ZTransformationCode.unwrap().optional().meta({ description: "Code to try (default: the destination's saved transformation)" }),
    event_id: z.string().min(1).optional().meta({ description: "An event of the tenant to run it on" }),
    sample: z
      .strictObject({
        topic: z.string().min(1).optional(),
        data: z.unknown().optional(),
        metadata: z.record(z.string(), z.string()).optional(),
      })
      .optional()
      .meta({ description: "A made-up event (default `{data: {}}`) when no event_id is given" }),
  })
  .refine((b) => b.event_id === undefined || b.sample === undefined, { message: "give event_id or sample, not both", path: ["event_id"] });

/** What a caller may do with transformations: the admin key `edit`; a tenant as OUTBOUND_PORTAL_TRANSFORMATIONS says. */
export const transformationAccess = (caller: OutboundCaller): "edit" | "read" | "off" =>
  caller.kind === "admin" ? "edit" : outboundConfig().portalTransformations;

/**
 * Checks that `caller` may set a destination's transformation from `current` to `given` (undefined: not
 * given, no change). Throws 403 for a tenant without `edit` access that changes it.
 */
export function assertMayWrite(caller: OutboundCaller, given: string | null | undefined, current: string | null): void {
  if (given === undefined || given === current) return;
  if (transformationAccess(caller) !== "edit") throw outboundForbidden("transformations cannot be changed with a tenant token on this deployment");
}

/**
 * A destinations route's answer for `caller` (one destination or a list): without `transformation` for a
 * tenant whose access is `off`; unchanged otherwise.
 */
export async function shownTo<R extends { status?: number; body: unknown }>(caller: OutboundCaller, answer: Promise<R>): Promise<R> {
  const r = await answer;
  if (transformationAccess(caller) !== "off") return r;
  const strip = (d: unknown) => {
    if (typeof d !== "object" || d === null || !("transformation" in d)) return d;
    const { transformation: _hidden, ...rest } = d as Record<string, unknown>;
    return rest;
  };
  return { ...r, body: Array.isArray(r.body) ? r.body.map(strip) : strip(r.body) };
}

const MARK_OK = "__hookyard_transformation_ok__";
const MARK_NO_HANDLER = "__hookyard_transformation_no_handler__";

/**
 * Checks `code` before it is saved: it must parse, its top-level code must run without throwing and it
 * must call `addHandler("transform", …)`. The handler itself is not called (its faults depend on the
 * event: they fail deliveries, and the test run shows them); a run limit reached here (time, memory) is not
 * held against the code, since a busy machine reaches them too. One sandbox run, refused with
 * 429 when the pool is busy. Returns the 422 messages (`transformation: …`), empty when it is fine.
 */
export async function checkTransformationCode(code: string): Promise<string[]> {
  // On the code's first line (its line numbers stay), addHandler is watched; after it, a throw ends the run
  // before the handler would be called, saying whether it was registered.
  const probe =
    `{ const add = globalThis.addHandler; globalThis.addHandler = (...a) => { globalThis.__hookyardAdded = true; return add(...a); }; }` +
    `${code}\n;throw globalThis.__hookyardAdded ? "${MARK_OK}" : "${MARK_NO_HANDLER}";`;
  const result = await runTransformation({ code: probe, request: { headers: {}, body: null, path: "/", query: "", parsed_query: {} }, whenBusy: "refuse" });
  if (result.ok) return [];
  if (result.error === `Uncaught ${MARK_OK}`) return [];
  if (result.error === `Uncaught ${MARK_NO_HANDLER}`) return ['transformation: the code never calls addHandler("transform", (request, context) => …)'];
  // A limit reached here may be the machine's load as much as the code's: deliveries (and the test run) report it.
  if (/^(Timeout|Out of memory):/.test(result.error)) return [];
  return [`transformation: ${result.error.split("\n")[0]}`];
}

/** The event's data as the code sees it: parsed JSON, else the text. */
function bodyOf(data: Buffer): unknown {
  const text = data.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The request the code is given for delivery `d` of a destination of `type`. */
function inputOf(type: OutboundDestinationType, d: OutboundDelivery): TransformRequest {
  const body = bodyOf(d.claimed.data);
  if (!type.requestHeaders) return { headers: metadataOf(d.claimed), body, path: "", query: "", parsed_query: {} };
  const url = new URL(d.config.url);
  const query = url.search.replace(/^\?/, "");
  return { headers: type.requestHeaders(d), body, path: url.pathname, query, parsed_query: parseQueryString(query) };
}

/** Problems of returned headers as a message, or null: names must be HTTP tokens and values single-line. */
function badHeader(headers: Record<string, string>): string | null {
  for (const [k, v] of Object.entries(headers)) {
    if (!HEADER_NAME.test(k)) return `The returned header name ${JSON.stringify(k)} is not a valid HTTP header name`;
    if (/[\r\n\0]/.test(v)) return `The returned header ${k} holds a line break or NUL`;
  }
  return null;
}

/** The transformed body as stored with an attempt: as returned, or a note when its JSON passes STORED_BODY_MAX_BYTES. */
function storable(body: unknown, bytes: number): unknown {
  return bytes > STORED_BODY_MAX_BYTES ? `[transformed body of ${bytes} bytes, not stored]` : body;
}

type Applied = { ok: true; delivery: OutboundDelivery; output: TransformationOutput } | { ok: false; output: TransformationOutput };

/**
 * Runs `code` on delivery `d` of a destination of `type` and applies its answer (see the file's
 * docstring). Never throws for the code's faults: they give `{ok: false}` with the error in `output`. With
 * `whenBusy` "refuse" (the test run) a full pool throws 429; "queue" (deliveries) waits for a thread.
 * `forStorage`: `output.request.body` is capped for the attempt record (STORED_BODY_MAX_BYTES), else as returned.
 */
export async function applyTransformation(
  type: OutboundDestinationType,
  d: OutboundDelivery,
  code: string,
  options: { whenBusy: "queue" | "refuse"; forStorage: boolean },
): Promise<Applied> {
  const c = d.claimed;
  const input = inputOf(type, d);
  const result = await runTransformation({
    code,
    request: input,
    context: {
      event: { id: c.event_id, topic: c.topic, time: c.time.toISOString(), metadata: c.metadata ?? {} },
      destination: { id: c.destination_id, tenant_id: c.tenant_id, type: type.type },
    },
    whenBusy: options.whenBusy,
  });
  const fail = (error: string, console = result.console): Applied => ({
    ok: false,
    output: { log_level: "fatal", console, error },
  });
  if (!result.ok) return fail(result.error);
  const out = result.request;
  const sameBody = JSON.stringify(out.body) === JSON.stringify(input.body);
  const data = sameBody ? c.data : Buffer.from(typeof out.body === "string" ? out.body : (JSON.stringify(out.body) ?? "null"), "utf8");
  const headers = Object.fromEntries(Object.entries(out.headers).filter(([k]) => !(type.requestHeaders && SENDER_HEADERS.has(k.toLowerCase()))));
  const bad = type.requestHeaders ? badHeader(headers) : null;
  if (bad) return fail(bad, [...result.console, { type: "error", message: bad }]);
  const body = options.forStorage ? storable(out.body, data.length) : out.body;
  if (!type.requestHeaders) {
    return {
      ok: true,
      delivery: { ...d, claimed: { ...c, data, transformed_metadata: headers } },
      output: { log_level: result.logLevel, request: { headers, body }, console: result.console },
    };
  }
  const url = new URL(d.config.url);
  url.pathname = out.path.startsWith("/") ? out.path : `/${out.path}`;
  url.search = out.query ? `?${out.query}` : "";
  const request = { headers, body, url: url.toString(), path: url.pathname, query: url.search.replace(/^\?/, "") };
  return {
    ok: true,
    delivery: { ...d, claimed: { ...c, data }, request: { headers, url: request.url } },
    output: { log_level: result.logLevel, request, console: result.console },
  };
}

/**
 * `POST /tenants/{tid}/destinations/{id}/transformation/test` (docs/outbound.md "Transformations"): runs
 * `code` (default: the destination's transformation) on event `event_id` of the tenant or on `sample`,
 * as a delivery to this destination would, without sending anything. 200 with {@link TransformationOutput}
 * even when the code fails. Throws 404 (destination, event), 403 (a tenant whose access is `off`, or `read`
 * with `code`), 422 (bad body; no code given and none saved), 429 (sandbox pool busy).
 */
export async function testTransformation(tenantId: string, destinationId: string, input: unknown, caller: OutboundCaller) {
  const access = transformationAccess(caller);
  if (access === "off") throw outboundForbidden("transformations are not available with a tenant token on this deployment");
  const dest = await getPrisma().outboundDestination.findFirst({ where: { id: destinationId, tenantId } });
  if (!dest) throw outboundNotFound("destination not found");
  const body = ZTransformationTest.parse(input ?? {});
  if (body.code !== undefined && access !== "edit") throw outboundForbidden("transformations cannot be changed with a tenant token on this deployment");
  const code = body.code ?? dest.transformation;
  if (!code) throw outboundInvalid(["code is required: the destination has no transformation"]);
  const type = OUTBOUND_DESTINATION_TYPES.find(dest.type);
  if (!type) throw outboundInvalid([`type: ${dest.type} is not a destination type`]);
  let event: Pick<Claimed, "event_id" | "topic" | "time" | "metadata" | "data">;
  if (body.event_id !== undefined) {
    const { rows } = await getPool().query<{ id: string; topic: string; time: Date; metadata: Record<string, string> | null; data: Buffer }>(
      "SELECT id, topic, time, metadata, data FROM outbound_events WHERE id = $1 AND tenant_id = $2 LIMIT 1",
      [body.event_id, tenantId],
    );
    if (!rows[0]) throw outboundNotFound("event not found");
    event = { event_id: rows[0].id, topic: rows[0].topic, time: rows[0].time, metadata: rows[0].metadata, data: rows[0].data };
  } else {
    const s = body.sample ?? {};
    const topic = s.topic ?? dest.topics.find((t) => t !== "*") ?? "sample";
    event = { event_id: "evt_sample", topic, time: new Date(), metadata: s.metadata ?? null, data: Buffer.from(JSON.stringify(s.data ?? {}), "utf8") };
  }
  const claimed = {
    ...event,
    destination_id: dest.id,
    tenant_id: tenantId,
    delivery_metadata: (dest.deliveryMetadata as Record<string, string> | null) ?? null,
  } as Claimed;
  const delivery: OutboundDelivery = {
    claimed,
    config: dest.config as Record<string, string>,
    credentials: {}, // nothing is signed: the signature headers are added after the transformation
  };
  const applied = await applyTransformation(type, delivery, code, { whenBusy: "refuse", forStorage: false });
  return { body: applied.output };
}
