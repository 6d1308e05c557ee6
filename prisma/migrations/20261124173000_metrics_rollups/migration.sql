-- Per-minute metrics rollups (issue 12 §2; docs/gateway-api.md "Metrics", lib/metrics/rollup.ts).
-- Every statement that inserts, updates or deletes rows of requests, events, attempts or
-- transformation_executions marks the (team, minute) of those rows dirty in metrics_dirty, in the same
-- transaction. A minute with no mark has rollup rows equal to the aggregate of its base rows; the worker
-- recomputes marked closed minutes (delete + insert + delete of the marks it saw, one REPEATABLE READ
-- transaction), and queries read marked minutes from the base tables. These tables are not Prisma models.

CREATE TABLE "metrics_dirty" (
  "id" bigserial PRIMARY KEY,
  "source" text NOT NULL,
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL
);
CREATE INDEX "metrics_dirty_source_team_minute_idx" ON "metrics_dirty" ("source", "team_id", "minute");

CREATE FUNCTION hookyard_metrics_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO metrics_dirty (source, team_id, minute)
  SELECT DISTINCT TG_ARGV[0], c.team_id, date_bin('1 minute', c.created_at, TIMESTAMPTZ '2000-01-03 00:00:00+00') FROM changed_rows c;
  RETURN NULL;
END $$;

CREATE TRIGGER metrics_mark_ins AFTER INSERT ON "requests" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('requests');
CREATE TRIGGER metrics_mark_upd AFTER UPDATE ON "requests" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('requests');
CREATE TRIGGER metrics_mark_del AFTER DELETE ON "requests" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('requests');
CREATE TRIGGER metrics_mark_ins AFTER INSERT ON "events" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('events');
CREATE TRIGGER metrics_mark_upd AFTER UPDATE ON "events" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('events');
CREATE TRIGGER metrics_mark_del AFTER DELETE ON "events" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('events');
CREATE TRIGGER metrics_mark_ins AFTER INSERT ON "attempts" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('attempts');
CREATE TRIGGER metrics_mark_upd AFTER UPDATE ON "attempts" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('attempts');
CREATE TRIGGER metrics_mark_del AFTER DELETE ON "attempts" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('attempts');
CREATE TRIGGER metrics_mark_ins AFTER INSERT ON "transformation_executions" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('transformation_executions');
CREATE TRIGGER metrics_mark_upd AFTER UPDATE ON "transformation_executions" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('transformation_executions');
CREATE TRIGGER metrics_mark_del AFTER DELETE ON "transformation_executions" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION hookyard_metrics_mark('transformation_executions');

-- Latency histogram bucket: exact below 100 ms, then buckets 1 % wide (the rollup keeps each bucket's sum,
-- so a bucket holding one distinct value gives it exactly).
CREATE FUNCTION hookyard_latency_bucket(v integer) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN v < 100 THEN v ELSE 100 + floor(ln(v / 100.0) / ln(1.01))::integer END
$$;

-- percentile_cont(p) of a multiset given as values and their counts (same interpolation as PostgreSQL's).
CREATE FUNCTION hookyard_weighted_percentile(p float8, vals float8[], ns bigint[]) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  WITH e AS (SELECT v, sum(n) OVER (ORDER BY v ROWS UNBOUNDED PRECEDING) AS cum FROM unnest(vals, ns) AS x(v, n) WHERE n > 0),
       r AS (SELECT p * (sum(n) - 1) AS pos FROM unnest(ns) AS y(n) WHERE n > 0 HAVING sum(n) > 0)
  SELECT lo.v + (hi.v - lo.v) * (r.pos - floor(r.pos))::float8 FROM r,
    LATERAL (SELECT v FROM e WHERE e.cum > floor(r.pos) ORDER BY e.cum LIMIT 1) lo,
    LATERAL (SELECT v FROM e WHERE e.cum > ceil(r.pos) ORDER BY e.cum LIMIT 1) hi
$$;

CREATE TABLE "metrics_requests_1m" (
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL,
  "source_id" text,
  "rejection_cause" text,
  "verified" boolean,
  "n" integer NOT NULL
);
CREATE INDEX "metrics_requests_1m_team_minute_idx" ON "metrics_requests_1m" ("team_id", "minute");

CREATE TABLE "metrics_events_1m" (
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL,
  "at_start" boolean NOT NULL,
  "done_key" timestamptz,
  "webhook_id" text,
  "source_id" text,
  "destination_id" text,
  "status" text,
  "response_status" integer,
  "error_code" text,
  "n" integer NOT NULL,
  "attempts_sum" bigint,
  "attempts_n" integer NOT NULL,
  "min_created" timestamptz NOT NULL
);
CREATE INDEX "metrics_events_1m_team_minute_idx" ON "metrics_events_1m" ("team_id", "minute");

CREATE TABLE "metrics_attempts_1m" (
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL,
  "destination_id" text,
  "status" text,
  "response_status" integer,
  "error_code" text,
  "trigger" text,
  "n" integer NOT NULL,
  "lat_sum" bigint,
  "lat_n" integer NOT NULL,
  "lat_max" integer,
  "dlat_sum" bigint,
  "dlat_n" integer NOT NULL
);
CREATE INDEX "metrics_attempts_1m_team_minute_idx" ON "metrics_attempts_1m" ("team_id", "minute");

CREATE TABLE "metrics_attempt_latency_1m" (
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL,
  "destination_id" text,
  "status" text,
  "lat_bucket" integer,
  "n" integer NOT NULL,
  "lat_sum" bigint,
  "lat_n" integer NOT NULL,
  "lat_max" integer,
  "dlat_sum" bigint,
  "dlat_n" integer NOT NULL
);
CREATE INDEX "metrics_attempt_latency_1m_team_minute_idx" ON "metrics_attempt_latency_1m" ("team_id", "minute");

CREATE TABLE "metrics_transformations_1m" (
  "team_id" text NOT NULL,
  "minute" timestamptz NOT NULL,
  "transformation_id" text,
  "webhook_id" text,
  "log_level" text,
  "n" integer NOT NULL
);
CREATE INDEX "metrics_transformations_1m_team_minute_idx" ON "metrics_transformations_1m" ("team_id", "minute");

-- Rows stored before this migration: every minute holding some is dirty, so the worker rolls it up.
INSERT INTO metrics_dirty (source, team_id, minute)
SELECT DISTINCT 'requests', team_id, date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-03 00:00:00+00') FROM requests;
INSERT INTO metrics_dirty (source, team_id, minute)
SELECT DISTINCT 'events', team_id, date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-03 00:00:00+00') FROM events;
INSERT INTO metrics_dirty (source, team_id, minute)
SELECT DISTINCT 'attempts', team_id, date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-03 00:00:00+00') FROM attempts;
INSERT INTO metrics_dirty (source, team_id, minute)
SELECT DISTINCT 'transformation_executions', team_id, date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-03 00:00:00+00') FROM transformation_executions;

-- The latency histogram per hour as well (the sum of its minutes' rows, recomputed with them): a day's
-- percentiles read 24 hours of it instead of 1,440 minutes.
CREATE TABLE "metrics_attempt_latency_1h" (LIKE "metrics_attempt_latency_1m");
CREATE INDEX "metrics_attempt_latency_1h_team_minute_idx" ON "metrics_attempt_latency_1h" ("team_id", "minute");
