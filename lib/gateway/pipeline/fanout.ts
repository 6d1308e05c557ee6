/**
 * Fan-out (docs/pipeline.md#delivery-engine, "Fan-out"): turns committed requests into
 * events, one per active connection of their source, through each connection's rules:
 * filter and transform steps in order (executionOrder: array order from 2025-07-01, transformations
 * first for rules written by older versions), then deduplicate, then delay. A connection that is paused
 * makes HOLD events; disabled connections or destinations give ignored events (DISABLED).
 *
 * Workers drain the `request_fanouts` rows ingestion writes with each accepted request
 * (fanOutPending, woken by ingestion's NOTIFY): rows are claimed with `FOR UPDATE SKIP LOCKED`, and the
 * events are written and the rows deleted in that same transaction, so a request is fanned out once,
 * and a crash before the commit leaves the rows for the next drain.
 */
import type pg from "pg";
import { decryptJson } from "@/lib/crypto/secrets";
import { getBackgroundPool, getPool } from "@/lib/db/pool";
import { inTransaction, inTransactionFrom } from "@/lib/db/transaction";
import { claimEvents, newLease } from "@/lib/gateway/delivery/deliver-event";
import { dispatchClaimed } from "@/lib/gateway/delivery/dispatch-queue";
import { type DeliveryRow, EVENT_DELIVERY_COLUMNS, SELECT_DELIVERY, type TransformedData } from "@/lib/gateway/delivery/event-delivery";
import { enqueueDeliveries } from "@/lib/delivery/jobs";
import { executionOrder } from "@/lib/gateway/connections/rule-order";
import { type DeduplicateRule, dedupDigest, rawDedupDigest } from "@/lib/gateway/pipeline/deduplicate";
import { serializeBody, toRuleRequest } from "@/lib/gateway/pipeline/event-request";
import { type FilterRule, failedFilterParts } from "@/lib/rules/filter";
import { runTransformation, type TransformRequest } from "@/lib/rules/run-transformation";
import { createId } from "@/lib/ids";
import { storableJson } from "@/lib/ingest/storable";
import { logger } from "@/lib/log";
import { freshOrderingPos, type Ordering, orderingKeyOf, storedOrdering } from "@/lib/gateway/delivery/ordering";
import { endSpan, type Span, startSpan, tracingEnabled, traceparentOf } from "@/lib/tracing";

const log = logger("fanout");

type Rule = { type: string } & Record<string, unknown>;

type FanoutConnection = {
  id: string;
  team_id: string;
  name: string;
  source_id: string;
  source_name: string;
  destination_id: string;
  destination_name: string;
  destination_type: string;
  /** The destination's ordered delivery setting (docs/pipeline.md "Ordered delivery"), null unordered. */
  destination_ordering: Ordering | null;
  rules: Rule[];
  rules_version: string;
  paused: boolean;
  /** The connection or its destination is disabled. */
  disabled: boolean;
};

/** A request to fan out; its raw data (method … content_type) is only loaded when a connection's rules read it. */
/** A request as the fan-out reads it: its row, and its raw data when a connection's rules read it. */
export type RequestRow = {
  id: string;
  team_id: string;
  source_id: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  content_type: string | null;
  /** W3C traceparent its events are created under (the fan-out span's, else the ingest span's); null untraced. */
  trace_parent?: string | null;
};

/** `data`: `events.data` as storable JSON text (eventDataJson), null for the request as received. */
type EventRow = {
  id: string;
  request: RequestRow;
  connection: FanoutConnection;
  status: "QUEUED" | "SCHEDULED" | "HOLD";
  nextAttemptAt: Date | null;
  data: string | null;
  dedup?: { digest: string; window: number };
  /** Its ordering key at an ordered destination, else null. */
  orderingKey: string | null;
};
type IgnoredRow = { request: RequestRow; connection: FanoutConnection; cause: string; meta: unknown };
type ExecutionRow = {
  id: string;
  teamId: string;
  transformationId: string;
  connectionId: string;
  requestId: string;
  eventId: string | null;
  logLevel: string;
  logs: unknown;
  original: unknown;
  transformed: unknown;
};

type ConnectionRow = Omit<FanoutConnection, "paused" | "disabled"> & { paused_at: unknown; disabled_at: unknown; destination_disabled_at: unknown };

/** The columns of a source's connections, in fan-out order (`w` connections, `s` sources, `d` destinations). */
const CONNECTION_COLUMNS = `w.id, w.team_id, w.name, w.source_id, s.name AS source_name, w.destination_id, d.name AS destination_name, d.type AS destination_type,
       d.ordering AS destination_ordering, w.rules, w.rules_version, w.paused_at, w.disabled_at, d.disabled_at AS destination_disabled_at`;
const CONNECTIONS_FROM = "connections w JOIN sources s ON s.id = w.source_id JOIN destinations d ON d.id = w.destination_id";

const toConnection = (r: ConnectionRow): FanoutConnection => ({
  ...r,
  rules: Array.isArray(r.rules) ? r.rules : [],
  destination_ordering: storedOrdering(r.destination_ordering),
  paused: r.paused_at !== null,
  disabled: r.disabled_at !== null || r.destination_disabled_at !== null,
});

/**
 * The connections of `sourceIds`, read fresh: a connection created, paused or changed just before a
 * request arrived applies to it (one query serves a whole batch). The fan-out loop reads them in its
 * claim instead (claimFanoutsSql), in the same snapshot.
 */
async function connectionsFor(sourceIds: string[]): Promise<Map<string, FanoutConnection[]>> {
  const out = new Map<string, FanoutConnection[]>(sourceIds.map((id) => [id, []]));
  const { rows } = await getBackgroundPool().query<ConnectionRow>({
    name: "hookyard-fanout-connections",
    text: `SELECT ${CONNECTION_COLUMNS} FROM ${CONNECTIONS_FROM} WHERE w.source_id = ANY($1) ORDER BY w.created_at, w.id`,
    values: [sourceIds],
  });
  for (const r of rows) out.get(r.source_id)!.push(toConnection(r));
  return out;
}

/** Transformations read during one fan-out batch (id → code and decrypted env, or null when deleted). */
type TransformationMemo = Map<string, Promise<{ code: string; env: Record<string, string> } | null>>;

/** The database failed to read a transformation: the batch is retried, not the request ignored. */
class LookupFailed extends Error {
  constructor(readonly reason: unknown) {
    super("could not read a transformation");
  }
}

function transformation(id: string, memo: TransformationMemo): Promise<{ code: string; env: Record<string, string> } | null> {
  let hit = memo.get(id);
  if (!hit) {
    hit = getBackgroundPool()
      .query<{ code: string; env_encrypted: string | null }>("SELECT code, env_encrypted FROM transformations WHERE id = $1", [id])
      .catch((err: unknown) => Promise.reject(new LookupFailed(err)))
      .then(({ rows }) => (rows[0] ? { code: rows[0].code, env: decryptJson<Record<string, string>>(rows[0].env_encrypted) ?? {} } : null));
    memo.set(id, hit);
  }
  return hit;
}

type Outcome =
  | { kind: "event"; data: TransformRequest | null; request: TransformRequest | null; executions: Omit<ExecutionRow, "eventId">[] }
  | { kind: "ignored"; cause: string; meta: unknown; executions: Omit<ExecutionRow, "eventId">[] };

async function applySteps(req: RequestRow, connection: FanoutConnection, memo: TransformationMemo): Promise<Outcome> {
  const executions: Omit<ExecutionRow, "eventId">[] = [];
  const { steps } = executionOrder(connection.rules, connection.rules_version);
  // No filter or transformation: the request is the event as received (parsed only if dedup needs it).
  if (steps.length === 0) return { kind: "event", data: null, request: null, executions };
  let current = toRuleRequest(req);
  let transformed = false;
  for (const rule of steps) {
    if (rule.type === "filter") {
      const failed = failedFilterParts(rule as unknown as FilterRule, current);
      if (failed.length) return { kind: "ignored", cause: "FILTERED", meta: failed, executions };
    } else if (rule.type === "transform") {
      const transformationId = typeof rule.transformation_id === "string" ? rule.transformation_id : "";
      const t = await transformation(transformationId, memo);
      if (!t) return { kind: "ignored", cause: "TRANSFORMATION_FAILED", meta: { transformation_id: transformationId }, executions };
      const context = {
        connection: {
          id: connection.id,
          name: connection.name,
          full_name: `${connection.source_name} -> ${connection.name}`,
          source: { id: connection.source_id, name: connection.source_name },
          destination: { id: connection.destination_id, name: connection.destination_name },
        },
      };
      const result = await runTransformation({ code: t.code, env: t.env, request: current, context });
      executions.push({
        id: createId("execution"),
        teamId: req.team_id,
        transformationId,
        connectionId: connection.id,
        requestId: req.id,
        logLevel: result.logLevel,
        logs: result.ok ? result.console : [...result.console, { type: "error", message: result.error }],
        original: current,
        transformed: result.ok ? result.request : null,
      });
      if (!result.ok) return { kind: "ignored", cause: "TRANSFORMATION_FAILED", meta: { transformation_id: transformationId }, executions };
      current = result.request;
      transformed = true;
    }
  }
  return { kind: "event", data: transformed ? current : null, request: current, executions };
}

type Outcomes = { events: EventRow[]; ignored: IgnoredRow[]; executions: ExecutionRow[] };
/** What one request gives on one connection: written together, or, after a failed write, in isolation. */
type PairOutcomes = Outcomes & { request: RequestRow; connection: FanoutConnection };

/** The outcomes of every pair, for one multi-row write. */
const merged = (pairs: PairOutcomes[]): Outcomes => ({
  events: pairs.flatMap((p) => p.events),
  ignored: pairs.flatMap((p) => p.ignored),
  executions: pairs.flatMap((p) => p.executions),
});

/**
 * `events.data` of a transformed request (lib/gateway/delivery/event-delivery.ts TransformedData) as JSON text
 * `jsonb` stores: the body as the text delivered, or, when that text holds U+0000, as `body_base64`
 * (the bytes delivered stay exact); U+0000 and lone surrogates in the path, query and headers are
 * written as their escapes (lib/ingest/storable.ts). Throws a RangeError when the output cannot be
 * written as JSON at all (nested too deep).
 */
function eventDataJson(t: TransformRequest): string {
  const body = serializeBody(t.body);
  const text = body?.toString("utf8") ?? null;
  const base = { path: t.path, query: t.query, headers: t.headers };
  const data: TransformedData = body && text!.includes("\u0000") ? { ...base, body: null, body_base64: body.toString("base64") } : { ...base, body: text };
  const json = storableJson(data);
  if (json === null) throw new RangeError("the transformation's output cannot be written as JSON");
  return json;
}

/** The transformation a connection's failure is put down to: the last one that ran, else its first transform rule's. */
function transformationOf(connection: FanoutConnection, executions: { transformationId: string }[]): string | null {
  const ran = executions.at(-1)?.transformationId;
  if (ran) return ran;
  const rule = connection.rules.find((r) => r.type === "transform");
  return rule ? (typeof rule.transformation_id === "string" ? rule.transformation_id : "") : null;
}

/**
 * Runs one connection's rules on one request. A failure of the rules or of building the event (a
 * transformation's output that cannot be delivered, a body nested too deep to compare) ends as an
 * ignored event TRANSFORMATION_FAILED; a deduplicate rule that cannot compare the parsed request
 * compares its raw data instead (rawDedupDigest). Throws only the database's error when it could not
 * read a transformation (the batch is then retried whole).
 */
async function pairOutcomes(req: RequestRow, connection: FanoutConnection, memo: TransformationMemo, now: number): Promise<PairOutcomes> {
  const out: PairOutcomes = { request: req, connection, events: [], ignored: [], executions: [] };
  if (connection.disabled) {
    out.ignored.push({ request: req, connection, cause: "DISABLED", meta: null });
    return out;
  }
  let outcome: Outcome | undefined;
  const id = createId("event", now);
  try {
    outcome = await applySteps(req, connection, memo);
    if (outcome.kind === "event") {
      const delay = connection.rules.find((r) => r.type === "delay");
      const dedupRule = connection.rules.find((r) => r.type === "deduplicate") as DeduplicateRule | undefined;
      const delayMs = delay ? Number(delay.delay) || 0 : 0;
      const status = connection.paused ? "HOLD" : delayMs > 0 ? "SCHEDULED" : "QUEUED";
      let digest: string | undefined;
      if (dedupRule) {
        try {
          digest = dedupDigest(dedupRule, outcome.request ?? toRuleRequest(req));
        } catch {
          digest = rawDedupDigest(req);
        }
      }
      const ordering = connection.destination_ordering;
      const orderingKey = ordering ? orderingKeyOf(ordering, ordering.key ? (outcome.request ?? toRuleRequest(req)) : EMPTY_REQUEST) : null;
      out.events.push({
        id,
        request: req,
        connection,
        status,
        // An ordered event waits for its key (no due time) until it is the key's head.
        nextAttemptAt: status === "HOLD" || (orderingKey !== null && status === "QUEUED") ? null : new Date(now + delayMs),
        data: outcome.data ? eventDataJson(outcome.data) : null,
        dedup: dedupRule ? { digest: digest!, window: dedupRule.window } : undefined,
        orderingKey,
      });
    }
  } catch (err) {
    if (err instanceof LookupFailed) throw err.reason;
    log.error(`rules of ${connection.id} failed on ${req.id}`, err);
    const executions = outcome?.executions ?? [];
    const transformationId = transformationOf(connection, executions);
    outcome = { kind: "ignored", cause: "TRANSFORMATION_FAILED", meta: transformationId === null ? null : { transformation_id: transformationId }, executions };
  }
  if (outcome.kind === "ignored") {
    out.ignored.push({ request: req, connection, cause: outcome.cause, meta: outcome.meta });
    for (const e of outcome.executions) out.executions.push({ ...e, eventId: null });
  } else {
    for (const e of outcome.executions) out.executions.push({ ...e, eventId: id });
  }
  return out;
}

/** The rule view of nothing: what an ordering without a key path reads (it reads nothing). */
const EMPTY_REQUEST: TransformRequest = { headers: {}, body: null, path: "", query: "", parsed_query: {} };

const REQUESTS_SQL = "SELECT r.id, r.team_id, r.source_id FROM requests r WHERE r.id = ANY($1) ORDER BY r.id";
const RAW_SQL = "SELECT request_id, method, path, query, headers, body, content_type FROM request_raw_data WHERE request_id = ANY($1)";

/** True when the connection's rules (filter, transform, deduplicate) or its destination's ordering key read the request. */
const readsRequest = (c: FanoutConnection) =>
  !c.disabled && (Boolean(c.destination_ordering?.key) || c.rules.some((r) => r.type === "filter" || r.type === "transform" || r.type === "deduplicate"));

/** Adds the raw data to the requests whose connections' rules read it (the others need only their ids). */
async function loadRawData(requests: RequestRow[], bySource: Map<string, FanoutConnection[]>): Promise<void> {
  // Rows handed in with their raw data (fanOutInTransaction's `requests`) are not read again.
  const needed = requests.filter((r) => (r as Partial<RequestRow>).method === undefined && (bySource.get(r.source_id) ?? []).some(readsRequest));
  if (needed.length === 0) return;
  const { rows } = await getBackgroundPool().query<Omit<RequestRow, "id" | "team_id" | "source_id"> & { request_id: string }>(RAW_SQL, [
    needed.map((r) => r.id),
  ]);
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  for (const r of needed) Object.assign(r, byId.get(r.id));
}

/**
 * Runs every connection's rules on `requests`, one result per (request, connection) pair;
 * `connectionIds` limits the connections. `bySource` gives the sources' connections when the caller
 * read them already (else they are read here). Throws only on database errors.
 */
async function computeOutcomes(
  requests: RequestRow[],
  now: number,
  connectionIds?: readonly string[],
  bySource?: Map<string, FanoutConnection[]>,
): Promise<PairOutcomes[]> {
  const out: PairOutcomes[] = [];
  if (requests.length === 0) return out;
  bySource ??= await connectionsFor([...new Set(requests.map((r) => r.source_id))]);
  const memo: TransformationMemo = new Map();
  await loadRawData(requests, bySource);
  for (const req of requests) {
    for (const connection of bySource.get(req.source_id) ?? []) {
      if (connectionIds && !connectionIds.includes(connection.id)) continue;
      out.push(await pairOutcomes(req, connection, memo, now));
    }
  }
  return out;
}

/**
 * Claims up to `limit` pending requests, oldest first, in one statement: deletes their `request_fanouts`
 * rows (`FOR UPDATE SKIP LOCKED`, so concurrent workers share the work) and returns the requests (null
 * columns for a request deleted meanwhile), the first row of each source with that source's connections
 * (JSON, in fan-out order). Parameterless (`limit` and the `skip` ids are inlined), so it can travel with BEGIN.
 */
const claimFanoutsSql = (limit: number, skip: readonly string[] = []) => `
WITH f AS (
  DELETE FROM request_fanouts WHERE request_id IN (
    SELECT request_id FROM request_fanouts ${skip.length ? `WHERE request_id NOT IN (${skip.map(sqlString).join(", ")})` : ""}
     ORDER BY request_id LIMIT ${Math.max(1, Math.floor(limit))} FOR UPDATE SKIP LOCKED)
  RETURNING request_id, trace_parent),
q AS (SELECT f.request_id AS id, r.team_id, r.source_id, f.trace_parent, row_number() OVER (PARTITION BY r.source_id ORDER BY f.request_id) AS n
        FROM f LEFT JOIN requests r ON r.id = f.request_id)
SELECT q.id, q.team_id, q.source_id, q.trace_parent,
       CASE WHEN q.n = 1 AND q.source_id IS NOT NULL THEN
         (SELECT coalesce(json_agg(c ORDER BY c.created_at, c.id), '[]') FROM (SELECT ${CONNECTION_COLUMNS}, w.created_at FROM ${CONNECTIONS_FROM} WHERE w.source_id = q.source_id) c)
       END AS connections
  FROM q ORDER BY q.id`;

const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Requests this process left pending because not even their failure could be written (id → time in
 * ms before which claims skip them), so the fan-out neither spins on them nor sends every batch down
 * the slow path; they are tried again after HOLD_BACK_MS (and by other workers meanwhile).
 */
const heldBack = new Map<string, number>();
const HOLD_BACK_MS = 10_000;

function heldBackIds(now: number): string[] {
  for (const [id, until] of heldBack) if (until <= now) heldBack.delete(id);
  return [...heldBack.keys()].slice(0, 100);
}

/**
 * Fans out up to `limit` pending requests (`request_fanouts` rows), oldest first (request ids start with
 * their creation time): claims and deletes the rows and reads their sources' connections
 * (claimFanoutsSql, in the same round trip as BEGIN), runs the rules, and writes the events, ignored
 * events, executions and jobs, in one transaction. A crash before
 * the commit leaves the rows for the next drain. Due events are inserted leased to this process and,
 * once committed, delivered here (direct dispatch, lib/gateway/delivery/dispatch-queue.ts); delayed events get
 * jobs. When the batch's write fails on a record (isRecordError: data PostgreSQL refuses, a constraint),
 * the batch is rolled back and its requests are fanned out again one by one, each pair in isolation
 * (fanOutIsolated), so one poison request never holds up the others (docs/pipeline.md#poison-requests-one-record-never-stops-the-others).
 * Resolves with the number of requests fanned out; throws on database errors.
 */
export async function fanOutPending(limit = 200, now = Date.now()): Promise<number> {
  const lease = newLease(now);
  type ClaimRow = (RequestRow | { id: string; team_id: null; source_id: null }) & { connections: ConnectionRow[] | null };
  let claimedIds: string[] = [];
  let result: { count: number; claimed: DeliveryRow[]; heads: string[] };
  let spans: FanoutSpans | null = null;
  try {
    result = await inTransactionFrom<ClaimRow, { count: number; claimed: DeliveryRow[]; heads: string[] }>(
      claimFanoutsSql(limit, heldBackIds(now)),
      async (client, rows) => {
        claimedIds = rows.map((r) => r.id);
        const requests = rows.filter((r): r is RequestRow & { connections: ConnectionRow[] | null } => r.source_id !== null);
        if (requests.length === 0) return { count: rows.length, claimed: [], heads: [] };
        const bySource = new Map<string, FanoutConnection[]>();
        for (const r of requests) if (r.connections) bySource.set(r.source_id, r.connections.map(toConnection));
        const earlier = await claimEarlierPending(client, requests, bySource, heldBackIds(now));
        if (earlier.length) {
          claimedIds.push(...earlier.map((r) => r.id));
          requests.push(...(earlier as typeof requests));
          requests.sort((a, b) => (a.id < b.id ? -1 : 1));
        }
        if (tracingEnabled()) spans = startFanoutSpans(requests);
        const pairs = await computeOutcomes(requests, now, undefined, bySource);
        spans?.count(pairs);
        const { claimed, heads } = await writeOutcomes(client, merged(pairs), now, lease, 0, { orderedDirect: true, earlierClaimed: true });
        return { count: rows.length, claimed, heads };
      },
      getBackgroundPool(),
    );
    (spans as FanoutSpans | null)?.end();
  } catch (err) {
    (spans as FanoutSpans | null)?.end(err);
    if (!isRecordError(err) || claimedIds.length === 0) throw err;
    log.warn(`fan-out of ${claimedIds.length} requests failed on a record (${errorText(err)}); fanning them out one by one`);
    return fanOutIsolated(claimedIds);
  }
  // Committed: the QUEUED events are this process's to deliver (direct dispatch); so are the ordered events
  // that may be their key's head, if the claim's ordering check lets them go now (else the end of the event
  // before them starts them; a crash in between leaves them to the sweeper: docs/pipeline.md "Ordered delivery").
  dispatchClaimed(result.claimed.map((row) => ({ row, lease })));
  if (result.heads.length)
    await claimEvents(result.heads).then(
      (claims) => dispatchClaimed(claims.filter((c) => c !== null)),
      (err: unknown) => log.warn("could not claim ordered events after their fan-out; the sweeper will", errorText(err)),
    );
  return result.count;
}

/**
 * The parameters both waits for earlier fan-outs bind: the sources of `requests`, the newest request id of
 * each, and the newest of all (`f.request_id < $3` lets the primary key read only the older rows, so a
 * backlog behind the batch is not scanned).
 */
function earlierThan(requests: { id: string; source_id: string }[]): [string[], string[], string] {
  const newest = new Map<string, string>();
  for (const r of requests) if ((newest.get(r.source_id) ?? "") < r.id) newest.set(r.source_id, r.id);
  return [[...newest.keys()], [...newest.values()], [...newest.values()].reduce((a, b) => (a > b ? a : b), "")];
}

/**
 * Claims, in `client`'s transaction, the pending requests accepted before `requests` on the sources whose
 * active connections deduplicate (docs/pipeline.md "deduplicate"), so that they are fanned out in this
 * batch, ahead of the later ones. Another worker's fan-out of such a request is waited for: committed, its
 * dedup keys are there for this batch to meet; rolled back (a deadlock, a lost connection), its request is
 * pending again and this batch takes it. Without this, the later of two equal requests could claim the key
 * and the earlier be ignored as its duplicate. Returns the claimed requests (id, team_id, source_id,
 * trace_parent); those this process holds back (`skip`, heldBackIds) stay out. Throws the database's error
 * (a deadlock with another batch among them).
 */
async function claimEarlierPending(
  client: pg.PoolClient,
  requests: RequestRow[],
  bySource: Map<string, FanoutConnection[]>,
  skip: string[],
): Promise<RequestRow[]> {
  const deduplicating = requests.filter((r) =>
    (bySource.get(r.source_id) ?? []).some((c) => !c.disabled && c.rules.some((rule) => rule.type === "deduplicate")),
  );
  if (deduplicating.length === 0) return [];
  const { rows } = await client.query<RequestRow>(
    `DELETE FROM request_fanouts f
      USING requests r, unnest($1::text[], $2::text[]) AS b(source_id, before)
      WHERE r.id = f.request_id AND r.source_id = b.source_id AND f.request_id < b.before AND f.request_id < $3
        AND f.request_id <> ALL($4::text[])
     RETURNING f.request_id AS id, r.team_id, r.source_id, f.trace_parent`,
    [...earlierThan(deduplicating), skip],
  );
  return rows;
}

/** Claims one request's `request_fanouts` row (if still there) and returns the request, or nothing. */
const CLAIM_ONE_SQL = `
WITH f AS (
  DELETE FROM request_fanouts WHERE request_id IN (SELECT request_id FROM request_fanouts WHERE request_id = $1 FOR UPDATE SKIP LOCKED)
  RETURNING request_id, trace_parent)
SELECT r.id, r.team_id, r.source_id, f.trace_parent FROM f JOIN requests r ON r.id = f.request_id`;

type FanoutSpans = { count: (pairs: PairOutcomes[]) => void; end: (err?: unknown) => void };

/**
 * One `fanout` span per request of a batch (docs/operations.md "Traces"), each a child of its request's
 * ingest span; each request's `trace_parent` becomes its span's, so the events it creates carry it.
 */
function startFanoutSpans(requests: RequestRow[]): FanoutSpans {
  const spans = new Map<string, Span>();
  for (const r of requests) {
    const span = startSpan("fanout", r.trace_parent, { "hookyard.request.id": r.id, "hookyard.source.id": r.source_id });
    spans.set(r.id, span);
    r.trace_parent = traceparentOf(span);
  }
  return {
    count: (pairs) => {
      const events = new Map<string, number>();
      for (const p of pairs) for (const e of p.events) events.set(e.request.id, (events.get(e.request.id) ?? 0) + 1);
      for (const [id, span] of spans) span.setAttribute("hookyard.events.count", events.get(id) ?? 0);
    },
    end: (err) => {
      for (const span of spans.values()) endSpan(span, err);
    },
  };
}

/**
 * The slow path after a failed batch: fans out `requestIds` one request per transaction, each
 * (request, connection) pair written in its own savepoint (writeIsolated). Dispatches each request's
 * due events once it is committed. A request with a pair that cannot be written even as its failure
 * is rolled back and stays pending (retried at the next drain), and the others go on. Resolves with
 * the number of requests; throws on database errors other than record errors.
 */
async function fanOutIsolated(requestIds: string[]): Promise<number> {
  for (const id of requestIds) {
    const now = Date.now();
    const lease = newLease(now);
    let claimed: DeliveryRow[];
    try {
      claimed = await inTransaction(async (client) => {
        const { rows } = await client.query<RequestRow>(CLAIM_ONE_SQL, [id]);
        if (rows.length === 0) return [];
        return (await writeIsolated(client, await computeOutcomes(rows, now), now, lease)).claimed;
      }, getBackgroundPool());
    } catch (err) {
      if (!(err instanceof Unrecordable)) throw err;
      // Rolled back: its request_fanouts row stays, and a drain tries it again later (never lost).
      log.error(`fan-out: ${err.message}; left pending, tried again in ${HOLD_BACK_MS} ms`);
      heldBack.set(id, Date.now() + HOLD_BACK_MS);
      continue;
    }
    dispatchClaimed(claimed.map((row) => ({ row, lease })));
  }
  return requestIds.length;
}

/**
 * Runs requests `requestIds` through their sources' connections now (request retry; `connectionIds`
 * limits it to those connections). Nothing is queued: the caller gets the ids of the new events, or the
 * database error. A write that fails on a record is made again pair by pair (writeIsolated).
 * Does not touch `request_fanouts`.
 */
export async function fanOutNow(requestIds: string[], connectionIds?: readonly string[], now = Date.now()): Promise<string[]> {
  if (requestIds.length === 0) return [];
  const { rows: requests } = await getBackgroundPool().query<RequestRow>(REQUESTS_SQL, [requestIds]);
  const pairs = await computeOutcomes(requests, now, connectionIds);
  try {
    return await inTransaction(async (client) => (await writeOutcomes(client, merged(pairs), now, null)).ids, getPool());
  } catch (err) {
    if (!isRecordError(err)) throw err;
    return inTransaction(async (client) => (await writeIsolated(client, pairs, now, null, "skip")).ids, getPool());
  }
}

/**
 * The active connections of source `sourceId` of team `teamId` (only `connectionIds` when given), read
 * fresh: the targets of a bulk replay, resolved while it runs. Disabled connections are left out.
 */
export async function activeConnectionsOf(teamId: string, sourceId: string, connectionIds?: readonly string[]): Promise<FanoutConnection[]> {
  const all = (await connectionsFor([sourceId])).get(sourceId) ?? [];
  return all.filter((c) => c.team_id === teamId && !c.disabled && (!connectionIds || connectionIds.includes(c.id)));
}

/**
 * Runs requests `requestIds` through connections inside `client`'s transaction, so their events commit
 * with the caller's other writes (a bulk operation's progress, lib/gateway/bulk/runner.ts). The
 * connections are each request's source's (only `connectionIds` when given), or `targets` for every
 * request (a replay onto another source's connections). Delivery jobs get `priority`. A write refused
 * on a record is redone pair by pair under savepoints; a pair that cannot be written at all is skipped
 * and counted. `requests` hands the requests in with their raw data instead of reading them (requests the
 * caller wrote in `client`'s uncommitted transaction: a replay from the archive). Returns the new event ids
 * and the ids of the requests that had a pair skipped. Throws database errors that are not record errors (the caller's transaction is then to be rolled back).
 */
export async function fanOutInTransaction(
  client: pg.PoolClient,
  requestIds: string[],
  opts: { connectionIds?: readonly string[]; targets?: FanoutConnection[]; priority?: number; now?: number; requests?: RequestRow[] } = {},
): Promise<{ ids: string[]; skipped: string[] }> {
  if (requestIds.length === 0) return { ids: [], skipped: [] };
  const now = opts.now ?? Date.now();
  const requests = opts.requests ?? (await getBackgroundPool().query<RequestRow>(REQUESTS_SQL, [requestIds])).rows;
  const bySource = opts.targets ? new Map(requests.map((r) => [r.source_id, opts.targets!])) : undefined;
  const pairs = await computeOutcomes(requests, now, opts.connectionIds, bySource);
  await client.query("SAVEPOINT hookyard_batch");
  try {
    const written = await writeOutcomes(client, merged(pairs), now, null, opts.priority ?? 0);
    await client.query("RELEASE SAVEPOINT hookyard_batch");
    return { ids: written.ids, skipped: [] };
  } catch (err) {
    if (!isRecordError(err)) throw err;
    await client.query("ROLLBACK TO SAVEPOINT hookyard_batch");
  }
  const skipped = new Set<string>();
  const written = { ids: [] as string[] };
  for (const pair of pairs) {
    const r = await writeIsolated(client, [pair], now, null, "skip", opts.priority ?? 0);
    if (r.ids.length === 0 && pair.events.length > 0) skipped.add(pair.request.id);
    written.ids.push(...r.ids);
  }
  return { ids: written.ids, skipped: [...skipped] };
}

/**
 * True for an error of the records being written rather than of the database's availability: an
 * error PostgreSQL answered (data it refuses, SQLSTATE class 22, e.g. NUL in text or a lone surrogate
 * in jsonb; a constraint, 23, e.g. a connection deleted meanwhile; a limit, 54, e.g. JSON nested too
 * deep; or any other) except the transient classes (08 connection, 40 rollback, 53 resources, 55 lock,
 * 57 shutdown or cancel, 58 system, XX internal), or a JS TypeError / RangeError raised while
 * preparing it. A lost connection has no SQLSTATE: the batch is retried whole later.
 */
export function isRecordError(err: unknown): boolean {
  if (err instanceof TypeError || err instanceof RangeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(08|40|53|55|57|58|XX)/.test(code);
}

/** A (request, connection) pair that could not be written, not even as its failure: its request stays pending. */
class Unrecordable extends Error {
  constructor(
    readonly requestId: string,
    reason: unknown,
  ) {
    super(`${requestId} could not be stored, not even as a failure: ${errorText(reason)}`);
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Writes each (request, connection) pair in a savepoint of `client`'s transaction, so a pair whose
 * records PostgreSQL refuses fails alone. When a transformation is involved, such a pair is written
 * again with its executions' input and output left out (their log says why); if that is refused too,
 * it is recorded as an ignored event TRANSFORMATION_FAILED (`meta: {transformation_id}`) with an
 * execution whose log says why. A pair that cannot be written even so (or that has no transformation:
 * nothing of the request's own data is written then) throws Unrecordable, so the request is left
 * pending; with `unrecordable: "skip"` (a request retry, which has nothing pending) it is logged and skipped.
 * Returns like writeOutcomes; throws database errors that are not record errors.
 */
async function writeIsolated(
  client: pg.PoolClient,
  pairs: PairOutcomes[],
  now: number,
  lease: Date | null,
  unrecordable: "throw" | "skip" = "throw",
  priority = 0,
): Promise<{ ids: string[]; claimed: DeliveryRow[] }> {
  const giveUp = (requestId: string, err: unknown) => {
    const e = new Unrecordable(requestId, err);
    if (unrecordable === "throw") throw e;
    log.error(`fan-out: ${e.message}; skipped`);
  };
  const out = { ids: [] as string[], claimed: [] as DeliveryRow[] };
  const attempt = async (outcomes: Outcomes): Promise<unknown> => {
    await client.query("SAVEPOINT hookyard_pair");
    try {
      const written = await writeOutcomes(client, outcomes, now, lease, priority);
      await client.query("RELEASE SAVEPOINT hookyard_pair");
      out.ids.push(...written.ids);
      out.claimed.push(...written.claimed);
      return null;
    } catch (err) {
      if (!isRecordError(err)) throw err;
      await client.query("ROLLBACK TO SAVEPOINT hookyard_pair");
      return err;
    }
  };
  for (const pair of pairs) {
    const err = await attempt(pair);
    if (err === null) continue;
    const { request, connection } = pair;
    const transformationId = transformationOf(connection, pair.executions);
    const why = `${request.id} on ${connection.id} could not be stored: ${errorText(err)}`;
    if (transformationId === null) {
      giveUp(request.id, err);
      continue;
    }
    // First keep the event, without the execution's input and output (the likeliest culprits);
    // then, if even that is refused, ignore the pair as TRANSFORMATION_FAILED.
    const note = { type: "error", message: `The request or the transformation's output could not be stored: ${errorText(err)}` };
    if (pair.executions.length > 0) {
      const left = { type: "error", message: `The transformation's input and output could not be stored: ${errorText(err)}` };
      const slim = {
        ...pair,
        executions: pair.executions.map((x) => ({
          ...x,
          original: null,
          transformed: null,
          logs: [...(Array.isArray(x.logs) ? (x.logs as unknown[]) : []), left],
        })),
      };
      if ((await attempt(slim)) === null) {
        log.warn(`fan-out of ${why}; stored without the transformation's input and output`);
        continue;
      }
    }
    log.warn(`fan-out of ${why}; recorded as TRANSFORMATION_FAILED`);
    const fallback: Outcomes = {
      events: [],
      ignored: [{ request, connection, cause: "TRANSFORMATION_FAILED", meta: { transformation_id: transformationId } }],
      executions: [
        {
          id: createId("execution"),
          teamId: request.team_id,
          transformationId,
          connectionId: connection.id,
          requestId: request.id,
          eventId: null,
          logLevel: "error",
          logs: [note],
          original: null,
          transformed: null,
        },
      ],
    };
    const again = await attempt(fallback);
    if (again !== null) giveUp(request.id, again);
  }
  return out;
}

/**
 * Inserts events; with a lease ($11), the unordered QUEUED ones are inserted claimed and come back with their
 * delivery rows (ordered ones, $13 a key, go through a job and the claim's ordering check).
 */
const INSERT_EVENTS_SQL = `
WITH c AS (
  INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, next_attempt_at, data, locked_until, created_at, updated_at, trace_parent,
                      ordering_key, ordering_pos)
  SELECT t.id, t.team_id, t.webhook_id, t.source_id, t.destination_id, t.request_id, t.status, t.next_attempt_at, t.data,
         CASE WHEN t.status = 'QUEUED' AND t.ordering_key IS NULL THEN $11::timestamptz END, $10, $10, t.trace_parent,
         t.ordering_key, CASE WHEN t.ordering_key IS NOT NULL THEN COALESCE($14, t.request_id) END
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::jsonb[], $12::text[], $13::text[])
         AS t(id, team_id, webhook_id, source_id, destination_id, request_id, status, next_attempt_at, data, trace_parent, ordering_key)
  RETURNING ${EVENT_DELIVERY_COLUMNS}, locked_until
) ${SELECT_DELIVERY} WHERE c.locked_until IS NOT NULL`;

/**
 * Waits, inside `client`'s transaction, until no other transaction is still fanning out a request of the
 * same source older than the newest request of `events` (events with a deduplicate rule). Another worker may
 * have claimed an earlier, equal request: once it commits, its key is there and this batch's events are its
 * duplicates. Without the wait, whichever transaction wrote its key first won, and the later occurrence could
 * be the one delivered (docs/pipeline.md "deduplicate"). fanOutPending has already taken the older pending
 * requests into its batch (claimEarlierPending); in the other paths, older pending requests nobody is fanning
 * out (held back after an error) are locked until this transaction ends, which only delays their next claim.
 */
async function awaitEarlierFanouts(client: pg.PoolClient, events: EventRow[]): Promise<void> {
  await client.query(
    `SELECT f.request_id FROM request_fanouts f
       JOIN requests r ON r.id = f.request_id
       JOIN unnest($1::text[], $2::text[]) AS b(source_id, before) ON r.source_id = b.source_id AND f.request_id < b.before
     WHERE f.request_id < $3
     FOR UPDATE OF f`,
    earlierThan(events.map((e) => e.request)),
  );
}

/**
 * Writes `outcomes` in `client`'s transaction. Due events (QUEUED) get a delivery job, or, with
 * `lease`, are inserted already claimed with that lease and returned with their delivery rows for this
 * process to deliver (lib/gateway/delivery/dispatch-queue.ts).
 * With `earlierClaimed`, the caller's transaction already took in the earlier pending requests of its
 * deduplicating sources (claimEarlierPending), so the wait for other fan-outs (awaitEarlierFanouts) is skipped.
 * With `orderedDirect`, the ordered events that may be their key's head get no job: their ids come back as
 * `heads`, for the caller to claim once committed (docs/pipeline.md "Ordered delivery").
 * Returns the new event ids, the claimed events and those heads.
 */
async function writeOutcomes(
  client: pg.PoolClient,
  { events, ignored, executions }: Outcomes,
  now: number,
  lease: Date | null,
  priority = 0,
  { orderedDirect = false, earlierClaimed = false }: { orderedDirect?: boolean; earlierClaimed?: boolean } = {},
): Promise<{ ids: string[]; claimed: DeliveryRow[]; heads: string[] }> {
  let claimed: DeliveryRow[] = [];
  let heads: string[] = [];
  let kept = events;
  const keptIgnored = [...ignored];

  // Deduplicate: the first event per (connection, digest) in this batch claims the key, unless a live key exists.
  const withDedup = kept.filter((e) => e.dedup);
  if (withDedup.length) {
    // fanOutPending's batch already waited for, and took in, the earlier requests (claimEarlierPending).
    if (!earlierClaimed) await awaitEarlierFanouts(client, withDedup);
    const firstInBatch = new Map<string, EventRow>();
    for (const e of withDedup) {
      const key = `${e.connection.id}\u0000${e.dedup!.digest}`;
      if (!firstInBatch.has(key)) firstInBatch.set(key, e);
    }
    const candidates = [...firstInBatch.values()];
    const { rows: won } = await client.query<{ webhook_id: string; digest: string }>(
      `INSERT INTO dedup_keys (webhook_id, digest, event_id, expires_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[])
       ON CONFLICT (webhook_id, digest) DO UPDATE SET event_id = EXCLUDED.event_id, expires_at = EXCLUDED.expires_at
         WHERE dedup_keys.expires_at <= now()
       RETURNING webhook_id, digest`,
      [
        candidates.map((e) => e.connection.id),
        candidates.map((e) => e.dedup!.digest),
        candidates.map((e) => e.id),
        candidates.map((e) => new Date(now + e.dedup!.window * 1000)),
      ],
    );
    const winners = new Set(won.map((w) => `${w.webhook_id}\u0000${w.digest}`));
    const duplicates = withDedup.filter(
      (e) => !(winners.has(`${e.connection.id}\u0000${e.dedup!.digest}`) && firstInBatch.get(`${e.connection.id}\u0000${e.dedup!.digest}`) === e),
    );
    const dupIds = new Set(duplicates.map((e) => e.id));
    for (const d of duplicates) keptIgnored.push({ request: d.request, connection: d.connection, cause: "DEDUPLICATED", meta: null });
    kept = kept.filter((e) => !dupIds.has(e.id));
  }

  if (kept.length) {
    const { rows } = await client.query<DeliveryRow>({
      name: "hookyard-insert-events",
      text: INSERT_EVENTS_SQL,
      values: [
        kept.map((e) => e.id),
        kept.map((e) => e.request.team_id),
        kept.map((e) => e.connection.id),
        // The connection's source: the request's own, except in a replay onto another source (lib/gateway/bulk).
        kept.map((e) => e.connection.source_id),
        kept.map((e) => e.connection.destination_id),
        kept.map((e) => e.request.id),
        kept.map((e) => e.status),
        kept.map((e) => e.nextAttemptAt),
        kept.map((e) => e.data),
        new Date(now),
        lease,
        kept.map((e) => e.request.trace_parent ?? null),
        kept.map((e) => e.orderingKey),
        // Fan-out of a pending request: its place is the request's acceptance (its id); a retry or a
        // replay accepts the event again now (docs/pipeline.md "Ordered delivery").
        lease ? null : freshOrderingPos(now),
      ],
    });
    claimed = rows;
    // An ordered QUEUED event gets a job when it is the first of its key in this write (a later one
    // cannot be its key's head before the first ends, and that end queues the next: ordering.ts).
    const firstOfKey = new Set<string>();
    const orderedFirst = (e: EventRow) => {
      const k = `${e.connection.destination_id}\u0000${e.orderingKey}`;
      return !firstOfKey.has(k) && Boolean(firstOfKey.add(k));
    };
    const orderedFirsts = new Set(kept.filter((e) => e.status === "QUEUED" && e.orderingKey !== null && orderedFirst(e)));
    // With `orderedDirect` the caller claims them itself once committed; otherwise they get jobs.
    if (orderedDirect) heads = [...orderedFirsts].map((e) => e.id);
    const deliverable = kept.filter(
      (e) => e.status === "SCHEDULED" || (e.status === "QUEUED" && (e.orderingKey !== null ? !orderedDirect && orderedFirsts.has(e) : !lease)),
    );
    await enqueueDeliveries(
      client,
      deliverable.map((e) => e.id),
      deliverable.map((e) => (e.status === "SCHEDULED" ? e.nextAttemptAt : null)),
      priority,
    );
  }
  if (keptIgnored.length) {
    await client.query(
      `INSERT INTO ignored_events (id, team_id, webhook_id, request_id, cause, meta, created_at, updated_at)
       SELECT t.id, t.team_id, t.webhook_id, t.request_id, t.cause, t.meta, $7, $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[]) AS t(id, team_id, webhook_id, request_id, cause, meta)`,
      [
        keptIgnored.map(() => createId("ignoredEvent", now)),
        keptIgnored.map((i) => i.request.team_id),
        keptIgnored.map((i) => i.connection.id),
        keptIgnored.map((i) => i.request.id),
        keptIgnored.map((i) => i.cause),
        keptIgnored.map((i) => (i.meta === null || i.meta === undefined ? null : storableJson(i.meta))),
        new Date(now),
      ],
    );
  }
  const keptIds = new Set(kept.map((e) => e.id));
  const keptExecutions = executions.map((x) => ({ ...x, eventId: x.eventId && keptIds.has(x.eventId) ? x.eventId : null }));
  if (keptExecutions.length) {
    await client.query(
      `INSERT INTO transformation_executions (id, team_id, transformation_id, webhook_id, request_id, event_id, log_level, logs, original_data, transformed_data, created_at, updated_at)
       SELECT t.*, $11, $11 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::jsonb[], $10::jsonb[]) AS t`,
      [
        keptExecutions.map((x) => x.id),
        keptExecutions.map((x) => x.teamId),
        keptExecutions.map((x) => x.transformationId),
        keptExecutions.map((x) => x.connectionId),
        keptExecutions.map((x) => x.requestId),
        keptExecutions.map((x) => x.eventId),
        keptExecutions.map((x) => x.logLevel),
        keptExecutions.map((x) => storableJson(x.logs, "[]")),
        keptExecutions.map((x) => storableJson(x.original)),
        keptExecutions.map((x) => (x.transformed === null ? null : storableJson(x.transformed))),
        new Date(now),
      ],
    );
  }
  return { ids: kept.map((e) => e.id), claimed, heads };
}
