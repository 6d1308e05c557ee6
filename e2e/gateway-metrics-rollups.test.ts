/**
 * Gateway metrics from per-minute rollups (docs/gateway-api.md#rollups-kept-by-the-worker-and-freshness; lib/metrics/rollup.ts, lib/metrics/query.ts):
 * over a data set spread across three hours, with rows on minute and bucket boundaries, events ending in
 * later minutes and rows another team wrote in the same minutes, every endpoint answers the same from the
 * rollups (plus live rows) as the plain aggregate over the base tables — after rows were written, updated
 * and deleted in minutes already rolled up, and a second ago. Percentiles (a latency histogram) agree
 * within 1 %. Also: the rollup is really read, a rollup killed before its commit counts nothing twice,
 * concurrent passes agree, and the API answers as the builder does.
 */
import { isDeepStrictEqual } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_METRICS, GATEWAY_ROLLUPS } from "@/lib/gateway/metrics/tables";
import { createId } from "@/lib/ids";
import { type MetricsRequest, type MetricsResponse, parseGranularity, runMetrics } from "@/lib/metrics/query";
import { holdRollups, rollupPass } from "@/lib/metrics/rollup";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, type TestConnection } from "./support/pipeline";

const MIN = 60_000;
const HOUR = 3_600_000;
const STORES = Object.values(GATEWAY_ROLLUPS);
const NOW = Date.now();
/** Start of the data: three whole hours before the current hour. */
const T = Math.floor(NOW / HOUR) * HOUR - 3 * HOUR;
/** The queries' end: not a whole minute, and after every row the tests write (they take less than 10 min). */
const E = Math.floor(NOW / MIN) * MIN + 10 * MIN + 45_000;
let team: TestTeam;
let other: TestTeam;
let conns: TestConnection[];

// A fixed pseudo-random sequence, so a failure can be replayed.
let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
/** A time in [T, NOW - 5 min): a whole minute one time in six. */
const someTime = () => {
  const t = T + Math.floor(rand() * (NOW - 5 * MIN - T));
  return rand() < 1 / 6 ? Math.floor(t / MIN) * MIN : t;
};

async function request(teamId: string, conn: TestConnection, ms: number, rejection: string | null = null, verified = false) {
  const id = createId("request", ms);
  await db().query(
    "INSERT INTO requests (id, team_id, source_id, verified, rejection_cause, ingested_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6, $6)",
    [id, teamId, conn.source.id, verified, rejection, new Date(ms)],
  );
  return id;
}
async function event(
  teamId: string,
  conn: TestConnection,
  ms: number,
  status: string,
  doneMs: number | null,
  extra: { responseStatus?: number | null; errorCode?: string | null; attempts?: number } = {},
) {
  const id = createId("event", ms);
  const requestId = await request(teamId, conn, ms);
  await db().query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, response_status, error_code, successful_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      teamId,
      conn.id,
      conn.source.id,
      conn.destination.id,
      requestId,
      status,
      extra.attempts ?? 1,
      extra.responseStatus ?? null,
      extra.errorCode ?? null,
      status === "SUCCESSFUL" && doneMs !== null ? new Date(doneMs) : null,
      new Date(ms),
      new Date(doneMs ?? ms),
    ],
  );
  return id;
}
async function attempt(
  teamId: string,
  conn: TestConnection,
  ms: number,
  status: string,
  responseStatus: number | null,
  latency: number | null,
  trigger = "INITIAL",
) {
  const id = createId("attempt", ms);
  await db().query(
    `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, error_code, response_latency, delivery_latency, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9, $10, $11, $11)`,
    [
      id,
      teamId,
      createId("event", ms),
      conn.destination.id,
      trigger,
      status,
      responseStatus,
      responseStatus === null ? "TIMEOUT" : null,
      latency,
      latency === null ? null : latency + 3,
      new Date(ms),
    ],
  );
  return id;
}
async function execution(teamId: string, conn: TestConnection, ms: number, level: string) {
  await db().query(
    "INSERT INTO transformation_executions (id, team_id, transformation_id, webhook_id, request_id, log_level, logs, created_at, updated_at) VALUES ($1, $2, $3, $4, 'req_x', $5, '[]', $6, $6)",
    [createId("execution", ms), teamId, pick(["trs_a", "trs_b"]), conn.id, level, new Date(ms)],
  );
}

/** Runs `fn` while no rollup pass of any process runs (lib/metrics/rollup.ts holdRollups). */
async function withRollupsHeld<T>(fn: () => Promise<T>): Promise<T> {
  const holder = await db().connect();
  try {
    await holder.query("BEGIN");
    await holdRollups(holder, ["attempts", "events", "requests", "transformation_executions"]);
    return await fn();
  } finally {
    await holder.query("COMMIT").catch(() => {});
    holder.release();
  }
}

/** Rolls up every closed minute (the running workers may hold the lock: wait for them). */
async function rollUpAll() {
  for (let i = 0; i < 100; i++) {
    await rollupPass(db(), STORES, Date.now(), { graceMs: 0 });
    const { rows } = await db().query("SELECT count(*)::int AS n FROM metrics_dirty WHERE team_id = $1 AND minute < $2", [
      team.teamId,
      new Date(Math.floor(Date.now() / MIN) * MIN - MIN),
    ]);
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("dirty minutes left after 100 rollup passes");
}

const req = (
  start: number,
  end: number,
  granularity: string | null,
  measures: string[],
  dimensions: string[] = [],
  filters: Record<string, string[]> = {},
): MetricsRequest => ({
  start: new Date(start),
  end: new Date(end),
  granularity: granularity ? parseGranularity(granularity) : null,
  measures,
  dimensions,
  filters,
});
const PERCENTILE = /_p\d\d$/;
/**
 * True when `rolled` passes every check of {@link expectSame} against `plain`, tested with plain comparisons
 * (isDeepStrictEqual implies toEqual): a compareAll makes hundreds of thousands of them, and each expect call
 * costs some 20 µs of CPU (docs/benchmarks.md "The test suite"). False sends the answers through the expect
 * calls, which decide and name the difference.
 */
function agrees(rolled: MetricsResponse, plain: MetricsResponse): boolean {
  if (rolled.data.length !== plain.data.length) return false;
  if (!isDeepStrictEqual({ ...rolled.metadata, query_time_ms: 0 }, { ...plain.metadata, query_time_ms: 0 })) return false;
  return rolled.data.every((row, i) => {
    const want = plain.data[i];
    if (!isDeepStrictEqual({ ...row, metrics: {} }, { ...want, metrics: {} })) return false;
    return Object.entries(row.metrics).every(([m, v]) => {
      const exact = want.metrics[m];
      return PERCENTILE.test(m) && typeof v === "number" && typeof exact === "number"
        ? Math.abs(v - exact) <= Math.abs(exact) * 0.01 + 1e-9
        : isDeepStrictEqual(v, exact);
    });
  });
}
/** Both answers without query_time_ms; percentiles compared within 1 % (the histogram's precision), the rest exactly. */
function expectSame(rolled: MetricsResponse, plain: MetricsResponse, what: string) {
  if (agrees(rolled, plain)) return;
  expect(rolled.data.length, what).toBe(plain.data.length);
  expect({ ...rolled.metadata, query_time_ms: 0 }, what).toEqual({ ...plain.metadata, query_time_ms: 0 });
  rolled.data.forEach((row, i) => {
    const want = plain.data[i];
    expect({ ...row, metrics: {} }, what).toEqual({ ...want, metrics: {} });
    for (const [m, v] of Object.entries(row.metrics)) {
      const exact = want.metrics[m];
      if (PERCENTILE.test(m) && typeof v === "number" && typeof exact === "number")
        expect(Math.abs(v - exact), `${what} ${m}`).toBeLessThanOrEqual(Math.abs(exact) * 0.01 + 1e-9);
      else expect(v, `${what} ${m} at ${row.time_bucket}`).toEqual(exact);
    }
  });
}

/** Every endpoint with a rollup, over several ranges and granularities, each dimension and some filters: rollup answer = plain answer. */
async function compareAll() {
  const ranges: [number, number, (string | null)[]][] = [
    [T, E, ["1h", "1m", "5m", "1d", null, "30s", "120s"]],
    [T + 90_123, T + 2 * HOUR + 17_000, ["1h", "15m"]],
    [T, T + 3 * HOUR, ["1h"]],
    [T + 10_000, T + 50_000, [null]],
  ];
  let compared = 0;
  for (const [name, table] of Object.entries(GATEWAY_METRICS)) {
    if (!table.rollups) continue;
    const all = Object.keys(table.measures);
    const variants: [string[], string[], Record<string, string[]>][] = [];
    // All measures, and (attempts) all but the percentiles, which another rollup answers.
    for (const measures of all.some((m) => PERCENTILE.test(m)) ? [all, all.filter((m) => !PERCENTILE.test(m))] : [all]) {
      variants.push(
        [measures, [], {}],
        [measures, [], { [Object.keys(table.filters)[0]]: [conns[0].destination.id, conns[0].id, conns[0].source.id, "trs_a"] }],
      );
      for (const d of Object.keys(table.dimensions)) variants.push([measures, [d], {}]);
      if ("status" in table.filters) variants.push([measures, [], { status: ["FAILED", "SUCCESFUL", "SUCCESSFUL", "QUEUED"] }]);
    }
    for (const [start, end, grains] of ranges) {
      for (const g of grains) {
        for (const [m, d, f] of variants) {
          const r = req(start, end, g, m, d, f);
          const what = `${name} ${new Date(start).toISOString()}..${new Date(end).toISOString()} ${g} ${d.join(",")} ${JSON.stringify(f)}`;
          expectSame(await runMetrics(db(), table, [team.teamId], r), await runMetrics(db(), table, [team.teamId], r, { rollups: false }), what);
          compared++;
        }
      }
    }
  }
  return compared;
}

beforeAll(async () => {
  team = await newTeam("rollups");
  other = await newTeam("rollups-other");
  conns = [
    await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/a" } } }),
    await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/b" } } }),
  ];
  const otherConn = await connectionTo(other, null, { destination: { config: { url: "http://127.0.0.1:9/o" } } });
  for (let i = 0; i < 120; i++) await request(team.teamId, pick(conns), someTime(), pick([null, null, "VERIFICATION_FAILED", "SOURCE_DISABLED"]), rand() < 0.5);
  for (let i = 0; i < 120; i++) {
    const t = someTime();
    const status = pick(["SUCCESSFUL", "SUCCESSFUL", "FAILED", "QUEUED", "SCHEDULED", "HOLD", "CANCELLED"]);
    const done = ["SUCCESSFUL", "FAILED", "CANCELLED"].includes(status) ? t + pick([0, 500, 59_000, 61_000, 30 * MIN, Math.ceil(t / MIN) * MIN - t]) : null;
    await event(team.teamId, pick(conns), t, status, done, {
      responseStatus: pick([200, 500, null]),
      errorCode: pick([null, "TIMEOUT"]),
      attempts: pick([0, 1, 2, 5]),
    });
  }
  // On bucket ends: made exactly at T+1h (waiting at that instant), ended exactly at T+2h (no longer).
  await event(team.teamId, conns[0], T + HOUR, "QUEUED", null);
  await event(team.teamId, conns[0], T + HOUR + 5 * MIN, "SUCCESSFUL", T + 2 * HOUR);
  // Ending in the minute of the range end E, before and after E (the rollup cannot tell: read from the base table).
  await event(team.teamId, conns[1], T + 20 * MIN, "SUCCESSFUL", Math.floor(E / MIN) * MIN + 20_000);
  await event(team.teamId, conns[1], T + 21 * MIN, "FAILED", Math.floor(E / MIN) * MIN + 50_000);
  for (let i = 0; i < 250; i++) {
    const ok = rand() < 0.8;
    await attempt(
      team.teamId,
      pick(conns),
      someTime(),
      ok ? "SUCCESSFUL" : "FAILED",
      ok ? 200 : pick([500, null]),
      rand() < 0.1 ? null : Math.floor(rand() * rand() * 3000),
      pick(["INITIAL", "AUTOMATIC", "MANUAL"]),
    );
  }
  for (let i = 0; i < 40; i++) await execution(team.teamId, pick(conns), someTime(), pick(["debug", "info", "warn", "error", "fatal"]));
  // Another team's rows in the same minutes.
  for (let i = 0; i < 30; i++) {
    const t = someTime();
    await event(other.teamId, otherConn, t, "QUEUED", null);
    await attempt(other.teamId, otherConn, t, "FAILED", 500, 100);
    await execution(other.teamId, otherConn, t, "error");
  }
}, 120_000);

afterAll(async () => {
  await db().query("DELETE FROM metrics_requests_1m WHERE team_id = $1 AND n = 100000", [team.teamId]);
});

describe("gateway metrics from rollups", () => {
  it("before any rollup (every minute dirty) and after, every endpoint answers as the plain aggregate", async () => {
    expect(await compareAll()).toBeGreaterThan(200);
    await rollUpAll();
    const { rows } = await db().query("SELECT count(*)::int AS n FROM metrics_events_1m WHERE team_id = $1", [team.teamId]);
    expect(rows[0].n).toBeGreaterThan(50);
    await compareAll();
  }, 120_000);

  it("rows written, changed and deleted in rolled-up minutes, and a second ago, count at once", async () => {
    // Requests of a source deleted after their minute was rolled up go with it (the foreign key's cascade).
    const doomed = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/c" } } });
    await request(team.teamId, doomed, T + 50 * MIN + 1_000);
    await rollUpAll();
    await db().query("DELETE FROM sources WHERE id = $1", [doomed.source.id]);
    const late = T + 30 * MIN + 7_000;
    // The servers' workers roll up every few seconds: held off until the dirty marks are read.
    const { dirty, second } = await withRollupsHeld(async () => {
      await request(team.teamId, conns[0], late, "VERIFICATION_FAILED");
      const lateEvent = await event(team.teamId, conns[0], late, "QUEUED", null);
      await attempt(team.teamId, conns[0], late, "SUCCESSFUL", 200, 4321);
      await execution(team.teamId, conns[0], late, "fatal");
      // A waiting event of a rolled-up minute is delivered now; an attempt of another one is deleted.
      await db().query("UPDATE events SET status = 'SUCCESSFUL', successful_at = now(), updated_at = now(), attempts = attempts + 1 WHERE id = $1", [
        lateEvent,
      ]);
      const { rows: gone } = await db().query("DELETE FROM attempts WHERE team_id = $1 AND created_at >= $2 AND created_at < $3 RETURNING id", [
        team.teamId,
        new Date(T + HOUR),
        new Date(T + 2 * HOUR),
      ]);
      expect(gone.length).toBeGreaterThan(0);
      const second = Date.now() - 1000;
      await request(team.teamId, conns[1], second);
      await event(team.teamId, conns[1], second, "QUEUED", null);
      await attempt(team.teamId, conns[1], second, "FAILED", 503, 2500);
      await execution(team.teamId, conns[1], second, "warn");
      const { rows } = await db().query("SELECT DISTINCT source FROM metrics_dirty WHERE team_id = $1 AND minute = $2 ORDER BY source", [
        team.teamId,
        new Date(Math.floor(late / MIN) * MIN),
      ]);
      return { dirty: rows as { source: string }[], second };
    });
    expect(dirty.map((d) => d.source)).toEqual(["attempts", "events", "requests", "transformation_executions"]);
    await compareAll();
    // The row of a second ago is in the answer (the range ends at E, after it).
    const fresh = await runMetrics(
      db(),
      GATEWAY_METRICS.attempts,
      [team.teamId],
      req(Math.floor(second / MIN) * MIN - 5 * MIN, E, null, ["count"], [], { response_status: ["503"] }),
    );
    expect(fresh.data).toEqual([{ metrics: { count: 1 } }]);
    await rollUpAll();
    await compareAll();
  }, 120_000);

  it("the rollup is what answers: a row put into it changes the answer", async () => {
    await rollUpAll();
    const r = req(T, T + 3 * HOUR, "1h", ["count"]);
    const before = await runMetrics(db(), GATEWAY_METRICS.requests, [team.teamId], r);
    await db().query(
      "INSERT INTO metrics_requests_1m (team_id, minute, source_id, rejection_cause, verified, n) VALUES ($1, $2, 'src_x', NULL, false, 100000)",
      [team.teamId, new Date(T + HOUR + 3 * MIN)],
    );
    const after = await runMetrics(db(), GATEWAY_METRICS.requests, [team.teamId], r);
    expect(after.data[1].metrics.count).toBe((before.data[1].metrics.count as number) + 100000);
    expect((await runMetrics(db(), GATEWAY_METRICS.requests, [team.teamId], r, { rollups: false })).data).toEqual(before.data);
    await db().query("DELETE FROM metrics_requests_1m WHERE team_id = $1 AND n = 100000", [team.teamId]);
  });

  it("a rollup pass killed before its commit leaves the minutes dirty and counts nothing twice; passes at once agree", async () => {
    await rollUpAll();
    const minute = T + 45 * MIN;
    let inserted = 0;
    // A pass whose session is terminated right before it deletes the marks it read (its rollup rows were written).
    const victim = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    victim.on("error", () => {});
    const client = await victim.connect();
    client.on("error", () => {}); // its session is terminated on purpose
    const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
    (client as unknown as { query: unknown }).query = async (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].startsWith("DELETE FROM metrics_dirty")) await db().query("SELECT pg_terminate_backend($1)", [pid]);
      return query(...args);
    };
    client.release();
    let killed = false;
    for (let i = 0; i < 50 && !killed; i++) {
      // (again if a running worker rolled the minute up first)
      await attempt(team.teamId, conns[0], minute + 1_000 + i, "SUCCESSFUL", 201, 777);
      inserted++;
      killed = await rollupPass(victim, [GATEWAY_ROLLUPS.attempts, GATEWAY_ROLLUPS.attemptLatency], Date.now(), { graceMs: 0 }).then(
        () => false,
        () => true,
      );
      if (!killed) await new Promise((r) => setTimeout(r, 100));
    }
    await victim.end().catch(() => {});
    expect(killed).toBe(true);
    const { rows } = await db().query("SELECT count(*)::int AS n FROM metrics_dirty WHERE source = 'attempts' AND team_id = $1 AND minute = $2", [
      team.teamId,
      new Date(minute),
    ]);
    expect(rows[0].n).toBeGreaterThan(0);
    await compareAll();
    await Promise.all([rollupPass(db(), STORES, Date.now(), { graceMs: 0 }), rollupPass(db(), STORES, Date.now(), { graceMs: 0 }), rollUpAll()]);
    await rollUpAll();
    const { rows: sums } = await db().query("SELECT sum(n)::int AS n FROM metrics_attempts_1m WHERE team_id = $1 AND minute = $2 AND response_status = 201", [
      team.teamId,
      new Date(minute),
    ]);
    expect(sums[0].n).toBe(inserted);
    await compareAll();
  }, 120_000);

  it("the API answers as the builder does, and another team sees none of it", async () => {
    const qs = `date_range[start]=${new Date(T).toISOString()}&date_range[end]=${new Date(E).toISOString()}&granularity=1h`;
    const { json } = await api(
      team,
      "GET",
      `/2025-07-01/metrics/attempts?${qs}&measures[]=count&measures[]=error_rate&measures[]=response_latency_max&dimensions[]=status`,
    );
    const plain = await runMetrics(
      db(),
      GATEWAY_METRICS.attempts,
      [team.teamId],
      req(T, E, "1h", ["count", "error_rate", "response_latency_max"], ["status"]),
      { rollups: false },
    );
    expect(json.data).toEqual(plain.data);
    const others = await api(other, "GET", `/2025-07-01/metrics/events-pending-timeseries?${qs}&measures[]=count`);
    expect(others.json.data.at(-1).metrics.count).toBe(30);
  });
});
