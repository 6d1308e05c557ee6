-- Issue 13 "Retention": outbound_events and outbound_attempts become range-partitioned tables, one partition
-- per UTC day on their `time`, like the gateway's big tables (20261123220000_partition_by_time), so the
-- worker's retention pass expires them by dropping whole days (lib/retention/partitions.ts).
-- Their ids are not time-ordered (an event id may be the publisher's own, prefixes are configurable), so the
-- key is `time`: primary keys become (id, time). A unique index must contain the partition key, so an event
-- id is kept unique across days by publish itself (an advisory lock per publisher-chosen id, then a lookup:
-- lib/outbound/publish.ts). outbound_deliveries keeps the event's time, so a delivery reads its event from
-- one partition. No foreign keys reference these tables.

-- The time-partitioned tables with their partition key column.
CREATE FUNCTION hookyard_time_partitioned_tables() RETURNS TABLE (tbl text, key text) LANGUAGE sql IMMUTABLE AS $$
  VALUES ('outbound_attempts', 'time'), ('outbound_events', 'time')
$$;

-- Creates the missing daily partitions `{table}_pYYYYMMDD` of every time-partitioned table for the UTC days
-- from_day..to_day, moving the rows the DEFAULT partition caught for a day into it before attaching it (the
-- twin of hookyard_ensure_partitions). Returns the number of partitions created.
CREATE FUNCTION hookyard_ensure_time_partitions(from_day date, to_day date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  t record;
  d date;
  part text;
  lo timestamptz;
  hi timestamptz;
  created integer := 0;
BEGIN
  FOR t IN SELECT * FROM hookyard_time_partitioned_tables() LOOP
    d := from_day;
    WHILE d <= to_day LOOP
      part := t.tbl || '_p' || to_char(d, 'YYYYMMDD');
      IF to_regclass(quote_ident(part)) IS NULL THEN
        lo := d::timestamp AT TIME ZONE 'UTC';
        hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, t.tbl);
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

-- outbound_deliveries: the event's time (deliveries whose event is gone are dropped).
ALTER TABLE "outbound_deliveries" ADD COLUMN "event_time" TIMESTAMPTZ(3);
UPDATE "outbound_deliveries" d SET "event_time" = e."time" FROM "outbound_events" e WHERE e."id" = d."event_id";
DELETE FROM "outbound_deliveries" WHERE "event_time" IS NULL;
ALTER TABLE "outbound_deliveries" ALTER COLUMN "event_time" SET NOT NULL;

-- outbound_events
ALTER TABLE "outbound_events" RENAME TO "outbound_events_old";
ALTER TABLE "outbound_events_old" DROP CONSTRAINT "outbound_events_pkey";
DROP INDEX "outbound_events_tenant_id_time_id_idx";
DROP INDEX "outbound_events_time_id_idx";
CREATE TABLE "outbound_events" (LIKE "outbound_events_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("time");
ALTER TABLE "outbound_events" ADD CONSTRAINT "outbound_events_pkey" PRIMARY KEY ("id", "time");
CREATE INDEX "outbound_events_tenant_id_time_id_idx" ON "outbound_events"("tenant_id", "time", "id");
CREATE INDEX "outbound_events_time_id_idx" ON "outbound_events"("time", "id");
CREATE TABLE "outbound_events_default" PARTITION OF "outbound_events" DEFAULT;

-- outbound_attempts
ALTER TABLE "outbound_attempts" RENAME TO "outbound_attempts_old";
ALTER TABLE "outbound_attempts_old" DROP CONSTRAINT "outbound_attempts_pkey";
DROP INDEX "outbound_attempts_tenant_id_time_id_idx";
DROP INDEX "outbound_attempts_time_id_idx";
DROP INDEX "outbound_attempts_event_id_idx";
DROP INDEX "outbound_attempts_destination_id_time_id_idx";
CREATE TABLE "outbound_attempts" (LIKE "outbound_attempts_old" INCLUDING DEFAULTS) PARTITION BY RANGE ("time");
ALTER TABLE "outbound_attempts" ADD CONSTRAINT "outbound_attempts_pkey" PRIMARY KEY ("id", "time");
CREATE INDEX "outbound_attempts_tenant_id_time_id_idx" ON "outbound_attempts"("tenant_id", "time", "id");
CREATE INDEX "outbound_attempts_time_id_idx" ON "outbound_attempts"("time", "id");
CREATE INDEX "outbound_attempts_event_id_idx" ON "outbound_attempts"("event_id");
CREATE INDEX "outbound_attempts_destination_id_time_id_idx" ON "outbound_attempts"("destination_id", "time", "id");
CREATE TABLE "outbound_attempts_default" PARTITION OF "outbound_attempts" DEFAULT;

-- Daily partitions from the oldest row's day (at most a year back: older rows stay in DEFAULT, and the next
-- retention pass deletes them when they are past RETENTION_DAYS) to a week ahead; then the rows.
SELECT hookyard_ensure_time_partitions(
  greatest(current_date - 366, least(current_date - 1, (SELECT min(m)::date FROM (
    SELECT min("time" AT TIME ZONE 'UTC') AS m FROM "outbound_events_old"
    UNION ALL SELECT min("time" AT TIME ZONE 'UTC') FROM "outbound_attempts_old") AS mins))),
  current_date + 7);
INSERT INTO "outbound_events" SELECT * FROM "outbound_events_old";
DROP TABLE "outbound_events_old";
INSERT INTO "outbound_attempts" SELECT * FROM "outbound_attempts_old";
DROP TABLE "outbound_attempts_old";
