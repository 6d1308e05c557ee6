-- Issue 15 §5 "Retention": the six tables that grow with traffic are partitioned by time, so the worker
-- expires them by dropping whole partitions (lib/retention/partitions.ts), never by deleting rows.
-- Written by hand: Prisma cannot describe partitioning. The tables keep the columns, primary keys, indexes
-- and foreign keys schema.prisma describes (so `npm run db:migration` sees nothing to change); only their
-- storage differs. The partition key is the id itself: ids of these kinds start with their creation time
-- in milliseconds (lib/ids.ts, fixed-width base62, and the database collation is C), so a range of ids is a
-- range of creation times, the primary key on id alone is allowed (it contains the partition key), and a
-- lookup by id prunes to one partition. Existing rows are copied into the partitioned tables.

-- The smallest id of `prefix` created at `ms` (Unix milliseconds): the prefix, then base62 of ms * 2^80,
-- 22 characters wide, exactly as lib/ids.ts createId writes ids (there with 80 random bits after the time).
CREATE FUNCTION hookyard_id_bound(prefix text, ms bigint) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  n numeric := ms::numeric * 1208925819614629174706176;
  alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  out text := '';
BEGIN
  FOR i IN 1..22 LOOP
    out := substr(alphabet, (mod(n, 62))::int + 1, 1) || out;
    n := div(n, 62);
  END LOOP;
  RETURN prefix || out;
END $$;

-- Creates the partition of `tbl` holding ids created in [start_ms, end_ms), named `{tbl}_pYYYYMMDD` after
-- its first UTC day; false when that name exists already. Events keep fillfactor 70 (HOT claims).
CREATE FUNCTION hookyard_create_partition(tbl text, prefix text, start_ms bigint, end_ms bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  name text := tbl || '_p' || to_char(to_timestamp(start_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
  IF to_regclass(quote_ident(name)) IS NOT NULL THEN RETURN false; END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s', name, tbl,
    hookyard_id_bound(prefix, start_ms), hookyard_id_bound(prefix, end_ms),
    CASE WHEN tbl = 'events' THEN ' WITH (fillfactor = 70)' ELSE '' END);
  RETURN true;
END $$;

-- Keep the rows, drop the plain tables (request_raw_data first: it references requests).

CREATE TABLE "_keep_requests" AS SELECT * FROM "requests";
CREATE TABLE "_keep_request_raw_data" AS SELECT * FROM "request_raw_data";
CREATE TABLE "_keep_events" AS SELECT * FROM "events";
CREATE TABLE "_keep_ignored_events" AS SELECT * FROM "ignored_events";
CREATE TABLE "_keep_attempts" AS SELECT * FROM "attempts";
CREATE TABLE "_keep_transformation_executions" AS SELECT * FROM "transformation_executions";
DROP TABLE "request_raw_data";
DROP TABLE "requests";
DROP TABLE "events";
DROP TABLE "ignored_events";
DROP TABLE "attempts";
DROP TABLE "transformation_executions";

CREATE TABLE "requests" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "rejection_cause" TEXT,
    "ingested_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "requests_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");

CREATE TABLE "requests_default" PARTITION OF "requests" DEFAULT;

CREATE TABLE "request_raw_data" (
    "request_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "headers" JSONB NOT NULL,
    "body" BYTEA,
    "body_size" INTEGER NOT NULL,
    "content_type" TEXT,
    "client_ip" TEXT,

    CONSTRAINT "request_raw_data_pkey" PRIMARY KEY ("request_id")
) PARTITION BY RANGE ("request_id");

CREATE TABLE "request_raw_data_default" PARTITION OF "request_raw_data" DEFAULT;

CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_attempt_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "next_trigger" TEXT NOT NULL DEFAULT 'INITIAL',
    "response_status" INTEGER,
    "error_code" TEXT,
    "successful_at" TIMESTAMPTZ(3),
    "cli_id" TEXT,
    "data" JSONB,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cli_attempt_id" TEXT,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");

CREATE TABLE "events_default" PARTITION OF "events" DEFAULT WITH (fillfactor = 70);

CREATE TABLE "ignored_events" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "meta" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ignored_events_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");

CREATE TABLE "ignored_events_default" PARTITION OF "ignored_events" DEFAULT;

CREATE TABLE "attempts" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_status" INTEGER,
    "error_code" TEXT,
    "body" TEXT,
    "requested_url" TEXT,
    "http_method" TEXT,
    "bulk_retry_id" TEXT,
    "cli_id" TEXT,
    "successful_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "responded_at" TIMESTAMPTZ(3),
    "delivery_latency" INTEGER,
    "response_latency" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");

CREATE TABLE "attempts_default" PARTITION OF "attempts" DEFAULT;

CREATE TABLE "transformation_executions" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "transformation_id" TEXT NOT NULL,
    "webhook_id" TEXT,
    "request_id" TEXT,
    "event_id" TEXT,
    "log_level" TEXT NOT NULL,
    "logs" JSONB NOT NULL DEFAULT '[]',
    "original_data" JSONB,
    "transformed_data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transformation_executions_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");

CREATE TABLE "transformation_executions_default" PARTITION OF "transformation_executions" DEFAULT;

CREATE INDEX "requests_source_id_created_at_id_idx" ON "requests"("source_id", "created_at", "id");
CREATE INDEX "requests_team_id_created_at_id_idx" ON "requests"("team_id", "created_at", "id");
ALTER TABLE "requests" ADD CONSTRAINT "requests_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "request_raw_data" ADD CONSTRAINT "request_raw_data_request_id_fkey" FOREIGN KEY ("request_id") REFERENCES "requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "events_team_id_created_at_id_idx" ON "events"("team_id", "created_at", "id");
CREATE INDEX "events_request_id_idx" ON "events"("request_id");
CREATE INDEX "events_held_idx" ON "events"("webhook_id") WHERE (status = 'HOLD');
CREATE INDEX "events_pending_idx" ON "events"("next_attempt_at") WHERE (status IN ('QUEUED', 'SCHEDULED'));
CREATE INDEX "ignored_events_team_id_created_at_id_idx" ON "ignored_events"("team_id", "created_at", "id");
CREATE INDEX "ignored_events_request_id_idx" ON "ignored_events"("request_id");
CREATE INDEX "attempts_team_id_created_at_id_idx" ON "attempts"("team_id", "created_at", "id");
CREATE INDEX "attempts_event_id_created_at_idx" ON "attempts"("event_id", "created_at");
CREATE INDEX "transformation_executions_transformation_id_created_at_id_idx" ON "transformation_executions"("transformation_id", "created_at", "id");

-- Daily partitions from the oldest kept row's day (a day earlier, for ids minted just before their row's
-- created_at) to a week ahead; the worker keeps creating them ahead (RETENTION_PARTITION_DAYS).
DO $$
DECLARE
  day constant bigint := 86400000;
  oldest timestamptz := least(
    (SELECT min(created_at) FROM "_keep_requests"), (SELECT min(created_at) FROM "_keep_events"),
    (SELECT min(created_at) FROM "_keep_ignored_events"), (SELECT min(created_at) FROM "_keep_attempts"),
    (SELECT min(created_at) FROM "_keep_transformation_executions"), now());
  first_ms bigint := (floor(extract(epoch FROM oldest) * 1000 / day)::bigint - 1) * day;
  last_ms bigint := (floor(extract(epoch FROM now()) * 1000 / day)::bigint + 7) * day;
  t record;
  s bigint;
BEGIN
  FOR t IN SELECT * FROM (VALUES ('requests', 'req_'), ('request_raw_data', 'req_'), ('events', 'evt_'),
      ('ignored_events', 'ign_'), ('attempts', 'atm_'), ('transformation_executions', 'exc_')) AS v(tbl, prefix) LOOP
    s := first_ms;
    WHILE s < last_ms LOOP
      PERFORM hookyard_create_partition(t.tbl, t.prefix, s, s + day);
      s := s + day;
    END LOOP;
  END LOOP;
END $$;

-- The rows, back (each lands in the partition of its id).

INSERT INTO "requests" SELECT * FROM "_keep_requests";
INSERT INTO "request_raw_data" SELECT * FROM "_keep_request_raw_data";
INSERT INTO "events" SELECT * FROM "_keep_events";
INSERT INTO "ignored_events" SELECT * FROM "_keep_ignored_events";
INSERT INTO "attempts" SELECT * FROM "_keep_attempts";
INSERT INTO "transformation_executions" SELECT * FROM "_keep_transformation_executions";
DROP TABLE "_keep_requests";
DROP TABLE "_keep_request_raw_data";
DROP TABLE "_keep_events";
DROP TABLE "_keep_ignored_events";
DROP TABLE "_keep_attempts";
DROP TABLE "_keep_transformation_executions";
