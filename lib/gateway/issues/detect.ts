/**
 * Issue detection by the worker (docs/gateway-api.md#issues-and-issue-triggers).
 * Off the delivery path: a loop reads what delivery and transformations recorded since its watermark
 * (`issue_scan_state`, one row per stream, locked so one worker scans at a time) and, for each enabled
 * trigger of the team that matches, opens an issue or adds to the one with the same aggregation keys:
 * - delivery: failed attempts (`first_attempt`: any failure; `final_attempt`: only when the event is
 *   FAILED for good), grouped by connection, response status and error code;
 * - transformation: executions at or above the trigger's log level, grouped by transformation and level;
 * - backpressure: destinations with a due event waiting longer than `delay` ms, grouped by destination.
 * `first_seen_at`/`last_seen_at` track occurrences; a RESOLVED issue reopens (OPENED) when it happens
 * again; IGNORED and ACKNOWLEDGED ones keep their status. Events are linked to their issue
 * (`issue_events`). Opening sends `issue.opened`, reopening `issue.updated` (notify.ts); attempts
 * send `event.successful` / `deprecated.attempt-failed` to the teams that chose those topics.
 * Only rows older than SETTLE_MS are read, so attempts written out of id order are not skipped.
 * An issue whose events were all retried by an events bulk retry with its `issue_id`, and all delivered,
 * resolves itself (resolveRetriedIssues; docs/dashboard.md "Issues").
 */
import type pg from "pg";
import { getBackgroundPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { getAttempt } from "@/lib/gateway/attempts/attempt-store";
import { getEvent } from "@/lib/gateway/events/event-store";
import { type IssueRow, toIssue } from "@/lib/gateway/issues/issue-store";
import { LATEST_VERSION } from "@/lib/gateway/versions";
import { notifyIssue } from "@/lib/gateway/issues/notify";
import { LOG_LEVELS } from "@/lib/gateway/issues/schemas";
import { createId, idLowerBound } from "@/lib/ids";
import { logger } from "@/lib/log";
import { startPeriodic } from "@/lib/db/periodic";

const log = logger("issues");
/** Rows younger than this are left for the next pass (writes commit in batches, not in id order), ms. */
export const SETTLE_MS = 2_000;
/** Rows read per stream per pass. */
const SCAN_LIMIT = 2_000;
/** How often backpressure is checked, ms. */
const BACKPRESSURE_EVERY_MS = 10_000;

type Trigger = { id: string; team_id: string; type: string; configs: Record<string, unknown> };
type Occurrence = {
  teamId: string;
  triggerId: string;
  type: string;
  groupKey: string;
  keys: Record<string, unknown[]>;
  reference: Record<string, unknown>;
  at: Date;
  eventId?: string;
};

/** True when `target` (ids or a name glob such as `"*"` or `"shop-*"`) covers the resource `id` named `name`. */
export function targets(target: unknown, id: string, name: string | null): boolean {
  if (Array.isArray(target)) return target.includes(id);
  if (typeof target !== "string") return false;
  const re = new RegExp(
    `^${target
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(name ?? "") || target === id;
}

async function enabledTriggers(db: pg.PoolClient, type: string, teamIds: string[]): Promise<Trigger[]> {
  if (teamIds.length === 0) return [];
  const { rows } = await db.query<Trigger>(
    "SELECT id, team_id, type, configs FROM issue_triggers WHERE type = $1 AND team_id = ANY($2) AND disabled_at IS NULL ORDER BY created_at, id",
    [type, teamIds],
  );
  return rows;
}

/** The watermark of `stream` locked for this transaction, or null while another worker holds it. */
async function lockStream(db: pg.PoolClient, stream: string, start: string): Promise<string | null> {
  await db.query("INSERT INTO issue_scan_state (stream, last_id) VALUES ($1, $2) ON CONFLICT (stream) DO NOTHING", [stream, start]);
  const { rows } = await db.query<{ last_id: string }>("SELECT last_id FROM issue_scan_state WHERE stream = $1 FOR UPDATE SKIP LOCKED", [stream]);
  return rows[0]?.last_id ?? null;
}

/** The next `limit` ids of `table` after `from` and before `until`: the last one, or null when none. */
async function scanUpTo(db: pg.PoolClient, table: string, from: string, until: string): Promise<string | null> {
  const { rows } = await db.query<{ upto: string | null }>(
    `SELECT max(id) AS upto FROM (SELECT id FROM ${table} WHERE id > $1 AND id < $2 ORDER BY id LIMIT ${SCAN_LIMIT}) s`,
    [from, until],
  );
  return rows[0]?.upto ?? null;
}

/** Failed attempts after the watermark → delivery occurrences. */
async function deliveryOccurrences(db: pg.PoolClient, now: number): Promise<Occurrence[]> {
  const from = await lockStream(db, "attempts", idLowerBound("attempt", now));
  if (from === null) return [];
  const upto = await scanUpTo(db, "attempts", from, idLowerBound("attempt", now - SETTLE_MS));
  if (!upto) return [];
  await db.query("UPDATE issue_scan_state SET last_id = $2 WHERE stream = $1", ["attempts", upto]);
  const { rows } = await db.query<{
    id: string;
    team_id: string;
    event_id: string;
    response_status: number | null;
    error_code: string | null;
    created_at: Date;
    webhook_id: string;
    event_status: string;
    connection_name: string | null;
  }>(
    `SELECT a.id, a.team_id, a.event_id, a.response_status, a.error_code, a.created_at, e.webhook_id, e.status AS event_status, w.name AS connection_name
       FROM attempts a JOIN events e ON e.id = a.event_id LEFT JOIN connections w ON w.id = e.webhook_id
      WHERE a.id > $1 AND a.id <= $2 AND a.status = 'FAILED' ORDER BY a.id`,
    [from, upto],
  );
  const triggers = await enabledTriggers(db, "delivery", [...new Set(rows.map((r) => r.team_id))]);
  const out: Occurrence[] = [];
  for (const r of rows) {
    const t = triggers.find(
      (t) =>
        t.team_id === r.team_id &&
        targets(t.configs.connections, r.webhook_id, r.connection_name) &&
        (t.configs.strategy !== "final_attempt" || r.event_status === "FAILED"),
    );
    if (!t) continue;
    out.push({
      teamId: r.team_id,
      triggerId: t.id,
      type: "delivery",
      at: r.created_at,
      eventId: r.event_id,
      groupKey: `${r.webhook_id}|${r.response_status ?? ""}|${r.error_code ?? ""}`,
      keys: {
        webhook_id: [r.webhook_id],
        response_status: r.response_status === null ? [] : [r.response_status],
        error_code: r.error_code === null ? [] : [r.error_code],
      },
      reference: { event_id: r.event_id, attempt_id: r.id },
    });
  }
  return out;
}

/** Executions at or above a trigger's log level after the watermark → transformation occurrences. */
async function transformationOccurrences(db: pg.PoolClient, now: number): Promise<Occurrence[]> {
  const from = await lockStream(db, "executions", idLowerBound("execution", now));
  if (from === null) return [];
  const upto = await scanUpTo(db, "transformation_executions", from, idLowerBound("execution", now - SETTLE_MS));
  if (!upto) return [];
  await db.query("UPDATE issue_scan_state SET last_id = $2 WHERE stream = $1", ["executions", upto]);
  const { rows } = await db.query<{
    id: string;
    team_id: string;
    transformation_id: string;
    log_level: string;
    event_id: string | null;
    created_at: Date;
    name: string | null;
  }>(
    `SELECT x.id, x.team_id, x.transformation_id, x.log_level, x.event_id, x.created_at, t.name
       FROM transformation_executions x LEFT JOIN transformations t ON t.id = x.transformation_id
      WHERE x.id > $1 AND x.id <= $2 AND x.log_level IN ('warn', 'error', 'fatal', 'info', 'debug') ORDER BY x.id`,
    [from, upto],
  );
  const triggers = await enabledTriggers(db, "transformation", [...new Set(rows.map((r) => r.team_id))]);
  const rank = (level: unknown) => LOG_LEVELS.indexOf(level as (typeof LOG_LEVELS)[number]);
  const out: Occurrence[] = [];
  for (const r of rows) {
    const t = triggers.find(
      (t) => t.team_id === r.team_id && rank(r.log_level) >= rank(t.configs.log_level) && targets(t.configs.transformations, r.transformation_id, r.name),
    );
    if (!t) continue;
    out.push({
      teamId: r.team_id,
      triggerId: t.id,
      type: "transformation",
      at: r.created_at,
      eventId: r.event_id ?? undefined,
      groupKey: `${r.transformation_id}|${r.log_level}`,
      keys: { transformation_id: [r.transformation_id], log_level: [r.log_level] },
      reference: { transformation_execution_id: r.id, transformation_id: r.transformation_id },
    });
  }
  return out;
}

let lastBackpressure = 0;
/**
 * Destinations with an event waiting longer than a backpressure trigger's `delay` → occurrences. An
 * event waits from its due time (`next_attempt_at`: the worker has not got to it), and a QUEUED event
 * never attempted waits from its creation: a destination held back by its `rate_limit` pushes
 * `next_attempt_at` forward at every turn, yet its backlog is as old as its oldest event.
 */
async function backpressureOccurrences(db: pg.PoolClient, now: number): Promise<Occurrence[]> {
  if (now - lastBackpressure < BACKPRESSURE_EVERY_MS) return [];
  lastBackpressure = now;
  const { rows: triggers } = await db.query<Trigger>(
    "SELECT id, team_id, type, configs FROM issue_triggers WHERE type = 'backpressure' AND disabled_at IS NULL",
  );
  const out: Occurrence[] = [];
  for (const t of triggers) {
    const { rows } = await db.query<{ destination_id: string; name: string | null; oldest: Date; waiting: number }>(
      `SELECT e.destination_id, d.name, count(*)::int AS waiting,
              min(CASE WHEN e.status = 'QUEUED' AND e.attempts = 0 THEN least(e.created_at, e.next_attempt_at) ELSE e.next_attempt_at END) AS oldest
         FROM events e LEFT JOIN destinations d ON d.id = e.destination_id
        WHERE e.team_id = $1 AND e.status IN ('QUEUED', 'SCHEDULED')
          AND (e.next_attempt_at < $2 OR (e.status = 'QUEUED' AND e.attempts = 0 AND e.created_at < $2))
        GROUP BY e.destination_id, d.name`,
      [t.team_id, new Date(now - Number(t.configs.delay))],
    );
    for (const r of rows) {
      if (!targets(t.configs.destinations, r.destination_id, r.name)) continue;
      out.push({
        teamId: t.team_id,
        triggerId: t.id,
        type: "backpressure",
        at: new Date(now),
        groupKey: r.destination_id,
        keys: { destination_id: [r.destination_id] },
        reference: { destination_id: r.destination_id, waiting: r.waiting, oldest_due_at: r.oldest.toISOString() },
      });
    }
  }
  return out;
}

/** A notification to publish once the pass committed: an issue's, or an attempt's (`event.successful`, `deprecated.attempt-failed`). */
type Note = { teamId: string; topic: string; issue?: IssueRow; attempt?: { id: string; event_id: string } };

/** How often finished bulk retries are checked for issues to resolve, ms. */
const RESOLVE_EVERY_MS = 3_000;
/** Bulk retries finished longer ago than this no longer resolve their issue, ms. */
const RESOLVE_WINDOW_MS = 86_400_000;
let lastResolve = 0;
/**
 * Resolves the issues fixed by a bulk retry (docs/dashboard.md "Issues": "Retry these events"): an OPENED or
 * ACKNOWLEDGED issue named by the `issue_id` (a string) of an `events.retry` operation that completed within
 * RESOLVE_WINDOW_MS, not cancelled, when every event that operation retried is now SUCCESSFUL, no failure was
 * seen in the issue since the operation started (`last_seen_at`), and nobody changed the issue since the
 * last of those deliveries succeeded (a person's reopen stands). Returns an `issue.updated` note per issue.
 */
async function resolveRetriedIssues(db: pg.PoolClient, now: number): Promise<Note[]> {
  if (now - lastResolve < RESOLVE_EVERY_MS) return [];
  lastResolve = now;
  const { rows } = await db.query<IssueRow>(
    `WITH done AS (
       SELECT b.id, b.team_id, b.query->>'issue_id' AS issue_id, b.created_at,
              (SELECT max(e.successful_at) FROM events e WHERE e.bulk_retry_id = b.id AND e.team_id = b.team_id) AS succeeded_at
         FROM bulk_operations b
        WHERE b.family = 'events.retry' AND b.completed_at > $1 AND b.cancelled_at IS NULL AND jsonb_typeof(b.query->'issue_id') = 'string'
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.bulk_retry_id = b.id AND e.team_id = b.team_id AND e.status <> 'SUCCESSFUL'))
     UPDATE issues i SET status = 'RESOLVED', updated_at = now()
       FROM done d
      WHERE i.id = d.issue_id AND i.team_id = d.team_id AND i.status IN ('OPENED', 'ACKNOWLEDGED') AND i.dismissed_at IS NULL
        AND d.succeeded_at IS NOT NULL AND i.last_seen_at <= d.created_at AND i.updated_at < d.succeeded_at
      RETURNING i.*`,
    [new Date(now - RESOLVE_WINDOW_MS)],
  );
  return rows.map((issue) => ({ teamId: issue.team_id, topic: "issue.updated", issue }));
}

/**
 * Attempts after the watermark of the teams that chose `event.successful` (successful attempts) or
 * `deprecated.attempt-failed` (failed ones) → notes. Attempts of events of the notification source
 * itself are left out, so a notification's own delivery never notifies again.
 */
async function attemptNotes(db: pg.PoolClient, now: number): Promise<Note[]> {
  const from = await lockStream(db, "attempt-notifications", idLowerBound("attempt", now));
  if (from === null) return [];
  const upto = await scanUpTo(db, "attempts", from, idLowerBound("attempt", now - SETTLE_MS));
  if (!upto) return [];
  await db.query("UPDATE issue_scan_state SET last_id = $2 WHERE stream = $1", ["attempt-notifications", upto]);
  const { rows } = await db.query<{ id: string; team_id: string; event_id: string; status: string }>(
    `SELECT a.id, a.team_id, a.event_id, a.status
       FROM attempts a JOIN notification_settings n ON n.team_id = a.team_id AND n.enabled JOIN events e ON e.id = a.event_id
      WHERE a.id > $1 AND a.id <= $2 AND e.source_id <> n.source_id
        AND ((a.status = 'SUCCESSFUL' AND 'event.successful' = ANY(n.topics)) OR (a.status = 'FAILED' AND 'deprecated.attempt-failed' = ANY(n.topics)))
      ORDER BY a.id`,
    [from, upto],
  );
  return rows.map((r) => ({
    teamId: r.team_id,
    topic: r.status === "SUCCESSFUL" ? "event.successful" : "deprecated.attempt-failed",
    attempt: { id: r.id, event_id: r.event_id },
  }));
}

/** The `data` of a note: the issue, or `{event, attempt}` as the API shows them (latest version). */
async function noteData(n: Note): Promise<unknown> {
  if (n.issue) return toIssue(n.issue);
  const [event, attempt] = await Promise.all([getEvent(n.teamId, n.attempt!.event_id, LATEST_VERSION), getAttempt(n.teamId, n.attempt!.id)]);
  return { event, attempt };
}

/**
 * The issue's `data` (docs/gateway-api.md#issues-and-issue-triggers): for a delivery issue
 * `{trigger_event, trigger_attempt}`, the event and the attempt that opened it as the API shows them,
 * without the payloads (the event's `data`, the attempt's response `body`: they stay readable at
 * their own endpoints, and text PostgreSQL refuses in jsonb must never stop detection); null when
 * gone. Otherwise `{trigger_reference}`.
 */
async function issueData(o: Occurrence): Promise<Record<string, unknown>> {
  if (o.type !== "delivery") return { trigger_reference: o.reference };
  const [event, attempt] = await Promise.all([
    getEvent(o.teamId, String(o.reference.event_id), LATEST_VERSION).catch(() => null),
    getAttempt(o.teamId, String(o.reference.attempt_id)).catch(() => null),
  ]);
  const { data: _data, ...triggerEvent } = event ?? {};
  const { body: _body, ...triggerAttempt } = attempt ?? {};
  return { trigger_event: event ? triggerEvent : null, trigger_attempt: attempt ? triggerAttempt : null };
}

/** Opens or updates the issue of each group of `occurrences`; returns the notifications to send. */
async function record(db: pg.PoolClient, occurrences: Occurrence[]): Promise<Note[]> {
  const groups = new Map<string, Occurrence[]>();
  for (const o of occurrences)
    groups.set(`${o.teamId}\u0000${o.type}\u0000${o.groupKey}`, [...(groups.get(`${o.teamId}\u0000${o.type}\u0000${o.groupKey}`) ?? []), o]);
  const out: Note[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    const last = group.at(-1)!;
    const { rows: existing } = await db.query<IssueRow>(
      "SELECT * FROM issues WHERE team_id = $1 AND type = $2 AND group_key = $3 AND dismissed_at IS NULL FOR UPDATE",
      [first.teamId, first.type, first.groupKey],
    );
    let issue: IssueRow;
    if (!existing[0]) {
      ({
        rows: [issue],
      } = (await db.query<IssueRow>(
        `INSERT INTO issues (id, team_id, issue_trigger_id, type, status, group_key, aggregation_keys, reference, data, opened_at, first_seen_at, last_seen_at)
         VALUES ($1, $2, $3, $4, 'OPENED', $5, $6, $7, $8, now(), $9, $10) RETURNING *`,
        [
          createId("issue"),
          first.teamId,
          first.triggerId,
          first.type,
          first.groupKey,
          JSON.stringify(first.keys),
          JSON.stringify(first.reference),
          JSON.stringify(await issueData(first)),
          first.at,
          last.at,
        ],
      )) as { rows: IssueRow[] });
      out.push({ teamId: first.teamId, topic: "issue.opened", issue });
    } else {
      const reopen = existing[0].status === "RESOLVED";
      ({
        rows: [issue],
      } = (await db.query<IssueRow>(
        `UPDATE issues SET last_seen_at = greatest(last_seen_at, $2), updated_at = now(),
                status = CASE WHEN $3 THEN 'OPENED' ELSE status END, opened_at = CASE WHEN $3 THEN now() ELSE opened_at END,
                reference = CASE WHEN $3 THEN $4::jsonb ELSE reference END, data = CASE WHEN $3 THEN $5::jsonb ELSE data END
          WHERE id = $1 RETURNING *`,
        [existing[0].id, last.at, reopen, JSON.stringify(first.reference), reopen ? JSON.stringify(await issueData(first)) : null],
      )) as { rows: IssueRow[] });
      if (reopen) out.push({ teamId: first.teamId, topic: "issue.updated", issue });
    }
    const eventIds = [...new Set(group.map((o) => o.eventId).filter((e): e is string => Boolean(e)))];
    if (eventIds.length) {
      await db.query("INSERT INTO issue_events (issue_id, event_id, team_id) SELECT $1, e, $3 FROM unnest($2::text[]) AS e ON CONFLICT DO NOTHING", [
        issue.id,
        eventIds,
        first.teamId,
      ]);
    }
  }
  return out;
}

/**
 * One detection pass over every stream. Returns how many issues it opened, reopened or resolved. Throws
 * database errors (the pass is rolled back and its rows read again next time).
 */
async function detectIssues(now = Date.now()): Promise<number> {
  const notes = await inTransaction(async (db) => {
    const occurrences = [...(await deliveryOccurrences(db, now)), ...(await transformationOccurrences(db, now)), ...(await backpressureOccurrences(db, now))];
    const issueNotes = occurrences.length ? await record(db, occurrences) : [];
    return [...issueNotes, ...(await resolveRetriedIssues(db, now)), ...(await attemptNotes(db, now))];
  }, getBackgroundPool());
  let issues = 0;
  for (const n of notes) {
    if (n.issue) issues += 1;
    const data = await noteData(n).catch((err) => log.warn(`notification ${n.topic}: ${err instanceof Error ? err.message : err}`));
    if (data !== undefined) await notifyIssue(n.teamId, n.topic, data);
  }
  if (issues) log.info(`${issues} issue(s) opened, reopened or resolved`);
  return issues;
}

/**
 * A destination's circuit breaker opened or closed (lib/delivery/destination-state.ts, docs/pipeline.md
 * "Receiver-driven limits"): the team gets the notification `destination.circuit_opened` or
 * `destination.circuit_closed` (`data`: `{destination_id, circuit}`) when it chose that topic, and each
 * enabled backpressure trigger of the team that covers the destination opens (or updates) its
 * backpressure issue of that destination, with `reference.circuit` saying what happened. Throws database errors.
 */
export async function recordCircuitTransition(t: {
  teamId: string;
  destinationId: string;
  transition: "opened" | "closed";
  attempts: number;
  failures: number;
  nextProbeAt: Date | null;
}): Promise<void> {
  const circuit = {
    state: t.transition === "opened" ? "open" : "closed",
    ...(t.transition === "opened" && { attempts: t.attempts, failures: t.failures, next_probe_at: t.nextProbeAt?.toISOString() ?? null }),
  };
  const notes = await inTransaction(async (db) => {
    const { rows: triggers } = await db.query<Trigger & { name: string | null }>(
      `SELECT t.id, t.team_id, t.type, t.configs, d.name FROM issue_triggers t LEFT JOIN destinations d ON d.id = $2
        WHERE t.team_id = $1 AND t.type = 'backpressure' AND t.disabled_at IS NULL`,
      [t.teamId, t.destinationId],
    );
    const occurrences: Occurrence[] = triggers
      .filter((tr) => targets(tr.configs.destinations, t.destinationId, tr.name))
      .map((tr) => ({
        teamId: t.teamId,
        triggerId: tr.id,
        type: "backpressure",
        at: new Date(),
        groupKey: t.destinationId,
        keys: { destination_id: [t.destinationId] },
        reference: { destination_id: t.destinationId, circuit },
      }));
    return occurrences.length ? record(db, occurrences) : [];
  }, getBackgroundPool());
  for (const n of notes) await notifyIssue(n.teamId, n.topic, await noteData(n));
  await notifyIssue(t.teamId, `destination.circuit_${t.transition}`, { destination_id: t.destinationId, circuit });
}

/** Runs detectIssues every `everyMs` ms (first after one interval) until the returned function is called; it resolves when a pass in flight ended. */
export function startIssueDetection(everyMs = 1000): () => Promise<void> {
  return startPeriodic(detectIssues, everyMs, (err) => log.warn("issue detection failed", err instanceof Error ? err.message : err), false);
}
