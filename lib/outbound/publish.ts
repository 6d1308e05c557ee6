/**
 * `POST /publish` (docs/outbound.md#publish-delivery-retries): validates the event, commits
 * it with one delivery per matching destination (enabled, topic, filter) in one transaction (the
 * deliveries are the dispatchers' queue, lib/outbound/dispatch.ts), and answers 202 `{id, duplicate, destination_ids}`. The event's `data` is kept as the
 * bytes received. A repeated `id` answers `duplicate: true` and delivers nothing again. Events that
 * match nothing are stored too, so the operator can see them.
 */
import { outboundConfig } from "@/lib/outbound/settings";
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { Batcher } from "@/lib/db/batcher";
import { WriterLoad } from "@/lib/ingest/ingest-pressure";
import { jsonMatches } from "@/lib/rules/filter";
import { base62, random16 } from "@/lib/ids";
import { AppError } from "@/lib/http/errors";
import { outboundInvalid } from "@/lib/outbound/errors";
import { announceOutboundDeliveries } from "@/lib/outbound/dispatch";
import { activeTraceparent } from "@/lib/tracing";
import { checkEvent, refreshCatalog } from "@/lib/outbound/catalog";
import { logger } from "@/lib/log";
import { orderingKeyFor, promoteOutboundHeads, type OrderingKeyRef } from "@/lib/outbound/ordering";

const log = logger("outbound-publish");

export const ZPublish = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/)
    .optional(),
  tenant_id: z.string().min(1).max(255),
  destination_id: z.string().min(1).max(255).optional(),
  topic: z.string().max(255).optional(),
  eligible_for_retry: z.boolean().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  time: z.iso.datetime({ offset: true }).optional(),
  data: z.record(z.string(), z.unknown()),
});

/**
 * The exact text of top-level member `key` of the JSON object `text` (its value as sent: key order and
 * spacing kept), or null when absent. `text` is known to be valid JSON.
 */
export function rawMember(text: string, key: string): string | null {
  const n = text.length;
  let i = text.indexOf("{") + 1;
  // JSON's whitespace: space, tab, LF, CR.
  const skipSpace = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  };
  // From the opening quote to just past the closing one: a quote ends the string unless an odd number of backslashes precede it.
  const skipString = () => {
    for (let from = i + 1; ;) {
      const q = text.indexOf('"', from);
      if (q === -1) return void (i = n);
      let b = q - 1;
      while (text.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) return void (i = q + 1);
      from = q + 1;
    }
  };
  const skipValue = () => {
    for (let depth = 0; i < n;) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        skipString();
        continue;
      }
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (depth === 0) return;
        depth--;
      } else if (c === 44 && depth === 0) return;
      i++;
    }
  };
  for (;;) {
    skipSpace();
    if (text.charCodeAt(i) !== 34) return null;
    const nameStart = i;
    skipString();
    const quoted = text.slice(nameStart, i);
    const name = quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
    skipSpace();
    i++; // ':'
    skipSpace();
    const start = i;
    skipValue();
    if (name === key) return text.slice(start, i).trimEnd();
    skipSpace();
    if (text.charCodeAt(i) !== 44) return null;
    i++;
  }
}

/** True when a destination subscribed to `topics` receives `topic`: `*`, exact, or a glob with `*`. */
export function topicMatches(topics: string[], topic: string): boolean {
  if (!topic || topic === "*") return true;
  return topics.some(
    (t) =>
      t === "*" ||
      t === topic ||
      (t.includes("*") &&
        new RegExp(
          `^${t
            .split("*")
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")}$`,
        ).test(topic)),
  );
}

/** True when `filter` (simple-json-match; null or `{}` = all) matches the event `{id, topic, time, metadata, data}`. */
export function filterMatches(
  filter: Record<string, unknown> | null,
  event: { id: string; topic: string; time: string; metadata: Record<string, string>; data: unknown },
): boolean {
  if (!filter || Object.keys(filter).length === 0) return true;
  try {
    return jsonMatches(event, filter);
  } catch {
    return false;
  }
}

/** `POST /publish` with `body` (parsed) and `raw` (its text). Throws 422 for an invalid event. */
export async function publish(body: unknown, raw: string): Promise<{ status: number; body: { id: string; duplicate: boolean; destination_ids: string[] } }> {
  const p = ZPublish.safeParse(body ?? {});
  if (!p.success) {
    const dataIssue = p.error.issues.find((i) => i.path[0] === "data");
    throw outboundInvalid(
      dataIssue
        ? ["data must be a valid JSON object"]
        : p.error.issues.map((i) =>
            i.code === "invalid_type" && i.input === undefined ? `${i.path.join(".")} is required` : `${i.path.join(".")}: ${i.message}`,
          ),
    );
  }
  const e = p.data;
  const cfg = outboundConfig();
  const topic = e.topic ?? "";
  if (cfg.topics.length) {
    if (!topic) throw outboundInvalid(["topic is required"]);
    if (topic !== "*" && !cfg.topics.includes(topic)) throw outboundInvalid(["topic is invalid"]);
  }
  // The topic's schema (docs/outbound.md "Event catalog"): enforce throws the 422 here, before anything is written.
  await refreshCatalog();
  const checked = checkEvent(topic, e.data);
  const id = e.id ?? cfg.prefixes.event + base62(random16());
  const time = e.time ? new Date(e.time) : new Date();
  const metadata = e.metadata ?? {};
  const dataText = rawMember(raw, "data") ?? JSON.stringify(e.data);
  const view = { id, topic, time: time.toISOString().replace(/\.\d{3}Z$/, "Z"), metadata, data: e.data };
  const written = await writer.submit({
    id,
    chosenId: e.id !== undefined,
    tenantId: e.tenant_id,
    topic,
    time,
    eligible: e.eligible_for_retry ?? true,
    metadata,
    data: dataText,
    destinationId: e.destination_id ?? null,
    view,
    traceParent: activeTraceparent(),
    schemaVersion: checked.version,
    schemaWarnings: checked.warnings,
  });
  if (written.tenantId !== e.tenant_id) throw new AppError("CONFLICT", "event id already used by another tenant");
  return { status: 202, body: { id, duplicate: written.duplicate, destination_ids: written.matched } };
}

type View = Parameters<typeof filterMatches>[1];
type Pending = {
  id: string;
  chosenId: boolean;
  tenantId: string;
  topic: string;
  time: Date;
  eligible: boolean;
  metadata: Record<string, string>;
  /** `data` as received (stored as its UTF-8 bytes). */ data: string;
  destinationId: string | null;
  view: View;
  /** The publish span's W3C traceparent (docs/operations.md "Traces"); null untraced. */
  traceParent: string | null;
  /** The schema version the event was checked against, and the failures `warn` accepted (docs/outbound.md "Event catalog"). */
  schemaVersion: number | null;
  schemaWarnings: string[] | null;
};
type Written = { duplicate: boolean; tenantId: string; matched: string[] };
type Db = Parameters<Parameters<typeof inTransaction>[0]>[0];

/** Advisory lock class of publisher-chosen event ids (the second key is the id's hash). */
const EVENT_ID_LOCK = 727274100;

/**
 * The events of `items` whose id is already stored (id → tenant, matches). Event ids are unique across
 * the day partitions of `outbound_events` (whose key is (id, time)) because of this check: a publisher-chosen
 * id is locked (transaction-level advisory lock, in a fixed order) before it is looked up, so a concurrent
 * publish of the same id waits for this transaction and then finds its row. Generated ids (128 random bits)
 * are never looked up.
 */
async function storedEvents(client: Db, items: Pending[]): Promise<Map<string, { tenant_id: string; matched_destination_ids: string[] }>> {
  const chosen = [...new Set(items.filter((i) => i.chosenId).map((i) => i.id))];
  if (chosen.length === 0) return new Map();
  await client.query("SELECT count(pg_advisory_xact_lock($2, k)) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($1::text[]) AS id ORDER BY 1) AS s", [
    chosen,
    EVENT_ID_LOCK,
  ]);
  const { rows } = await client.query<{ id: string; tenant_id: string; matched_destination_ids: string[] }>(
    "SELECT id, tenant_id, matched_destination_ids FROM outbound_events WHERE id = ANY($1)",
    [chosen],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

// One statement writes a group's events and their deliveries: atomic without
// BEGIN/COMMIT round trips, prepared once per connection (like ingestion's writer). `data` travels as
// text (half the bytes of bytea's hex form) and is stored as its UTF-8 bytes.
const EVENTS_CTE = `
  INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, metadata, data, destination_id, matched_destination_ids, trace_parent, schema_version, schema_warnings)
  SELECT t.id, t.tenant_id, t.topic, t.time, t.eligible, t.metadata, convert_to(t.data, 'UTF8'), t.destination_id, ARRAY(SELECT jsonb_array_elements_text(t.matched)), t.trace_parent,
         t.schema_version, t.schema_warnings
    FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bool[], $6::jsonb[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::int[], $12::jsonb[])
         AS t(id, tenant_id, topic, time, eligible, metadata, data, destination_id, matched, trace_parent, schema_version, schema_warnings)`;
const WRITE_SQL = `
WITH ev AS (${EVENTS_CTE}
  RETURNING 1
), dl AS (
  INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, manual, next_attempt_at, ordering_key, ordering_pos)
  SELECT e, et, d, t, 'pending', false, CASE WHEN ok IS NULL THEN now() END, ok, CASE WHEN ok IS NOT NULL THEN nextval('outbound_ordering_seq') END
    FROM unnest($13::text[], $14::timestamptz[], $15::text[], $16::text[], $17::text[]) AS x(e, et, d, t, ok)
  RETURNING 1
)
SELECT (SELECT count(*) FROM ev) AS events, (SELECT count(*) FROM dl) AS deliveries`;
/** A group whose events match no destination: the events alone. */
const WRITE_EVENTS_SQL = EVENTS_CTE;
const WRITE_STATEMENT = "hookyard_outbound_publish_v6";
const WRITE_EVENTS_STATEMENT = "hookyard_outbound_publish_events_v3";
const DESTINATIONS_STATEMENT = "hookyard_outbound_publish_destinations_v2";

/**
 * Writes a group of publishes with `db` (the pool, or a transaction's client when ids were looked up):
 * reads the tenants' enabled destinations, matches each new event, and writes events and deliveries
 * with one statement (the events alone when none matched). `stored`: the ids already stored (duplicates).
 * Adds the keys of the ordered deliveries written to `ordered`. Returns one answer per item.
 */
async function writeGroup(
  db: Pick<Db, "query">,
  items: Pending[],
  stored: Map<string, { tenant_id: string; matched_destination_ids: string[] }>,
  ordered: OrderingKeyRef[],
): Promise<Written[]> {
  const seen = new Set<string>();
  // The same id twice in one batch: the first is new, the second a duplicate of it.
  const isNew = items.map((i) => !stored.has(i.id) && !seen.has(i.id) && (seen.add(i.id), true));
  const fresh = items.filter((_, n) => isNew[n]);
  const { rows: destinations } = await db.query<{ id: string; tenant_id: string; topics: string[]; filter: Record<string, unknown> | null; ordering: unknown }>(
    {
      name: DESTINATIONS_STATEMENT,
      text: "SELECT id, tenant_id, topics, filter, ordering FROM outbound_destinations WHERE tenant_id = ANY($1) AND disabled_at IS NULL ORDER BY created_at, id",
      values: [[...new Set(fresh.map((i) => i.tenantId))]],
    },
  );
  const matched = fresh.map((i) =>
    destinations
      .filter(
        (d) =>
          d.tenant_id === i.tenantId &&
          (i.destinationId === null || d.id === i.destinationId) &&
          topicMatches(d.topics, i.topic) &&
          filterMatches(d.filter, i.view),
      )
      .map((d) => d.id),
  );
  // Ordered destinations (docs/outbound.md "Ordered delivery"): each delivery's key; null (unordered) for the others.
  const orderingOf = new Map(destinations.filter((d) => d.ordering !== null).map((d) => [d.id, d.ordering]));
  if (fresh.length) {
    const deliveries = fresh.flatMap((i, n) => matched[n].map((d) => ({ i, d, key: orderingOf.has(d) ? orderingKeyFor(orderingOf.get(d), i.view) : null })));
    for (const x of deliveries) if (x.key !== null) ordered.push({ destination_id: x.d, ordering_key: x.key });
    const events = [
      fresh.map((i) => i.id),
      fresh.map((i) => i.tenantId),
      fresh.map((i) => i.topic),
      fresh.map((i) => i.time),
      fresh.map((i) => i.eligible),
      fresh.map((i) => JSON.stringify(i.metadata)),
      fresh.map((i) => i.data),
      fresh.map((i) => i.destinationId),
      matched.map((m) => JSON.stringify(m)),
      fresh.map((i) => i.traceParent),
      fresh.map((i) => i.schemaVersion),
      fresh.map((i) => (i.schemaWarnings ? JSON.stringify(i.schemaWarnings) : null)),
    ];
    if (deliveries.length === 0) await db.query({ name: WRITE_EVENTS_STATEMENT, text: WRITE_EVENTS_SQL, values: events });
    else {
      await db.query({
        name: WRITE_STATEMENT,
        text: WRITE_SQL,
        values: [
          ...events,
          deliveries.map((x) => x.i.id),
          deliveries.map((x) => x.i.time),
          deliveries.map((x) => x.d),
          deliveries.map((x) => x.i.tenantId),
          deliveries.map((x) => x.key),
        ],
      });
    }
  }
  const matchedOf = new Map(fresh.map((i, n) => [i.id, matched[n]]));
  return items.map((i, n) => {
    if (isNew[n]) return { duplicate: false, tenantId: i.tenantId, matched: matchedOf.get(i.id)! };
    const first = stored.get(i.id) ?? { tenant_id: i.tenantId, matched_destination_ids: matchedOf.get(i.id) ?? [] };
    return { duplicate: true, tenantId: first.tenant_id, matched: first.matched_destination_ids };
  });
}

/**
 * Group commit (docs/architecture.md#the-hot-path): the events published meanwhile are written together (their
 * destinations read, then events and deliveries in one statement; then the dispatchers are woken), each answered only after the
 * write committed. A group with publisher-chosen ids runs in a transaction that first locks and looks up
 * those ids (storedEvents): an event whose id exists already is a duplicate, nothing is queued again and
 * the first one's matches are answered. Destinations are read at write time, so one created before a
 * publish was sent receives it.
 */
const writer = new Batcher<Pending, Written>(
  async (items) => {
    const ordered: OrderingKeyRef[] = [];
    const written = await (items.some((i) => i.chosenId)
      ? inTransaction(async (client) => writeGroup(client, items, await storedEvents(client, items), ordered))
      : writeGroup(getPool(), items, new Map(), ordered));
    // Ordered deliveries were written parked: after the commit, each key's head is made due (a statement
    // only when some were written; the worker's sweep covers a failure here, docs/outbound.md "Ordered delivery").
    if (ordered.length)
      await promoteOutboundHeads(ordered, getPool()).catch((err) =>
        log.warn("could not make ordered deliveries due; the sweep will", err instanceof Error ? err.message : err),
      );
    // Committed: the dispatchers may claim the new deliveries now (lib/outbound/dispatch.ts).
    if (written.some((w) => !w.duplicate && w.matched.length > 0)) announceOutboundDeliveries();
    return written;
  },
  // One write in flight, as ingestion (INGEST_WRITE_CONCURRENCY 1): larger groups, and no two writes
  // contending for the job queue (measured in-process: about 8,000 publishes/s with one, 4,000-7,000 with two).
  500,
  1,
  // Like ingestion's writer, a saturated publish writer asks the workers to slow deliveries (WORKER_BURST_DELIVERY_RATE).
  new WriterLoad(),
);
