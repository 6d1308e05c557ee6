import type pg from "pg";
import { getConfig } from "@/lib/config";
import { type BatchLoad, Batcher } from "@/lib/db/batcher";
import { byteaArrayParam } from "@/lib/db/binary-params";
import { getPool } from "@/lib/db/pool";
import { WriterLoad } from "@/lib/ingest/ingest-pressure";
import { announceRequests } from "@/lib/ingest/request-notifier";
import { storableJson, storableText } from "@/lib/ingest/storable";
import { tracingEnabled } from "@/lib/tracing";

/** One request to store: its `requests` row and its raw data. */
export type RequestRecord = {
  id: string;
  teamId: string;
  sourceId: string;
  verified: boolean;
  rejectionCause: string | null;
  ingestedAt: Date;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  bodySize: number;
  contentType: string | null;
  clientIp: string | null;
  /** The ingest span's W3C traceparent, kept with the request's fan-out (docs/operations.md "Traces"); null when tracing is off. */
  traceParent?: string | null;
};

/** Rows per multi-row INSERT at the most. */
const MAX_BATCH = 500;

// One statement writes the three tables: atomic without BEGIN/COMMIT round trips. An accepted request
// (no rejection cause) also gets its request_fanouts row, so its fan-out survives a crash after commit.
// With tracing on, the fan-out row also keeps the request's trace context ($15); off, the statement is the same as
// without traces (docs/operations.md "Traces").
const insertSql = (traced: boolean) => `
WITH r AS (
  INSERT INTO requests (id, team_id, source_id, verified, rejection_cause, ingested_at, created_at, updated_at)
  SELECT t.id, t.team_id, t.source_id, t.verified, t.rejection_cause, t.ingested_at, t.ingested_at, t.ingested_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::timestamptz[])
         AS t(id, team_id, source_id, verified, rejection_cause, ingested_at)
  RETURNING 1
), f AS (
  INSERT INTO request_fanouts (request_id, created_at${traced ? ", trace_parent" : ""})
  SELECT t.id, t.ingested_at${traced ? ", t.trace_parent" : ""}
    FROM unnest($1::text[], $5::text[], $6::timestamptz[]${traced ? ", $15::text[]" : ""}) AS t(id, rejection_cause, ingested_at${traced ? ", trace_parent" : ""})
   WHERE t.rejection_cause IS NULL
  RETURNING 1
)
INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size, content_type, client_ip)
SELECT * FROM unnest($1::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::bytea[], $12::int[], $13::text[], $14::text[])`;

// The same rows without request_fanouts: the caller runs the fan-out itself in its transaction (a replay from the archive).
const INSERT_WITHOUT_FANOUT_SQL = `
WITH r AS (
  INSERT INTO requests (id, team_id, source_id, verified, rejection_cause, ingested_at, created_at, updated_at, bulk_retry_id)
  SELECT t.id, t.team_id, t.source_id, t.verified, t.rejection_cause, t.ingested_at, t.ingested_at, t.ingested_at, $15
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::timestamptz[])
         AS t(id, team_id, source_id, verified, rejection_cause, ingested_at)
  RETURNING 1
)
INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size, content_type, client_ip)
SELECT * FROM unnest($1::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::bytea[], $12::int[], $13::text[], $14::text[])`;

/**
 * Writes `rows` (requests with their raw data, stored as ingestion stores them) in `client`'s open
 * transaction, marked with bulk operation `bulkId`, without queueing their fan-out: the caller runs it in
 * the same transaction (docs/gateway-api.md "Replay from the archive"). Throws database errors.
 */
export async function insertRequestsInTransaction(client: Pick<pg.PoolClient, "query">, rows: RequestRecord[], bulkId: string): Promise<void> {
  if (rows.length) await client.query(INSERT_WITHOUT_FANOUT_SQL, [...params(rows, false), bulkId]);
}

/** Prepared once per connection: the statement is parsed and planned once, not per batch. */
const STATEMENTS = {
  plain: { name: "hookyard_ingest_requests_v2", text: insertSql(false) },
  traced: { name: "hookyard_ingest_requests_traced_v1", text: insertSql(true) },
};

function params(rows: RequestRecord[], traced: boolean): unknown[] {
  const col = <T>(f: (r: RequestRecord) => T) => rows.map(f);
  const values = [
    col((r) => r.id),
    col((r) => r.teamId),
    col((r) => r.sourceId),
    col((r) => r.verified),
    col((r) => r.rejectionCause),
    col((r) => r.ingestedAt),
    // Text PostgreSQL refuses (U+0000, lone surrogates) is stored as its escape; the body is bytea, byte-exact.
    col((r) => storableText(r.method)),
    col((r) => storableText(r.path)),
    col((r) => storableText(r.query)),
    col((r) => storableJson(r.headers, "{}")),
    // Binary, not pg's hex text array: half the bytes, no encoding or parsing (lib/db/binary-params.ts).
    byteaArrayParam(rows.map((r) => r.body)),
    col((r) => r.bodySize),
    col((r) => storableText(r.contentType)),
    col((r) => storableText(r.clientIp)),
  ];
  if (traced) values.push(col((r) => r.traceParent ?? null));
  return values;
}

/**
 * Group commit for ingestion (docs/architecture.md#the-hot-path, over the shared mechanism lib/db/batcher.ts):
 * `write()` resolves only once the request's row is committed. There is no fixed wait: when no write is
 * in flight a request is written at once; what arrives meanwhile is gathered into the next multi-row
 * write (up to 500 rows). INGEST_WRITE_CONCURRENCY allows more writes in flight (measured: 1 is best on 2
 * cores, docs/benchmarks.md). If a batch fails, its rows are retried one by one, so one bad row (say, its
 * source was deleted) fails only itself. Live views are told after each commit (request-notifier.ts).
 */
export class RequestWriter {
  private readonly batcher: Batcher<RequestRecord, void>;

  /**
   * @param maxInFlight multi-row INSERTs in flight at once (INGEST_WRITE_CONCURRENCY, default 1).
   * @param load how busy the writer is; by default a WriterLoad, which announces saturation to delivery
   *   workers (lib/ingest/ingest-pressure.ts).
   */
  constructor(maxInFlight = getConfig().ingestWriteConcurrency, load: BatchLoad = new WriterLoad()) {
    this.batcher = new Batcher(insert, MAX_BATCH, maxInFlight, load);
  }

  /** Stores `record`; resolves after commit, rejects with the database error. */
  write(record: RequestRecord): Promise<void> {
    return this.batcher.submit(record);
  }
}

/** Writes `rows` with one statement (committed when it returns), then tells the live views. */
async function insert(rows: RequestRecord[]): Promise<void[]> {
  const traced = tracingEnabled();
  await getPool().query({ ...STATEMENTS[traced ? "traced" : "plain"], values: params(rows, traced) });
  announceRequests(rows);
  return new Array<void>(rows.length);
}

const globalForWriter = globalThis as unknown as { __hookyardRequestWriter?: RequestWriter };

/** The process-wide writer (shared with the route handlers Next.js bundles). */
export function getRequestWriter(): RequestWriter {
  globalForWriter.__hookyardRequestWriter ??= new RequestWriter();
  return globalForWriter.__hookyardRequestWriter;
}
