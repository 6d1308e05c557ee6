/**
 * Bulk redrive (docs/outbound.md "Bulk redrive"): one new attempt, now, for every delivery whose last
 * attempt failed and that a filter matches (tenant, destination, topic, status, event time range,
 * attempt count). `POST /redrives/plan` counts them; `POST /redrives` fixes the set (deliveries up to the
 * greatest key matched now) and queues the run; the worker runs it on the shared bulk runner
 * (lib/delivery/bulk-runner.ts): batches keyed by (event_id, destination_id), each committed with its
 * progress, resumable after a crash, one new attempt per delivery per run; `POST /redrives/{id}/cancel`
 * stops it before its next batch. A tenant JWT (the portal) redrives only its own destinations, and
 * starts at most OUTBOUND_REDRIVE_TENANT_LIMIT runs per hour.
 */
import type pg from "pg";
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { getBackgroundPool, getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { type BulkKind, type BulkProgressRow, type BulkStep, encodeBulkKey, runBulkSlice } from "@/lib/delivery/bulk-runner";
import { AppError } from "@/lib/http/errors";
import type { ParsedQuery } from "@/lib/http/query";
import { consumeRateLimit } from "@/lib/http/rate-limit";
import { createId } from "@/lib/ids";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { OUTBOUND_CHANNEL } from "@/lib/outbound/delivery";
import { outboundBadRequest, outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";
import { decodeCursor, encodeCursor, single } from "@/lib/outbound/params";
import { promoteOutboundHeads, retrySet, type OrderingKeyRef } from "@/lib/outbound/ordering";

/** graphile-worker task that runs a redrive; payload `{redrive_id}`. */
export const REDRIVE_TASK = "outbound_redrive";

const ids = z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(100)]);
const range = <T extends z.ZodType>(t: T) => z.strictObject({ gte: t.optional(), lte: t.optional() });

/** The filter of a redrive (the body of plan and create). */
export const ZRedriveFilter = z.strictObject({
  tenant_id: z.string().min(1).max(255).optional(),
  destination_id: ids.optional(),
  topic: ids.optional(),
  status: z
    .union([z.enum(["failed", "retrying"]), z.array(z.enum(["failed", "retrying"])).min(1)])
    .optional()
    .meta({ description: "failed: retries exhausted or not eligible; retrying: waiting for an automatic retry. Default both." }),
  time: range(z.iso.datetime({ offset: true }))
    .optional()
    .meta({ description: "The event's time." }),
  attempts: range(z.number().int().min(0).max(1_000_000)).optional().meta({ description: "Attempts made so far." }),
});
export type RedriveFilter = z.infer<typeof ZRedriveFilter>;

/** A redrive as the API answers it. */
export type Redrive = {
  id: string;
  tenant_id: string | null;
  filter: RedriveFilter;
  estimated_count: number;
  estimated_batch: number;
  processed_batch: number;
  completed_count: number;
  failed_count: number | null;
  progress: number;
  in_progress: boolean;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  cancelled_at: string | null;
};

/** A row of `outbound_redrives` (redrives and, `query.kind` "archive_replay", replays from the archive). */
export type RedriveRow = BulkProgressRow & {
  tenant_id: string | null;
  query: RedriveFilter;
  estimated_count: number;
  progress: number;
  in_progress: boolean;
  created_at: Date;
  updated_at: Date;
};
type DeliveryKey = { event_id: string; destination_id: string };

const iso = (d: Date | null) => (d ? d.toISOString() : null);
/** The API view of a row of `outbound_redrives` (its stored query as `filter`). */
export const toRedrive = (r: RedriveRow): Redrive => ({
  id: r.id,
  tenant_id: r.tenant_id,
  filter: r.query,
  estimated_count: r.estimated_count,
  estimated_batch: r.estimated_batch,
  processed_batch: r.processed_batch,
  completed_count: r.completed_count,
  failed_count: r.failed_count,
  progress: r.progress,
  in_progress: r.in_progress,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  completed_at: iso(r.completed_at),
  cancelled_at: iso(r.cancelled_at),
});

const list = <T extends string>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** A delivery whose last attempt failed: retries exhausted (`failed`), or waiting for an automatic retry (`retrying`); never one in flight. */
const STATUS_SQL = {
  failed: "o.status = 'failed'",
  retrying: "(o.status = 'pending' AND o.attempts > 0 AND NOT o.manual)",
} as const;
const NOT_LEASED = "(o.locked_until IS NULL OR o.locked_until < now())";

/** WHERE clauses (alias `o`, outbound_deliveries) and parameters of `f`, from $1. */
function whereOf(f: RedriveFilter): { where: string[]; params: unknown[] } {
  const params: unknown[] = [];
  const statuses = list(f.status) ?? ["failed", "retrying"];
  const where = [`(${[...new Set(statuses)].map((s) => STATUS_SQL[s]).join(" OR ")})`, NOT_LEASED];
  if (f.tenant_id) where.push(`o.tenant_id = $${params.push(f.tenant_id)}`);
  const destinations = list(f.destination_id);
  if (destinations) where.push(`o.destination_id = ANY($${params.push(destinations)})`);
  const topics = list(f.topic);
  if (topics)
    where.push(`EXISTS (SELECT 1 FROM outbound_events e WHERE e.id = o.event_id AND e.time = o.event_time AND e.topic = ANY($${params.push(topics)}))`);
  if (f.time?.gte) where.push(`o.event_time >= $${params.push(new Date(f.time.gte))}`);
  if (f.time?.lte) where.push(`o.event_time <= $${params.push(new Date(f.time.lte))}`);
  if (f.attempts?.gte !== undefined) where.push(`o.attempts >= $${params.push(f.attempts.gte)}`);
  if (f.attempts?.lte !== undefined) where.push(`o.attempts <= $${params.push(f.attempts.lte)}`);
  return { where, params };
}

/**
 * The filter of `body` for `caller`: a tenant's is forced to its tenant (another `tenant_id` is 403), and
 * named destinations must be the filter's tenant's (404 `destination not found`). Throws 422 for a bad body.
 */
async function filterFor(body: unknown, caller: OutboundCaller): Promise<RedriveFilter> {
  const parsed = ZRedriveFilter.safeParse(body ?? {});
  if (!parsed.success) throw parsed.error;
  const f = parsed.data;
  if (caller.kind === "tenant") {
    if (f.tenant_id !== undefined && f.tenant_id !== caller.tenantId) throw outboundForbidden();
    f.tenant_id = caller.tenantId;
  }
  const destinations = list(f.destination_id);
  if (destinations && f.tenant_id) {
    const { rows } = await getPool().query<{ id: string }>("SELECT id FROM outbound_destinations WHERE id = ANY($1) AND tenant_id = $2", [
      destinations,
      f.tenant_id,
    ]);
    if (rows.length !== new Set(destinations).size) throw outboundNotFound("destination not found");
  }
  if (f.time?.gte && f.time.lte && f.time.gte > f.time.lte) throw outboundInvalid(["time.gte must not be after time.lte"]);
  return f;
}

/** Batches of BULK_BATCH_SIZE records `count` records make. */
export const batches = (count: number) => Math.ceil(count / getConfig().bulkBatchSize);

/** Count and greatest key of what `f` matches now. */
async function countMatches(db: Pick<pg.PoolClient, "query">, f: RedriveFilter): Promise<{ count: number; bound: string | null }> {
  const { where, params } = whereOf(f);
  const sql = `FROM outbound_deliveries o WHERE ${where.join(" AND ")}`;
  const [{ rows: c }, { rows: b }] = [
    await db.query<{ n: number }>(`SELECT count(*)::int AS n ${sql}`, params),
    await db.query<DeliveryKey>(`SELECT o.event_id, o.destination_id ${sql} ORDER BY o.event_id DESC, o.destination_id DESC LIMIT 1`, params),
  ];
  return { count: c[0].n, bound: b[0] ? encodeBulkKey([b[0].event_id, b[0].destination_id]) : null };
}

/** `POST /redrives/plan` `{filter…}`: `{estimated_count, estimated_batch}` of what a redrive would retry now. Throws 403, 404, 422. */
export async function planRedrive(body: unknown, caller: OutboundCaller) {
  const f = await filterFor(body, caller);
  const { count } = await countMatches(getPool(), f);
  return { body: { estimated_count: count, estimated_batch: batches(count) } };
}

/** Adds (or keeps) the runner job of redrive `id`, in `db`'s transaction. */
async function enqueueRedrive(db: Pick<pg.PoolClient, "query">, id: string): Promise<void> {
  await db.query("SELECT graphile_worker.add_job($1, json_build_object('redrive_id', $2::text), job_key => $3, max_attempts => 25::smallint)", [
    REDRIVE_TASK,
    id,
    `redrive:${id}`,
  ]);
}

/**
 * `POST /redrives` `{filter…}`: a new redrive over what the filter matches now (later failures are never
 * swept in), queued for the worker: 202 with the redrive. A tenant's are limited to
 * OUTBOUND_REDRIVE_TENANT_LIMIT per hour (429). Throws 403, 404, 422 (an operator's empty filter; nothing
 * matched; the same filter already running), 429.
 */
export async function createRedrive(body: unknown, caller: OutboundCaller) {
  const f = await filterFor(body, caller);
  // As the gateway's bulk operations: the operator's redrive never covers every tenant by accident (a tenant's is its own).
  if (Object.keys(f).length === 0) throw outboundInvalid(["the filter is empty: name at least one field (tenant_id, for every failure of a tenant)"]);
  if (caller.kind === "tenant") {
    const limit = getConfig().outboundRedriveTenantLimit;
    const rate = await consumeRateLimit(`outbound-redrive:${caller.tenantId}`, limit, 3_600_000);
    if (!rate.allowed || limit === 0)
      throw new AppError("RATE_LIMITED", "rate limit exceeded", {
        data: { retry_after_seconds: rate.retryAfterSeconds },
        retryAfterSeconds: rate.retryAfterSeconds,
      });
  }
  const row = await inTransaction(async (client) => {
    // One creation at a time: the same filter is never started twice concurrently.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('hookyard-redrive'))");
    const { rowCount: running } = await client.query("SELECT 1 FROM outbound_redrives WHERE in_progress AND query = $1::jsonb", [JSON.stringify(f)]);
    if (running) throw outboundInvalid(["a redrive with the same filter is in progress: wait for it or cancel it"]);
    const { count, bound } = await countMatches(client, f);
    if (count === 0) throw outboundInvalid(["the filter matches no delivery whose last attempt failed: nothing to redrive"]);
    const { rows } = await client.query<RedriveRow>(
      `INSERT INTO outbound_redrives (id, tenant_id, query, upper_bound, estimated_count, estimated_batch) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [createId("outboundRedrive"), caller.kind === "tenant" ? caller.tenantId : null, JSON.stringify(f), bound, count, batches(count)],
    );
    await enqueueRedrive(client, rows[0].id);
    return rows[0];
  });
  return { status: 202, body: toRedrive(row) };
}

/** Redrive `id` as `caller` may see it (a tenant: only its own); 404 `redrive not found` otherwise. */
async function findRedrive(id: string, caller: OutboundCaller): Promise<RedriveRow> {
  const { rows } = await getPool().query<RedriveRow>("SELECT * FROM outbound_redrives WHERE id = $1 AND NOT query ? 'kind'", [id]);
  const r = rows[0];
  if (!r || (caller.kind === "tenant" && r.tenant_id !== caller.tenantId)) throw outboundNotFound("redrive not found");
  return r;
}

/** `GET /redrives/{id}`: the redrive with its progress. */
export async function getRedrive(id: string, caller: OutboundCaller) {
  return { body: toRedrive(await findRedrive(id, caller)) };
}

/** `POST /redrives/{id}/cancel`: stops it before its next batch (`cancelled_at`, `in_progress` false); twice keeps the first time. */
export async function cancelRedrive(id: string, caller: OutboundCaller) {
  await findRedrive(id, caller);
  const { rows } = await getPool().query<RedriveRow>(
    "UPDATE outbound_redrives SET cancelled_at = coalesce(cancelled_at, now()), in_progress = false, updated_at = now() WHERE id = $1 RETURNING *",
    [id],
  );
  return { body: toRedrive(rows[0]) };
}

/**
 * A page of `outbound_redrives` rows matching `where` (SQL conditions over `params`, $1…), newest first,
 * keyset-paged (`limit` 20 up to 100, `next` a cursor from the previous page); a tenant sees the rows it
 * started. Returns the rows and the cursor of the following page (null: the last). Throws 400 for a bad
 * `limit` or cursor.
 */
export async function pageOfRuns<R extends RedriveRow>(q: ParsedQuery, caller: OutboundCaller, where: string[], params: unknown[]) {
  const limit = Number(single(q, "limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw outboundBadRequest("limit must be an integer from 1 to 100");
  const all = [...where];
  if (caller.kind === "tenant") all.push(`tenant_id = $${params.push(caller.tenantId)}`);
  const next = single(q, "next");
  if (next) {
    const c = decodeCursor(next);
    all.push(`(created_at, id) < ($${params.push(c.time)}, $${params.push(c.id)})`);
  }
  const { rows } = await getPool().query<R>(
    `SELECT * FROM outbound_redrives ${all.length ? `WHERE ${all.join(" AND ")}` : ""} ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null };
}

/** `GET /redrives`: newest first, keyset-paged (`limit` 20 up to 100, `next`); a tenant sees its own. Throws 400. */
export async function listRedrives(q: ParsedQuery, caller: OutboundCaller) {
  // Replays from the archive share the table (lib/outbound/archive-replay.ts): not redrives.
  const { rows, next } = await pageOfRuns(q, caller, ["NOT query ? 'kind'"], []);
  return { body: { models: rows.map(toRedrive), next } };
}

/** Redriven deliveries of `id` waiting to be sent, counted up to `cap`. */
async function waiting(id: string, cap: number): Promise<number> {
  const { rows } = await getBackgroundPool().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM (SELECT 1 FROM outbound_deliveries WHERE status = 'pending' AND redrive_id = $1 LIMIT $2) AS w",
    [id, cap],
  );
  return rows[0].n;
}

/** Redrives as a kind of the shared bulk runner. */
const REDRIVE_KIND: BulkKind<RedriveRow, DeliveryKey> = {
  table: "outbound_redrives",
  select: (op) => {
    // A tenant's redrive stays within its tenant whatever its stored filter says.
    const { where, params } = whereOf(op.tenant_id ? { ...op.query, tenant_id: op.tenant_id } : op.query);
    return { from: "outbound_deliveries o", columns: "o.event_id, o.destination_id", key: ["o.event_id", "o.destination_id"], where, params };
  },
  keyOf: (r) => [r.event_id, r.destination_id],
  // Due now, manual (like POST /retry), marked with the run; only while the destination is enabled and
  // the delivery still failed and is not in flight. The others count as failed.
  act: async (client, op, records) => {
    // A delivery to an ordered destination keeps its place or goes to the end of its key (docs/outbound.md "Ordered delivery").
    const { rowCount, rows } = await client.query<OrderingKeyRef>(
      `UPDATE outbound_deliveries o SET status = 'pending', manual = true, redrive_id = $3, updated_at = now(), ${retrySet("o")}
         FROM unnest($1::text[], $2::text[]) AS k(e, d), outbound_destinations dst
        WHERE o.event_id = k.e AND o.destination_id = k.d AND dst.id = o.destination_id AND dst.disabled_at IS NULL
          AND (${STATUS_SQL.failed} OR ${STATUS_SQL.retrying}) AND ${NOT_LEASED}
       RETURNING o.destination_id, o.ordering_key`,
      [records.map((r) => r.event_id), records.map((r) => r.destination_id), op.id],
    );
    await promoteOutboundHeads(rows, client);
    if (rowCount) await client.query("SELECT pg_notify($1, '')", [OUTBOUND_CHANNEL]);
    return { completed: rowCount ?? 0, failed: records.length - (rowCount ?? 0) };
  },
  isRecordError: () => false,
  enqueue: enqueueRedrive,
  backlog: (id) => waiting(id, 2 * getConfig().bulkBatchSize),
};

/** The `outbound_redrive` task: a slice of batches of redrive `id` (lib/delivery/bulk-runner.ts). Throws database errors (the job is retried). */
export function runRedriveSlice(id: string): Promise<BulkStep> {
  return runBulkSlice(REDRIVE_KIND, id, getConfig().bulkBatchSize);
}
