/**
 * Replay from the archive (docs/gateway-api.md "Replay from the archive"): the bulk family
 * `/bulk/archived-requests/replay` reads the requests of archived days (lib/archive/, written by retention
 * before it drops a day) and ingests them again, as new requests of the target source, through the
 * target connections, marked with the operation's id (`bulk_retry_id`) like every replay. Its records are
 * lines of the days' `requests.ndjson.gz`, streamed: the cursor is `YYYY-MM-DD:<lines read>`, and a
 * worker keeps the open stream between batches (reopening and skipping to the cursor otherwise).
 */
import type pg from "pg";
import { archiveDaysOf, pickArchiveLines, readManifest } from "@/lib/archive/day-archive";
import { type ArchiveStore, archiveStoreOf } from "@/lib/archive/store";
import { getConfig } from "@/lib/config";
import { BULK_JOB_PRIORITY } from "@/lib/delivery/jobs";
import { activeConnectionsOf, fanOutInTransaction, type RequestRow } from "@/lib/gateway/pipeline/fanout";
import { createId } from "@/lib/ids";
import { unprocessable } from "@/lib/http/errors";
import { insertRequestsInTransaction, type RequestRecord } from "@/lib/ingest/request-writer";

const DAY_MS = 86_400_000;
/** Days one replay may span at most. */
const MAX_DAYS = 366;
/** Lines a batch reads at most per record it may take (a filter that matches little still saves progress often). */
const SCAN_FACTOR = 20;

/** A request as archived (lib/worker/archive.ts): its row with its raw data (`body` base64). */
export type ArchivedRequest = {
  id: string;
  team_id: string;
  source_id: string;
  verified: boolean;
  rejection_cause: string | null;
  created_at: string;
  raw: {
    method: string;
    path: string;
    query: string;
    headers: Record<string, string>;
    body: string | null;
    body_size: number;
    content_type: string | null;
    client_ip: string | null;
  } | null;
};

/** The filters of an archive replay: `created_at` bounds (ms; `to` exclusive) and the archived requests' sources (null: all). */
export type ArchiveFilter = { from: number; to: number; sourceIds: string[] | null };

/** The archive store, or 422 when archiving is off. */
function store(): ArchiveStore {
  const s = archiveStoreOf(getConfig().archive);
  if (!s) throw unprocessable("Replay from the archive needs an archive: the server has neither ARCHIVE_DIR nor ARCHIVE_S3_BUCKET set");
  return s;
}

/** A date-time bound of `created_at` in ms, or 422 naming it. */
function bound(op: string, value: unknown): number {
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw unprocessable(`query.created_at.${op}: must be a date-time`, { field: `query.created_at.${op}` });
  return ms;
}

/**
 * The filters of an archive replay's `query`: `created_at` (required, an object with `gte` or `gt` and
 * `lte` or `lt`, date-times, at most 366 days apart) and `source_id` (optional, a source id or an array of
 * them: the sources the requests were archived from). Throws 422 naming the field.
 */
export function parseArchiveFilter(query: Record<string, unknown>): ArchiveFilter {
  const c = query.created_at;
  if (!c || typeof c !== "object" || Array.isArray(c))
    throw unprocessable("query.created_at: required, an object with gte (or gt) and lte (or lt) date-times", { field: "query.created_at" });
  const ops = c as Record<string, unknown>;
  const unknown = Object.keys(ops).find((k) => !["gte", "gt", "lte", "lt"].includes(k));
  if (unknown) throw unprocessable(`query.created_at.${unknown}: unknown operator; use gte, gt, lte, lt`, { field: `query.created_at.${unknown}` });
  if (ops.gte === undefined && ops.gt === undefined) throw unprocessable("query.created_at: needs gte or gt", { field: "query.created_at" });
  if (ops.lte === undefined && ops.lt === undefined) throw unprocessable("query.created_at: needs lte or lt", { field: "query.created_at" });
  const from = ops.gte !== undefined ? bound("gte", ops.gte) : bound("gt", ops.gt) + 1;
  const to = ops.lt !== undefined ? bound("lt", ops.lt) : bound("lte", ops.lte) + 1;
  if (to <= from) throw unprocessable("query.created_at: the range is empty", { field: "query.created_at" });
  if (to - from > MAX_DAYS * DAY_MS) throw unprocessable(`query.created_at: at most ${MAX_DAYS} days`, { field: "query.created_at" });
  const s = query.source_id;
  if (s !== undefined && !(typeof s === "string" && s) && !(Array.isArray(s) && s.length > 0 && s.length <= 100 && s.every((x) => typeof x === "string" && x)))
    throw unprocessable("query.source_id: a source id or an array of 1 to 100 of them", { field: "query.source_id" });
  return { from, to, sourceIds: s === undefined ? null : Array.isArray(s) ? (s as string[]) : [s] };
}

const daysOf = (f: ArchiveFilter) => archiveDaysOf(f.from, f.to);

/**
 * The plan of an archive replay: the team's archived requests of the days `query` spans, from the
 * manifests (per source; an estimate: the day's requests outside the time range or rejected at ingestion
 * are counted too), and the operation's bound (the last archived day; null when nothing is archived).
 * Throws 422 for an invalid query or when archiving is off.
 */
export async function countArchived(teamId: string, query: Record<string, unknown>): Promise<{ count: number; bound: string | null }> {
  const f = parseArchiveFilter(query);
  const s = store();
  let count = 0;
  let last: string | null = null;
  for (const day of daysOf(f)) {
    const manifest = await readManifest(s, day);
    if (!manifest) continue;
    const bySource = (manifest.index.requests_by_source ?? {}) as Record<string, { team_id: string; requests: number }>;
    const n = Object.entries(bySource)
      .filter(([src, v]) => v.team_id === teamId && (!f.sourceIds || f.sourceIds.includes(src)))
      .reduce((sum, [, v]) => sum + v.requests, 0);
    if (n) {
      count += n;
      last = day;
    }
  }
  return { count, bound: last };
}

const matches = (rec: ArchivedRequest, teamId: string, f: ArchiveFilter) => {
  if (rec.team_id !== teamId || rec.rejection_cause || !rec.raw) return false;
  const at = Date.parse(rec.created_at);
  return at >= f.from && at < f.to && (!f.sourceIds || f.sourceIds.includes(rec.source_id));
};

/**
 * The next batch of operation `op`: up to `batchSize` matching archived requests after its cursor (lines
 * read at most SCAN_FACTOR × batchSize), the cursor after them, and whether the archive is read to its
 * end. Throws on I/O errors and for a malformed line (the batch is tried again).
 */
export async function pickArchived(
  op: { id: string; team_id: string; query: Record<string, unknown>; cursor: string | null },
  batchSize: number,
): Promise<{ records: ArchivedRequest[]; cursor: string | null; last: boolean }> {
  const f = parseArchiveFilter(op.query);
  return pickArchiveLines(store(), op.id, {
    name: "requests",
    days: daysOf(f),
    cursor: op.cursor,
    batchSize,
    scanLimit: batchSize * SCAN_FACTOR,
    parse: (line) => JSON.parse(line) as ArchivedRequest,
    match: (rec) => matches(rec, op.team_id, f),
  });
}

/**
 * Ingests `records` again in `client`'s transaction (the batch's, with its progress): new requests of the
 * target source with the archived raw data (byte-exact body), run through the target connections (those
 * of `query.target` still active, resolved now), the requests and their events marked with the
 * operation's id. Returns the counts (all failed when no target connection is active). Throws database errors.
 */
export async function replayArchived(
  client: pg.PoolClient,
  op: { id: string; teamId: string; query: Record<string, unknown> },
  records: ArchivedRequest[],
): Promise<{ completed: number; failed: number }> {
  const target = op.query.target as { source_id: string; webhook_ids?: string[] };
  const targets = await activeConnectionsOf(op.teamId, target.source_id, target.webhook_ids);
  if (targets.length === 0) return { completed: 0, failed: records.length };
  const now = new Date();
  const rows: RequestRecord[] = records.map((rec) => ({
    id: createId("request", now.getTime()),
    teamId: op.teamId,
    sourceId: target.source_id,
    verified: rec.verified,
    rejectionCause: null,
    ingestedAt: now,
    method: rec.raw!.method,
    path: rec.raw!.path,
    query: rec.raw!.query,
    headers: rec.raw!.headers,
    body: rec.raw!.body === null ? null : Buffer.from(rec.raw!.body, "base64"),
    bodySize: rec.raw!.body_size,
    contentType: rec.raw!.content_type,
    clientIp: rec.raw!.client_ip,
  }));
  await insertRequestsInTransaction(client, rows, op.id);
  const requests: RequestRow[] = rows.map((r) => ({
    id: r.id,
    team_id: r.teamId,
    source_id: r.sourceId,
    method: r.method,
    path: r.path,
    query: r.query,
    headers: r.headers,
    body: r.body,
    content_type: r.contentType,
  }));
  const ids = rows.map((r) => r.id);
  const { ids: eventIds, skipped } = await fanOutInTransaction(client, ids, { targets, priority: BULK_JOB_PRIORITY, requests });
  if (eventIds.length) await client.query("UPDATE events SET bulk_retry_id = $1 WHERE id = ANY($2)", [op.id, eventIds]);
  return { completed: records.length - skipped.length, failed: skipped.length };
}
