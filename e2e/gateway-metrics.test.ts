/**
 * Gateway metrics (docs/gateway-api.md#metrics-2025-07-01)
 * against the running server: each endpoint over a known data set written with controlled times, with
 * exact expected numbers, empty buckets, dimensions, filters, the 400s naming the bad parameter, older
 * versions 404, and team isolation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createId } from "@/lib/ids";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, type TestConnection } from "./support/pipeline";

const V = "/2025-07-01";
const H0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const HOUR = 3_600_000;
const at = (ms: number) => new Date(H0 + ms);
const range = `date_range[start]=${new Date(H0).toISOString()}&date_range[end]=${new Date(H0 + 3 * HOUR).toISOString()}`;
let team: TestTeam;
let other: TestTeam;
let conn: TestConnection;

async function request(ms: number, rejection: string | null) {
  const id = createId("request", H0 + ms);
  await db().query(
    "INSERT INTO requests (id, team_id, source_id, verified, rejection_cause, ingested_at, created_at, updated_at) VALUES ($1, $2, $3, false, $4, $5, $5, $5)",
    [id, team.teamId, conn.source.id, rejection, at(ms)],
  );
  return id;
}
async function event(ms: number, status: string, requestId: string) {
  const id = createId("event", H0 + ms);
  const done = status === "SUCCESSFUL" || status === "FAILED" ? at(ms + 1000) : at(ms);
  await db().query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, successful_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9, $10)`,
    [id, team.teamId, conn.id, conn.source.id, conn.destination.id, requestId, status, status === "SUCCESSFUL" ? done : null, at(ms), done],
  );
  return id;
}
async function attempt(ms: number, eventId: string, status: "SUCCESSFUL" | "FAILED", responseStatus: number, latency: number) {
  await db().query(
    `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, response_latency, delivery_latency, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 1, 'INITIAL', $5, $6, $7, $7, $8, $8)`,
    [createId("attempt", H0 + ms), team.teamId, eventId, conn.destination.id, status, responseStatus, latency, at(ms)],
  );
}
async function execution(ms: number, level: string) {
  await db().query(
    `INSERT INTO transformation_executions (id, team_id, transformation_id, webhook_id, request_id, log_level, logs, created_at, updated_at)
     VALUES ($1, $2, 'trs_metrics', $3, 'req_x', $4, '[]', $5, $5)`,
    [createId("execution", H0 + ms), team.teamId, conn.id, level, at(ms)],
  );
}

beforeAll(async () => {
  team = await newTeam("metrics");
  other = await newTeam("metrics-other");
  conn = await connectionTo(team, null, { destination: { config: { url: "http://127.0.0.1:9/none" } } });
  // Hour 0: 3 requests (1 rejected), 3 events (2 SUCCESSFUL, 1 FAILED), 3 attempts (100, 300 ms OK; 200 ms 500).
  const r = [await request(60_000, null), await request(120_000, null), await request(180_000, "VERIFICATION_FAILED")];
  const e = [await event(61_000, "SUCCESSFUL", r[0]), await event(121_000, "SUCCESSFUL", r[1]), await event(122_000, "FAILED", r[1])];
  await attempt(62_000, e[0], "SUCCESSFUL", 200, 100);
  await attempt(122_000, e[1], "SUCCESSFUL", 200, 300);
  await attempt(123_000, e[2], "FAILED", 500, 200);
  // Hour 1: two transformation executions. Hour 2: 2 requests, 1 event still QUEUED from 02:10.
  await execution(HOUR + 60_000, "info");
  await execution(HOUR + 120_000, "error");
  const late = [await request(2 * HOUR + 5 * 60_000, null), await request(2 * HOUR + 10 * 60_000, null)];
  await event(2 * HOUR + 10 * 60_000, "QUEUED", late[1]);
}, 30_000);

const get = (path: string, who: TestTeam = team) => api(who, "GET", `${V}/metrics/${path}`);
const bucket = (h: number) => new Date(H0 + h * HOUR).toISOString();

describe("GET /metrics/*", () => {
  it("requests: counts per hour with empty buckets, and the response metadata", async () => {
    const { status, json } = await get(`requests?${range}&granularity=1h&measures[]=count&measures[]=rejected_count&measures[]=rejection_rate`);
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.data).toEqual([
      { time_bucket: bucket(0), metrics: { count: 3, rejected_count: 1, rejection_rate: 1 / 3 } },
      { time_bucket: bucket(1), metrics: { count: 0, rejected_count: 0, rejection_rate: 0 } },
      { time_bucket: bucket(2), metrics: { count: 2, rejected_count: 0, rejection_rate: 0 } },
    ]);
    expect(json.metadata).toMatchObject({ granularity: "1h", row_count: 3, row_limit: 10000, truncated: false });
    expect(typeof json.metadata.query_time_ms).toBe("number");
  });

  it("events: dimensions without granularity, and filters", async () => {
    const { json } = await get(`events?${range}&measures[]=count&dimensions[]=status`);
    expect(json.data).toEqual([
      { dimensions: { status: "FAILED" }, metrics: { count: 1 } },
      { dimensions: { status: "QUEUED" }, metrics: { count: 1 } },
      { dimensions: { status: "SUCCESSFUL" }, metrics: { count: 2 } },
    ]);
    expect(json.metadata.granularity).toBeNull();
    const filtered = await get(`events?${range}&measures[]=count&measures[]=error_rate&filters[status][]=FAILED&filters[status][]=SUCCESSFUL`);
    expect(filtered.json.data).toEqual([{ metrics: { count: 3, error_rate: 1 / 3 } }]);
    expect((await get(`events?${range}&measures[]=count&filters[webhook_id]=web_other`)).json.data).toEqual([{ metrics: { count: 0 } }]);
  });

  it("attempts: latency percentiles in ms, null for buckets without attempts", async () => {
    const { json } = await get(`attempts?${range}&granularity=1h&measures=count,error_rate,response_latency_avg,response_latency_p50,response_latency_max`);
    expect(json.data).toEqual([
      { time_bucket: bucket(0), metrics: { count: 3, error_rate: 1 / 3, response_latency_avg: 200, response_latency_p50: 200, response_latency_max: 300 } },
      { time_bucket: bucket(1), metrics: { count: 0, error_rate: 0, response_latency_avg: null, response_latency_p50: null, response_latency_max: null } },
      { time_bucket: bucket(2), metrics: { count: 0, error_rate: 0, response_latency_avg: null, response_latency_p50: null, response_latency_max: null } },
    ]);
    const byStatus = await get(`attempts?${range}&measures[]=count&dimensions[]=status&dimensions[]=response_status`);
    expect(byStatus.json.data).toEqual([
      { dimensions: { status: "FAILED", response_status: 500 }, metrics: { count: 1 } },
      { dimensions: { status: "SUCCESFUL", response_status: 200 }, metrics: { count: 2 } },
    ]);
  });

  it("transformations: executions by log level", async () => {
    const { json } = await get(`transformations?${range}&measures[]=count&measures[]=error_rate&dimensions[]=log_level`);
    expect(json.data).toEqual([
      { dimensions: { log_level: "error" }, metrics: { count: 1, error_rate: 1 } },
      { dimensions: { log_level: "info" }, metrics: { count: 1, error_rate: 0 } },
    ]);
  });

  it("queue-depth and events-pending-timeseries: what waited at the end of each bucket", async () => {
    const depth = await get(`queue-depth?${range}&granularity=1h&measures[]=max_depth&measures[]=max_age&dimensions[]=destination_id`);
    expect(depth.status).toBe(200);
    // Every bucket of each destination seen, the empty ones with depth 0 and no age.
    expect(depth.json.data).toEqual([
      { time_bucket: bucket(0), dimensions: { destination_id: conn.destination.id }, metrics: { max_depth: 0, max_age: null } },
      { time_bucket: bucket(1), dimensions: { destination_id: conn.destination.id }, metrics: { max_depth: 0, max_age: null } },
      { time_bucket: bucket(2), dimensions: { destination_id: conn.destination.id }, metrics: { max_depth: 1, max_age: 50 * 60 } },
    ]);
    const pending = await get(`events-pending-timeseries?${range}&granularity=1h&measures[]=count`);
    expect(pending.json.data).toEqual([
      { time_bucket: bucket(0), metrics: { count: 0 } },
      { time_bucket: bucket(1), metrics: { count: 0 } },
      { time_bucket: bucket(2), metrics: { count: 1 } },
    ]);
    // Events delivered a second after they were made waited at no bucket's end.
    const minutes = await get(
      `events-pending-timeseries?date_range[start]=${new Date(H0).toISOString()}&date_range[end]=${new Date(H0 + 3 * 60_000).toISOString()}&granularity=1m&measures[]=count`,
    );
    expect(minutes.json.data.map((d: { metrics: { count: number } }) => d.metrics.count)).toEqual([0, 0, 0]);
  });

  it("another team's data is never counted", async () => {
    const { json } = await get(`events?${range}&measures[]=count`, other);
    expect(json.data).toEqual([{ metrics: { count: 0 } }]);
  });
});

describe("bad parameters are 400s naming them", () => {
  it.each([
    ["no range", `events?measures[]=count`, "date_range"],
    ["no end", `events?date_range[start]=2026-11-20&measures[]=count`, "date_range[end]"],
    ["bad date", `events?date_range[start]=soon&date_range[end]=2026-11-21&measures[]=count`, "date_range[start]"],
    ["end before start", `events?date_range[start]=2026-11-21&date_range[end]=2026-11-20&measures[]=count`, "date_range"],
    ["no measure", `events?${range}`, "measures"],
    ["unknown measure", `events?${range}&measures[]=bogus`, "measures"],
    ["unknown dimension", `events?${range}&measures[]=count&dimensions[]=bogus`, "dimensions"],
    ["unknown filter", `events?${range}&measures[]=count&filters[bogus]=1`, "filters[bogus]"],
    ["bad granularity", `events?${range}&measures[]=count&granularity=1x`, "granularity"],
    ["too many buckets", `events?date_range[start]=2026-01-01&date_range[end]=2026-11-01&measures[]=count&granularity=1s`, "granularity"],
    ["range too long", `events?date_range[start]=2020-01-01&date_range[end]=2026-11-01&measures[]=count`, "date_range"],
  ])("%s", async (_name, path, field) => {
    const { status, json } = await get(path);
    expect(status, JSON.stringify(json)).toBe(400);
    expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
    expect(json.data.field).toBe(field);
  });

  it("the message names the bad measure", async () => {
    expect((await get(`attempts?${range}&measures[]=p42`)).json.message).toMatch(/unknown measure "p42"/);
  });

  it("older versions and unknown endpoints answer 404", async () => {
    expect((await api(team, "GET", `/2025-01-01/metrics/events?${range}&measures[]=count`)).status).toBe(404);
    expect((await get(`nothing?${range}&measures[]=count`)).status).toBe(404);
    expect((await get(`constructor?${range}&measures[]=count`)).status).toBe(404);
  });
});
