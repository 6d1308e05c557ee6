-- Issue 15 §5 "Retention": the six big tables become PostgreSQL range-partitioned tables, one partition per
-- UTC day, so the worker expires old data by dropping whole partitions (lib/retention/partitions.ts).
-- Their ids start with their creation time in ms (lib/ids.ts), so each table is partitioned on its id
-- (request_raw_data on its request id): primary keys stay (id), lookups by id prune to one partition, and
-- no query changes. The id columns get COLLATE "C" so that they sort in byte order (base62 is ASCII-ordered)
-- on any database, whatever its locale. Prisma cannot describe partitions: lib/db/catalog.ts describes a
-- partitioned table as its parent, and lists the differences from schema.prisma.
-- The foreign key request_raw_data -> requests is dropped (a foreign key between two partitioned tables
-- would forbid dropping a referenced partition); raw data is dropped with its day like its request.

-- The smallest id with this prefix created at `ms`: the twin of idLowerBound in lib/ids.ts (base62 of the
-- 128-bit number ms * 2^80, fixed width 22, alphabet in ASCII order).
CREATE FUNCTION hookyard_id_bound(prefix text, ms bigint) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  n numeric := ms::numeric * 1208925819614629174706176;
  alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  digits text := '';
BEGIN
  FOR i IN 1..22 LOOP
    digits := substr(alphabet, mod(n, 62)::int + 1, 1) || digits;
    n := div(n, 62);
  END LOOP;
  RETURN prefix || digits;
END $$;

-- The big tables with their partition key column and id prefix, children before parents.
CREATE FUNCTION hookyard_partitioned_tables() RETURNS TABLE (tbl text, key text, prefix text) LANGUAGE sql IMMUTABLE AS $$
  VALUES ('attempts', 'id', 'atm_'), ('events', 'id', 'evt_'), ('ignored_events', 'id', 'ign_'),
         ('transformation_executions', 'id', 'exc_'), ('request_raw_data', 'request_id', 'req_'), ('requests', 'id', 'req_')
$$;

-- Creates the missing daily partitions `{table}_pYYYYMMDD` of every big table for the UTC days from_day..to_day.
-- A partition is built apart, filled with the rows of its day that the DEFAULT partition caught meanwhile
-- (when no worker created it in time), then attached: so it never fails on rows already there.
-- Returns the number of partitions created.
CREATE FUNCTION hookyard_ensure_partitions(from_day date, to_day date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  t record;
  d date;
  part text;
  lo text;
  hi text;
  created integer := 0;
BEGIN
  FOR t IN SELECT * FROM hookyard_partitioned_tables() LOOP
    d := from_day;
    WHILE d <= to_day LOOP
      part := t.tbl || '_p' || to_char(d, 'YYYYMMDD');
      IF to_regclass(quote_ident(part)) IS NULL THEN
        lo := hookyard_id_bound(t.prefix, (extract(epoch FROM d::timestamp) * 1000)::bigint);
        hi := hookyard_id_bound(t.prefix, (extract(epoch FROM (d + 1)::timestamp) * 1000)::bigint);
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)%s', part, t.tbl,
                       CASE WHEN t.tbl = 'events' THEN ' WITH (fillfactor = 70)' ELSE '' END);
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
                       t.tbl || '_default', t.key, lo, t.key, hi, part);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', t.tbl, part, lo, hi);
        created := created + 1;
      END IF;
      d := d + 1;
    END LOOP;
  END LOOP;
  RETURN created;
END $$;

ALTER TABLE "request_raw_data" DROP CONSTRAINT "request_raw_data_request_id_fkey";

-- requests
ALTER TABLE "requests" RENAME TO "requests_old";
ALTER TABLE "requests_old" DROP CONSTRAINT "requests_pkey";
DROP INDEX "requests_source_id_created_at_id_idx";
DROP INDEX "requests_team_id_created_at_id_idx";
ALTER TABLE "requests_old" ALTER COLUMN "id" TYPE text COLLATE "C";
CREATE TABLE "requests" (LIKE "requests_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");
ALTER TABLE "requests" ADD CONSTRAINT "requests_pkey" PRIMARY KEY ("id");
CREATE INDEX "requests_source_id_created_at_id_idx" ON "requests"("source_id", "created_at", "id");
CREATE INDEX "requests_team_id_created_at_id_idx" ON "requests"("team_id", "created_at", "id");
CREATE TABLE "requests_default" PARTITION OF "requests" DEFAULT;

-- request_raw_data
ALTER TABLE "request_raw_data" RENAME TO "request_raw_data_old";
ALTER TABLE "request_raw_data_old" DROP CONSTRAINT "request_raw_data_pkey";
ALTER TABLE "request_raw_data_old" ALTER COLUMN "request_id" TYPE text COLLATE "C";
CREATE TABLE "request_raw_data" (LIKE "request_raw_data_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("request_id");
ALTER TABLE "request_raw_data" ADD CONSTRAINT "request_raw_data_pkey" PRIMARY KEY ("request_id");
CREATE TABLE "request_raw_data_default" PARTITION OF "request_raw_data" DEFAULT;

-- events
ALTER TABLE "events" RENAME TO "events_old";
ALTER TABLE "events_old" DROP CONSTRAINT "events_pkey";
DROP INDEX "events_team_id_created_at_id_idx";
DROP INDEX "events_request_id_idx";
DROP INDEX "events_held_idx";
DROP INDEX "events_pending_idx";
ALTER TABLE "events_old" ALTER COLUMN "id" TYPE text COLLATE "C";
CREATE TABLE "events" (LIKE "events_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY ("id");
CREATE INDEX "events_team_id_created_at_id_idx" ON "events"("team_id", "created_at", "id");
CREATE INDEX "events_request_id_idx" ON "events"("request_id");
CREATE INDEX "events_held_idx" ON "events"("webhook_id") WHERE status = 'HOLD';
CREATE INDEX "events_pending_idx" ON "events"("next_attempt_at") WHERE status IN ('QUEUED', 'SCHEDULED');
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT WITH (fillfactor = 70);

-- ignored_events
ALTER TABLE "ignored_events" RENAME TO "ignored_events_old";
ALTER TABLE "ignored_events_old" DROP CONSTRAINT "ignored_events_pkey";
DROP INDEX "ignored_events_team_id_created_at_id_idx";
DROP INDEX "ignored_events_request_id_idx";
ALTER TABLE "ignored_events_old" ALTER COLUMN "id" TYPE text COLLATE "C";
CREATE TABLE "ignored_events" (LIKE "ignored_events_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");
ALTER TABLE "ignored_events" ADD CONSTRAINT "ignored_events_pkey" PRIMARY KEY ("id");
CREATE INDEX "ignored_events_team_id_created_at_id_idx" ON "ignored_events"("team_id", "created_at", "id");
CREATE INDEX "ignored_events_request_id_idx" ON "ignored_events"("request_id");
CREATE TABLE "ignored_events_default" PARTITION OF "ignored_events" DEFAULT;

-- attempts
ALTER TABLE "attempts" RENAME TO "attempts_old";
ALTER TABLE "attempts_old" DROP CONSTRAINT "attempts_pkey";
DROP INDEX "attempts_team_id_created_at_id_idx";
DROP INDEX "attempts_event_id_created_at_idx";
ALTER TABLE "attempts_old" ALTER COLUMN "id" TYPE text COLLATE "C";
CREATE TABLE "attempts" (LIKE "attempts_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_pkey" PRIMARY KEY ("id");
CREATE INDEX "attempts_team_id_created_at_id_idx" ON "attempts"("team_id", "created_at", "id");
CREATE INDEX "attempts_event_id_created_at_idx" ON "attempts"("event_id", "created_at");
CREATE TABLE "attempts_default" PARTITION OF "attempts" DEFAULT;

-- transformation_executions
ALTER TABLE "transformation_executions" RENAME TO "transformation_executions_old";
ALTER TABLE "transformation_executions_old" DROP CONSTRAINT "transformation_executions_pkey";
DROP INDEX "transformation_executions_transformation_id_created_at_id_idx";
ALTER TABLE "transformation_executions_old" ALTER COLUMN "id" TYPE text COLLATE "C";
CREATE TABLE "transformation_executions" (LIKE "transformation_executions_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");
ALTER TABLE "transformation_executions" ADD CONSTRAINT "transformation_executions_pkey" PRIMARY KEY ("id");
CREATE INDEX "transformation_executions_transformation_id_created_at_id_idx" ON "transformation_executions"("transformation_id", "created_at", "id");
CREATE TABLE "transformation_executions_default" PARTITION OF "transformation_executions" DEFAULT;

-- Daily partitions from the day before the oldest row (ids may be a little older than created_at) to a week ahead.
SELECT hookyard_ensure_partitions(
  least(current_date, (SELECT min(m)::date - 1 FROM (
    SELECT min(created_at) AS m FROM "requests_old" UNION ALL SELECT min(created_at) FROM "events_old"
    UNION ALL SELECT min(created_at) FROM "ignored_events_old" UNION ALL SELECT min(created_at) FROM "attempts_old"
    UNION ALL SELECT min(created_at) FROM "transformation_executions_old") AS mins)),
  current_date + 7);
INSERT INTO "requests" SELECT * FROM "requests_old";
DROP TABLE "requests_old";
INSERT INTO "request_raw_data" SELECT * FROM "request_raw_data_old";
DROP TABLE "request_raw_data_old";
INSERT INTO "events" SELECT * FROM "events_old";
DROP TABLE "events_old";
INSERT INTO "ignored_events" SELECT * FROM "ignored_events_old";
DROP TABLE "ignored_events_old";
INSERT INTO "attempts" SELECT * FROM "attempts_old";
DROP TABLE "attempts_old";
INSERT INTO "transformation_executions" SELECT * FROM "transformation_executions_old";
DROP TABLE "transformation_executions_old";
ALTER TABLE "requests" ADD CONSTRAINT "requests_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
