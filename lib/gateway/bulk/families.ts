/**
 * The bulk operation families as data (docs/gateway-api.md#bulk-operations):
 * each is its path, its record `type`, the filter table of the
 * list it acts on (the same table validates `GET /events` and a bulk query, lib/http/query-schema.ts),
 * how its records are selected, and the action on one batch of them, run in the runner's transaction.
 */
import type pg from "pg";
import type { BatchResult } from "@/lib/delivery/bulk-runner";
import { BULK_JOB_PRIORITY, enqueueDeliveries } from "@/lib/delivery/jobs";
import { CANCEL_SQL, CANCELLABLE } from "@/lib/gateway/delivery/event-actions";
import { freshOrderingPos, type OrderingKeyRef, promoteHeads, retryOrderingSet } from "@/lib/gateway/delivery/ordering";
import { EVENT_FILTERS } from "@/lib/gateway/events/schemas";
import { IGNORED_EVENT_FILTERS } from "@/lib/gateway/ignored-events/schemas";
import { activeConnectionsOf, fanOutInTransaction } from "@/lib/gateway/pipeline/fanout";
import { REQUEST_FILTERS } from "@/lib/gateway/requests/request-store";
import { type ArchivedRequest, countArchived, replayArchived } from "@/lib/gateway/bulk/archive-replay";
import type { ApiVersion } from "@/lib/gateway/versions";
import { AppError, unprocessable } from "@/lib/http/errors";
import type { ParsedQuery, QueryValue } from "@/lib/http/query";
import { applyFilterTable, type FilterTable } from "@/lib/http/query-schema";

export type FamilyName = "events.retry" | "events.cancel" | "ignored_events.retry" | "requests.retry" | "requests.replay" | "requests.archive_replay";

/** A record picked for a batch: its id and, for ignored events, the request and connection it names. */
export type BulkRecord = { id: string; request_id?: string; webhook_id?: string };

/** The operation as the runner sees it. */
export type RunningOperation = { id: string; teamId: string; query: Record<string, unknown> };

export type { BatchResult };

export type BulkFamily = {
  name: FamilyName;
  /** Path under `/bulk/`. */
  path: string;
  /** The record's `type`; null for the families without one (ignored-events retry, replay). */
  type: string | null;
  /** First API version with this family (404 before). */
  since?: ApiVersion;
  /** Filters its `query` takes (the list endpoint's table). */
  filters: FilterTable;
  /** Keys of `query` that are not filters (replay's `target`), checked by the family itself. */
  extraKeys: string[];
  /** Table and alias of its records, and the columns a batch needs. */
  from: string;
  alias: string;
  columns: string;
  /** A create whose query matches nothing is a 422 (docs/gateway-api.md#bulk-operations). */
  emptyIsError: boolean;
  /** The events-retry plan also answers `progress: 0`. */
  planHasProgress: boolean;
  /** Acts on one batch inside `client`'s transaction. Throws database errors (the batch is then redone record by record). */
  act: (client: pg.PoolClient, op: RunningOperation, records: BulkRecord[]) => Promise<BatchResult>;
  /** Counts the records of `query` itself (records that are not rows: the archive's), with the set's bound; else SQL over `from`. Throws 422. */
  count?: (teamId: string, query: Record<string, unknown>) => Promise<{ count: number; bound: string | null }>;
};

const ids = (records: BulkRecord[]) => records.map((r) => r.id);

/** Marks requests run again by operation `opId`, and the events it created. */
async function markFanout(client: pg.PoolClient, opId: string, requestIds: string[], eventIds: string[]) {
  await client.query("UPDATE requests SET bulk_retry_id = $1, updated_at = now() WHERE id = ANY($2)", [opId, requestIds]);
  if (eventIds.length) await client.query("UPDATE events SET bulk_retry_id = $1 WHERE id = ANY($2)", [opId, eventIds]);
}

/** Replay target of a query: `{source_id, webhook_ids?}` (docs/gateway-api.md#bulk-operations). */
export type ReplayTarget = { source_id: string; webhook_ids?: string[] };

const FAMILIES: BulkFamily[] = [
  {
    name: "events.retry",
    path: "events/retry",
    type: "events.retry",
    filters: EVENT_FILTERS,
    extraKeys: [],
    from: "events e",
    alias: "e",
    columns: "e.id",
    emptyIsError: false,
    planHasProgress: true,
    // A new delivery now, with trigger BULK_RETRY, through the connection's current destination and rules
    // (delivery reads them when it runs); its jobs yield to live deliveries (BULK_JOB_PRIORITY).
    act: async (client, op, records) => {
      const { rows } = await client.query<{ id: string }>(
        `UPDATE events SET ${retryOrderingSet("$4")}, status = 'QUEUED', next_trigger = 'BULK_RETRY', bulk_retry_id = $3, error_code = NULL,
                next_attempt_at = now(), updated_at = now()
          WHERE id = ANY($1) AND team_id = $2 RETURNING id`,
        [ids(records), op.teamId, op.id, freshOrderingPos()],
      );
      await enqueueDeliveries(
        client,
        rows.map((r) => r.id),
        [],
        BULK_JOB_PRIORITY,
      );
      return { completed: rows.length, failed: records.length - rows.length };
    },
  },
  {
    name: "events.cancel",
    path: "events/cancel",
    type: "events.cancel",
    since: "2025-07-01",
    filters: EVENT_FILTERS,
    extraKeys: [],
    from: "events e",
    alias: "e",
    columns: "e.id",
    emptyIsError: true,
    planHasProgress: false,
    // Stops every pending delivery of the matched events; delivered ones keep their history unchanged.
    // Cancelled ordered events (and released blocked keys) let the next of their keys go, when this commits.
    act: async (client, op, records) => {
      const { rows } = await client.query<{ destination_id: string; ordering_key: string | null }>(
        `${CANCEL_SQL("id = ANY($1) AND team_id = $2", "$3")} RETURNING destination_id, ordering_key`,
        [ids(records), op.teamId, CANCELLABLE],
      );
      await promoteHeads(
        rows.filter((r): r is OrderingKeyRef => r.ordering_key !== null),
        client,
      );
      return { completed: records.length, failed: 0 };
    },
  },
  {
    name: "ignored_events.retry",
    path: "ignored-events/retry",
    type: null,
    filters: IGNORED_EVENT_FILTERS,
    extraKeys: [],
    from: "ignored_events i",
    alias: "i",
    columns: "i.id, i.request_id, i.webhook_id",
    emptyIsError: true,
    planHasProgress: false,
    // The ignored request runs through its connection again, with the connection's rules of today.
    act: async (client, op, records) => {
      const byConnection = new Map<string, BulkRecord[]>();
      for (const r of records) byConnection.set(r.webhook_id!, [...(byConnection.get(r.webhook_id!) ?? []), r]);
      let failed = 0;
      for (const [connectionId, group] of byConnection) {
        const { rowCount } = await client.query("SELECT 1 FROM connections WHERE id = $1 AND team_id = $2", [connectionId, op.teamId]);
        if (!rowCount) {
          // The connection was deleted since: nothing to run the request through.
          failed += group.length;
          continue;
        }
        const requestIds = [...new Set(group.map((r) => r.request_id!))];
        const { ids: eventIds, skipped } = await fanOutInTransaction(client, requestIds, { connectionIds: [connectionId], priority: BULK_JOB_PRIORITY });
        failed += group.filter((r) => skipped.includes(r.request_id!)).length;
        await markFanout(client, op.id, requestIds, eventIds);
      }
      return { completed: records.length - failed, failed };
    },
  },
  {
    name: "requests.retry",
    path: "requests/retry",
    type: "requests.retry",
    filters: REQUEST_FILTERS,
    extraKeys: [],
    from: "requests r",
    alias: "r",
    columns: "r.id",
    emptyIsError: true,
    planHasProgress: false,
    // Ingestion's fan-out again, on the source's current connections.
    act: async (client, op, records) => {
      const { ids: eventIds, skipped } = await fanOutInTransaction(client, ids(records), { priority: BULK_JOB_PRIORITY });
      await markFanout(client, op.id, ids(records), eventIds);
      return { completed: records.length - skipped.length, failed: skipped.length };
    },
  },
  {
    name: "requests.replay",
    path: "requests/replay",
    type: null,
    filters: REQUEST_FILTERS,
    extraKeys: ["target"],
    from: "requests r",
    alias: "r",
    columns: "r.id",
    emptyIsError: false,
    planHasProgress: false,
    // The full pipeline (rules, transformations, deduplication) through the target connections, resolved
    // now: the source's active connections, or those of `webhook_ids` still active.
    act: async (client, op, records) => {
      const target = op.query.target as ReplayTarget;
      const targets = await activeConnectionsOf(op.teamId, target.source_id, target.webhook_ids);
      if (targets.length === 0) return { completed: 0, failed: records.length };
      const { ids: eventIds, skipped } = await fanOutInTransaction(client, ids(records), { targets, priority: BULK_JOB_PRIORITY });
      await markFanout(client, op.id, ids(records), eventIds);
      return { completed: records.length - skipped.length, failed: skipped.length };
    },
  },
  {
    name: "requests.archive_replay",
    path: "archived-requests/replay",
    type: null,
    since: "2025-07-01",
    // Its filters (created_at, source_id) are checked by countArchived: the records are archive lines, not rows.
    filters: {},
    extraKeys: ["target", "created_at", "source_id"],
    from: "requests r",
    alias: "r",
    columns: "r.id",
    emptyIsError: true,
    planHasProgress: false,
    // Ingested again into the target connections (docs/gateway-api.md "Replay from the archive"); the
    // runner hands it the archived requests (lib/gateway/bulk/runner.ts).
    act: (client, op, records) => replayArchived(client, op, records as unknown as ArchivedRequest[]),
    count: countArchived,
  },
];

/** The family at `/bulk/{resource}/{verb}`, or undefined. */
export function familyAt(resource: string, verb: string): BulkFamily | undefined {
  return FAMILIES.find((f) => f.path === `${resource}/${verb}`);
}

/** The family named `name` (a stored operation's). Throws for an unknown name. */
export function familyNamed(name: string): BulkFamily {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) throw new Error(`unknown bulk family ${name}`);
  return f;
}

export const BULK_FAMILIES: readonly BulkFamily[] = FAMILIES;

/** A JSON query value as the query-string form the filter tables take (numbers and booleans as text). */
function toQueryValue(field: string, value: unknown, depth: number): QueryValue {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && depth < 2) return value.map((v, i) => toQueryValue(`${field}.${i}`, v, depth + 1));
  if (value && typeof value === "object" && !Array.isArray(value) && depth < 2) {
    const out = Object.create(null) as Record<string, QueryValue>;
    for (const [k, v] of Object.entries(value)) out[k] = toQueryValue(`${field}.${k}`, v, depth + 1);
    return out;
  }
  throw unprocessable(`query.${field}: must be a string, number, boolean, an array of them or an operator object`, { field: `query.${field}` });
}

/** 422 naming `query.<field>` for a filter error of the list's table (a 400 there). */
function asUnprocessable(err: unknown): never {
  if (err instanceof AppError && err.status === 400) {
    const field = typeof err.data.field === "string" ? `query.${err.data.field}` : "query";
    throw unprocessable(`${field}: ${typeof err.data.message === "string" ? err.data.message : err.message}`, { field });
  }
  throw err;
}

/**
 * Validates a bulk `query` (a JSON object) against `family`'s filters: unknown keys, bad values and bad
 * operators are a 422 naming `query.<field>`. Returns the filters in query-string form (without the
 * extra keys). Throws 422.
 */
export function parseBulkQuery(family: BulkFamily, query: unknown): ParsedQuery {
  if (!query || typeof query !== "object" || Array.isArray(query)) throw unprocessable("query: must be an object", { field: "query" });
  const out = Object.create(null) as ParsedQuery;
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (family.extraKeys.includes(key)) continue;
    if (!Object.hasOwn(family.filters, key)) {
      throw unprocessable(`query.${key}: unknown filter; this family takes ${[...Object.keys(family.filters), ...family.extraKeys].join(", ")}`, {
        field: `query.${key}`,
      });
    }
    if (value === null || value === undefined) continue;
    // Content filters take the filter rule's syntax (simple-json-match): any JSON, handed on as its text.
    out[key] = family.filters[key].document && typeof value !== "string" ? JSON.stringify(value) : toQueryValue(key, value, 0);
  }
  try {
    // Validation only: the WHERE clauses are built again where they are used.
    applyFilterTable(family.filters, out, [], []);
  } catch (err) {
    asUnprocessable(err);
  }
  return out;
}

/**
 * The WHERE clauses and parameters selecting `family`'s records of `teamId` matched by `filters`
 * (parseBulkQuery's output), parameters starting at $1.
 */
export function bulkWhere(family: BulkFamily, teamId: string, filters: ParsedQuery): { where: string[]; params: unknown[] } {
  const params: unknown[] = [teamId];
  const where = [`${family.alias}.team_id = $1`];
  applyFilterTable(family.filters, filters, where, params);
  return { where, params };
}
