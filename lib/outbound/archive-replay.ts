/**
 * Replay from the archive (docs/outbound.md "Replay from the archive"): republishes the outbound events of
 * archived days (lib/archive/, written by retention before it drops a day) to one chosen destination, each
 * as a new event (a new id, published now) for that destination only, marked as a replay in its metadata
 * (`hookyard_replay_of`: the archived event's id; `hookyard_archive_replay`: the operation's id).
 * `POST /archive-replays/plan` estimates; `POST /archive-replays` queues a run on the shared bulk runner
 * (lib/delivery/bulk-runner.ts, its `pick` source): batches of lines of the days' `outbound_events.ndjson.gz`,
 * each committed with its progress (cursor `YYYY-MM-DD:<lines read>`), so a run resumes after a crash and
 * republishes no event twice; `POST /archive-replays/{id}/cancel` stops it before its next batch. The
 * operations are rows of `outbound_redrives` (the same progress columns) whose `query.kind` is
 * "archive_replay"; the redrive endpoints never show them. Hand-written SQL over pg: batches insert events
 * and deliveries in the runner's transaction.
 */
import type pg from "pg";
import { z } from "zod";
import { archiveDaysOf, pickArchiveLines, readManifest } from "@/lib/archive/day-archive";
import { type ArchiveStore, archiveStoreOf } from "@/lib/archive/store";
import { getConfig } from "@/lib/config";
import { getBackgroundPool, getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { type BulkKind, type BulkStep, runBulkSlice } from "@/lib/delivery/bulk-runner";
import { base62, createId, random16 } from "@/lib/ids";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { OUTBOUND_CHANNEL } from "@/lib/outbound/delivery";
import { outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import type { ParsedQuery } from "@/lib/http/query";
import { single } from "@/lib/outbound/params";
import { batches, pageOfRuns, type RedriveRow, toRedrive } from "@/lib/outbound/redrive";
import { outboundConfig } from "@/lib/outbound/settings";

/** graphile-worker task that runs a replay from the archive; payload `{archive_replay_id}`. */
export const ARCHIVE_REPLAY_TASK = "outbound_archive_replay";
const KIND = "archive_replay";
const DAY_MS = 86_400_000;
/** Days one replay may span at most. */
const MAX_DAYS = 366;
/** Lines a batch reads at most per record it may take (a filter that matches little still saves progress often). */
const SCAN_FACTOR = 20;

const ids = z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(100)]);

/** The body of plan and create. */
export const ZArchiveReplayQuery = z.strictObject({
  time: z
    .strictObject({ gte: z.iso.datetime({ offset: true }), lte: z.iso.datetime({ offset: true }) })
    .meta({ description: "The archived events' time, both bounds included; at most 366 days." }),
  tenant_id: z.string().min(1).max(255).optional().meta({ description: "The destination's tenant (checked); default: the destination's." }),
  topic: ids.optional().meta({ description: "Only archived events of these topics." }),
  destination_id: z.string().min(1).max(255).meta({ description: "The destination every event is republished to (and to no other)." }),
});
export type ArchiveReplayQuery = z.infer<typeof ZArchiveReplayQuery>;
type Stored = ArchiveReplayQuery & { kind: typeof KIND; tenant_id: string };
type Row = Omit<RedriveRow, "query"> & { query: Stored };

/** An outbound event as archived (lib/worker/archive.ts): its row, `data` base64. */
type ArchivedEvent = {
  id: string;
  tenant_id: string;
  topic: string;
  time: string;
  eligible_for_retry: boolean;
  metadata: Record<string, string> | null;
  data: string;
};

/** The archive store, or 422 when archiving is off. */
function store(): ArchiveStore {
  const s = archiveStoreOf(getConfig().archive);
  if (!s) throw outboundInvalid(["replay from the archive needs an archive: the server has neither ARCHIVE_DIR nor ARCHIVE_S3_BUCKET set"]);
  return s;
}

/**
 * The stored query of `body` for `caller`: valid (422), its destination one of the tenant's (a tenant JWT:
 * its own; `tenant_id` another tenant's is 403 for a tenant, 404 `destination not found` otherwise).
 */
async function queryFor(body: unknown, caller: OutboundCaller): Promise<Stored> {
  const parsed = ZArchiveReplayQuery.safeParse(body ?? {});
  if (!parsed.success) throw parsed.error;
  const q = parsed.data;
  const from = Date.parse(q.time.gte);
  const to = Date.parse(q.time.lte);
  if (from > to) throw outboundInvalid(["time.gte must not be after time.lte"]);
  if (to - from > MAX_DAYS * DAY_MS) throw outboundInvalid([`time: at most ${MAX_DAYS} days`]);
  if (caller.kind === "tenant" && q.tenant_id !== undefined && q.tenant_id !== caller.tenantId) throw outboundForbidden();
  const { rows } = await getPool().query<{ tenant_id: string }>("SELECT tenant_id FROM outbound_destinations WHERE id = $1", [q.destination_id]);
  const tenant = rows[0]?.tenant_id;
  const wanted = caller.kind === "tenant" ? caller.tenantId : q.tenant_id;
  if (!tenant || (wanted !== undefined && wanted !== tenant)) throw outboundNotFound("destination not found");
  return { ...q, kind: KIND, tenant_id: tenant };
}

const daysOf = (q: ArchiveReplayQuery) => archiveDaysOf(Date.parse(q.time.gte), Date.parse(q.time.lte) + 1);

/** Outbound events the manifests of `q`'s days hold (every tenant's: an estimate), and the last such day (null: none). */
async function countArchived(q: ArchiveReplayQuery): Promise<{ count: number; bound: string | null }> {
  const s = store();
  let count = 0;
  let bound: string | null = null;
  for (const day of daysOf(q)) {
    const n = (await readManifest(s, day))?.counts.outbound_events ?? 0;
    if (n) {
      count += n;
      bound = day;
    }
  }
  return { count, bound };
}

/** The API view of an archive replay: a redrive's fields with `query` in place of `filter`. */
function toReplay(r: Row) {
  const { filter, ...rest } = toRedrive(r);
  const { kind: _kind, ...query } = filter as unknown as Stored;
  return { ...rest, query };
}

/** `POST /archive-replays/plan` `{query…}`: `{estimated_count, estimated_batch}` (the archived events of the range's days, every tenant's and topic's). Throws 403, 404, 422. */
export async function planArchiveReplay(body: unknown, caller: OutboundCaller) {
  const { count } = await countArchived(await queryFor(body, caller));
  return { body: { estimated_count: count, estimated_batch: batches(count) } };
}

/** Adds (or keeps) the runner job of replay `id`, in `db`'s transaction. */
async function enqueueReplay(db: Pick<pg.PoolClient, "query">, id: string): Promise<void> {
  await db.query("SELECT graphile_worker.add_job($1, json_build_object('archive_replay_id', $2::text), job_key => $3, max_attempts => 25::smallint)", [
    ARCHIVE_REPLAY_TASK,
    id,
    `archive-replay:${id}`,
  ]);
}

/** `POST /archive-replays` `{query…}`: a new replay, queued for the worker: 202 with it. Throws 403, 404, 422 (nothing archived in the range; archiving off). */
export async function createArchiveReplay(body: unknown, caller: OutboundCaller) {
  const q = await queryFor(body, caller);
  const { count, bound } = await countArchived(q);
  if (!bound) throw outboundInvalid(["no day of the time range is archived: nothing to replay"]);
  const row = await inTransaction(async (client) => {
    const { rows } = await client.query<Row>(
      `INSERT INTO outbound_redrives (id, tenant_id, query, upper_bound, estimated_count, estimated_batch) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [createId("outboundRedrive"), caller.kind === "tenant" ? caller.tenantId : null, JSON.stringify(q), bound, count, batches(count)],
    );
    await enqueueReplay(client, rows[0].id);
    return rows[0];
  });
  return { status: 202, body: toReplay(row) };
}

/** Replay `id` as `caller` may see it (a tenant: only its own); 404 `archive replay not found` otherwise. */
async function findReplay(id: string, caller: OutboundCaller): Promise<Row> {
  const { rows } = await getPool().query<Row>("SELECT * FROM outbound_redrives WHERE id = $1 AND query->>'kind' = $2", [id, KIND]);
  const r = rows[0];
  if (!r || (caller.kind === "tenant" && r.tenant_id !== caller.tenantId)) throw outboundNotFound("archive replay not found");
  return r;
}

/** `GET /archive-replays/{id}`: the replay with its progress. Throws 404. */
export async function getArchiveReplay(id: string, caller: OutboundCaller) {
  return { body: toReplay(await findReplay(id, caller)) };
}

/**
 * `GET /archive-replays` (docs/outbound.md "Replay from the archive"): replays newest first, keyset-paged
 * like `GET /redrives` (`limit` 1 to 100, default 20; `next`: the cursor of the previous page's answer),
 * optionally only those to destinations of `tenant_id` or to `destination_id`; a tenant JWT sees only the
 * replays it started. Returns `{models, next}` (`next` null on the last page). Throws 400 for a bad
 * `limit` or cursor.
 */
export async function listArchiveReplays(q: ParsedQuery, caller: OutboundCaller) {
  const params: unknown[] = [KIND];
  const where = ["query->>'kind' = $1"];
  const tenant = single(q, "tenant_id");
  if (tenant) where.push(`query->>'tenant_id' = $${params.push(tenant)}`);
  const destination = single(q, "destination_id");
  if (destination) where.push(`query->>'destination_id' = $${params.push(destination)}`);
  const { rows, next } = await pageOfRuns<Row>(q, caller, where, params);
  return { body: { models: rows.map(toReplay), next } };
}

/** `POST /archive-replays/{id}/cancel`: stops it before its next batch (`cancelled_at`, `in_progress` false); twice keeps the first time. Throws 404. */
export async function cancelArchiveReplay(id: string, caller: OutboundCaller) {
  await findReplay(id, caller);
  const { rows } = await getPool().query<Row>(
    "UPDATE outbound_redrives SET cancelled_at = coalesce(cancelled_at, now()), in_progress = false, updated_at = now() WHERE id = $1 RETURNING *",
    [id],
  );
  return { body: toReplay(rows[0]) };
}

const topicsOf = (t: ArchiveReplayQuery["topic"]) => (t === undefined ? null : Array.isArray(t) ? t : [t]);

/** Replays from the archive as a kind of the shared bulk runner. */
const ARCHIVE_REPLAY_KIND: BulkKind<Row, ArchivedEvent> = {
  table: "outbound_redrives",
  select: () => {
    throw new Error("archive replays pick their batches");
  },
  pick: (op, batchSize) => {
    const q = op.query;
    const from = Date.parse(q.time.gte);
    const to = Date.parse(q.time.lte);
    const topics = topicsOf(q.topic);
    return pickArchiveLines(store(), op.id, {
      name: "outbound_events",
      days: daysOf(q),
      cursor: op.cursor,
      batchSize,
      scanLimit: batchSize * SCAN_FACTOR,
      parse: (line) => JSON.parse(line) as ArchivedEvent,
      match: (e) => {
        const at = Date.parse(e.time);
        return e.tenant_id === q.tenant_id && at >= from && at <= to && (!topics || topics.includes(e.topic));
      },
    });
  },
  keyOf: (e) => [e.id],
  // New events, published now, for the chosen destination only (whatever its topics and filter), while it
  // is enabled and still the tenant's; otherwise the batch counts as failed.
  act: async (client, op, records) => {
    const q = op.query;
    const { rowCount: enabled } = await client.query("SELECT 1 FROM outbound_destinations WHERE id = $1 AND tenant_id = $2 AND disabled_at IS NULL", [
      q.destination_id,
      q.tenant_id,
    ]);
    if (!enabled) return { completed: 0, failed: records.length };
    const prefix = outboundConfig().prefixes.event;
    const newIds = records.map(() => prefix + base62(random16()));
    const metadata = records.map((e) => JSON.stringify({ ...(e.metadata ?? {}), hookyard_replay_of: e.id, hookyard_archive_replay: op.id }));
    await client.query(
      `WITH ev AS (
         INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, metadata, data, destination_id, matched_destination_ids)
         SELECT t.id, $5::text, t.topic, now(), t.eligible, t.metadata, decode(t.data, 'base64'), $6::text, ARRAY[$6::text]
           FROM unnest($1::text[], $2::text[], $3::bool[], $4::jsonb[], $7::text[]) AS t(id, topic, eligible, metadata, data)
         RETURNING id, time
       )
       INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, manual, next_attempt_at)
       SELECT id, time, $6::text, $5::text, 'pending', false, now() FROM ev`,
      [newIds, records.map((e) => e.topic), records.map((e) => e.eligible_for_retry), metadata, q.tenant_id, q.destination_id, records.map((e) => e.data)],
    );
    await client.query("SELECT pg_notify($1, '')", [OUTBOUND_CHANNEL]);
    return { completed: records.length, failed: 0 };
  },
  isRecordError: () => false,
  enqueue: enqueueReplay,
  // Deliveries of the chosen destination waiting to be sent.
  backlog: async (id) => {
    const { rows } = await getBackgroundPool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM outbound_deliveries d, outbound_redrives r
         WHERE r.id = $1 AND d.destination_id = r.query->>'destination_id' AND d.status = 'pending' LIMIT $2) AS w`,
      [id, 2 * getConfig().bulkBatchSize],
    );
    return rows[0].n;
  },
};

/** The `outbound_archive_replay` task: a slice of batches of replay `id` (lib/delivery/bulk-runner.ts). Throws database and archive I/O errors (the job is retried). */
export function runArchiveReplaySlice(id: string): Promise<BulkStep> {
  return runBulkSlice(ARCHIVE_REPLAY_KIND, id, getConfig().bulkBatchSize);
}
