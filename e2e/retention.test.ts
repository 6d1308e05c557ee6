/**
 * Retention (docs/scaling.md#retention-and-sizing): the big tables are partitioned by UTC day on their time-sortable ids (migration
 * 20261123220000_partition_by_time); the worker drops whole expired days, creates days ahead and expires
 * guest workspaces (lib/worker/partitions.ts). Partition tests run on databases of their own (TEST_PG_ADMIN_URL);
 * the paging test goes through the running servers' gateway API across a partition boundary.
 */
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate";
import { createId, idLowerBound, type IdKind } from "@/lib/ids";
import { GATEWAY_ROLLUPS } from "@/lib/gateway/metrics/tables";
import { rollupPass } from "@/lib/metrics/rollup";
import { createOutboundKey } from "@/lib/outbound/auth";
import { dropExpiredPartitions, ensurePartitions, expireGuestWorkspaces, expireOutboundLeftovers } from "@/lib/worker/partitions";
import { api, newTeam } from "./support/gateway";
import { outboundCall } from "./support/outbound";

const DAY = 86_400_000;
const MIGRATION = "20261123220000_partition_by_time";
const adminUrl = process.env.TEST_PG_ADMIN_URL!;
const suffix = `${Date.now()}_${process.pid}`;
const names = { fresh: `hookyard_ret_f_${suffix}`, legacy: `hookyard_ret_l_${suffix}`, outboundLegacy: `hookyard_ret_o_${suffix}` };
const urlOf = (db: string) => adminUrl.replace(/\/[^/?]+(\?|$)/, `/${db}$1`);
const dayName = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "");
const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/** One row in each of the six partitioned tables, all created at `ms`; returns their ids by table. */
async function insertDay(db: pg.Pool | pg.Client, ms: number, teamId: string, sourceId: string) {
  const at = new Date(ms);
  const ids = {
    requests: createId("request", ms),
    events: createId("event", ms),
    ignored_events: createId("ignoredEvent", ms),
    attempts: createId("attempt", ms),
    transformation_executions: createId("execution", ms),
  };
  await db.query("INSERT INTO requests (id, team_id, source_id, ingested_at, created_at) VALUES ($1, $2, $3, $4, $4)", [ids.requests, teamId, sourceId, at]);
  await db.query("INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size) VALUES ($1, 'POST', '/', '', '{}', $2, 3)", [
    ids.requests,
    Buffer.from("abc"),
  ]);
  await db.query(
    "INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, created_at) VALUES ($1, $2, 'web_x', $3, 'des_x', $4, 'SUCCESSFUL', $5)",
    [ids.events, teamId, sourceId, ids.requests, at],
  );
  await db.query("INSERT INTO ignored_events (id, team_id, webhook_id, request_id, cause, created_at) VALUES ($1, $2, 'web_x', $3, 'FILTERED', $4)", [
    ids.ignored_events,
    teamId,
    ids.requests,
    at,
  ]);
  await db.query(
    "INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, created_at) VALUES ($1, $2, $3, 'des_x', 1, 'INITIAL', 'SUCCESSFUL', $4)",
    [ids.attempts, teamId, ids.events, at],
  );
  await db.query("INSERT INTO transformation_executions (id, team_id, transformation_id, log_level, created_at) VALUES ($1, $2, 'trs_x', 'info', $3)", [
    ids.transformation_executions,
    teamId,
    at,
  ]);
  return { ...ids, request_raw_data: ids.requests };
}
const KEY: Record<string, string> = { request_raw_data: "request_id" };

/** The partition holding each row of `ids` (table → id), as `table → partition name` (null when gone). */
async function partitionsOf(db: pg.Pool | pg.Client, ids: Record<string, string>) {
  const out: Record<string, string | null> = {};
  for (const [table, id] of Object.entries(ids)) {
    const { rows } = await db.query(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${KEY[table] ?? "id"} = $1`, [id]);
    out[table] = rows[0]?.p ?? null;
  }
  return out;
}

/** A team and a source; `cliKeyColumn`: `cli_key` on a database migrated only to before the cli_key was stored hashed. */
async function seedTeam(db: pg.Pool | pg.Client, id: string, mode: "GUEST" | "TEAM", createdAt = new Date(), cliKeyColumn = "cli_key_hash") {
  await db.query(`INSERT INTO teams (id, name, mode, ${cliKeyColumn}, created_at, updated_at) VALUES ($1, 't', $2, $3, $4, now())`, [
    id,
    mode,
    `k_${id}`,
    createdAt,
  ]);
  await db.query("INSERT INTO sources (id, team_id, name, updated_at) VALUES ($1, $2, 's', now())", [`src_${id}`, id]);
}

const admin = new pg.Client({ connectionString: adminUrl });
let fresh: pg.Pool;
beforeAll(async () => {
  await admin.connect();
  for (const n of Object.values(names)) await admin.query(`CREATE DATABASE "${n}"`);
  await migrate(urlOf(names.fresh));
  fresh = new pg.Pool({ connectionString: urlOf(names.fresh), max: 3 });
  fresh.on("error", () => {}); // idle clients ended by DROP DATABASE … WITH (FORCE)
});
afterAll(async () => {
  await fresh?.end();
  for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
  await admin.end();
});

describe("retention – partitions by day", () => {
  it("the SQL bound hookyard_id_bound equals idLowerBound of lib/ids.ts, and ids of a day sort within its bounds", async () => {
    const kinds: [IdKind, string][] = [
      ["request", "req_"],
      ["event", "evt_"],
      ["attempt", "atm_"],
      ["ignoredEvent", "ign_"],
      ["execution", "exc_"],
    ];
    for (const ms of [0, 1, DAY, Date.UTC(2026, 10, 23), Date.UTC(2099, 0, 1), 2 ** 48 - 1]) {
      for (const [kind, prefix] of kinds) {
        const { rows } = await fresh.query("SELECT hookyard_id_bound($1, $2) AS b", [prefix, ms]);
        expect(rows[0].b).toBe(idLowerBound(kind, ms));
      }
    }
    const day = Date.UTC(2026, 10, 23);
    for (const ms of [day, day + 1, day + DAY - 1]) {
      const id = createId("request", ms);
      expect(id >= idLowerBound("request", day) && id < idLowerBound("request", day + DAY)).toBe(true);
    }
    expect(createId("request", day - 1) < idLowerBound("request", day)).toBe(true);
  });

  it("rows land in their day's partition; dropExpiredPartitions drops whole old days of every table, children first, and keeps recent ones", async () => {
    const now = Date.now();
    const old = now - 40 * DAY;
    await seedTeam(fresh, "tm_drop", "TEAM");
    expect(await ensurePartitions(fresh, old, 1)).toBe(24); // the day before, the day and the day after, six tables and two outbound ones
    expect(await ensurePartitions(fresh, old, 1)).toBe(0);
    await ensurePartitions(fresh, now, 7);
    const oldIds = await insertDay(fresh, old, "tm_drop", "src_tm_drop");
    const newIds = await insertDay(fresh, now, "tm_drop", "src_tm_drop");
    const oldParts = await partitionsOf(fresh, oldIds);
    for (const [table, p] of Object.entries(oldParts)) expect(p).toBe(`${table}_p${dayName(old)}`);
    for (const [table, p] of Object.entries(await partitionsOf(fresh, newIds))) expect(p).toBe(`${table}_p${dayName(now)}`);

    // The metrics rollups of both days (lib/metrics/rollup.ts): dropping a day drops its rollup rows too.
    await rollupPass(fresh, Object.values(GATEWAY_ROLLUPS), now + 120_000, { graceMs: 0 });
    const rollupRows = async (ms: number) => {
      const out: Record<string, number> = {};
      for (const r of Object.values(GATEWAY_ROLLUPS)) {
        const { rows } = await fresh.query(`SELECT count(*)::int AS n FROM ${r.table} WHERE team_id = 'tm_drop' AND minute >= $1 AND minute < $2`, [
          new Date(startOfDay(ms)),
          new Date(startOfDay(ms) + DAY),
        ]);
        out[r.table] = rows[0].n;
      }
      return out;
    };
    const eachOne = Object.fromEntries(Object.values(GATEWAY_ROLLUPS).map((r) => [r.table, 1]));
    expect(await rollupRows(old)).toEqual(eachOne);
    expect(await rollupRows(now)).toEqual(eachOne);

    expect(await dropExpiredPartitions(fresh, now, 0)).toEqual([]);
    const dropped = await dropExpiredPartitions(fresh, now, 30);
    expect(await rollupRows(old)).toEqual(Object.fromEntries(Object.values(GATEWAY_ROLLUPS).map((r) => [r.table, 0])));
    expect(await rollupRows(now)).toEqual(eachOne);
    for (const p of Object.values(oldParts)) expect(dropped).toContain(p);
    expect(dropped.some((p) => p.endsWith(dayName(now)))).toBe(false);
    // Children before parents: no requests partition is dropped before an attempts or events one.
    expect(dropped.findIndex((p) => p.startsWith("requests_"))).toBeGreaterThan(dropped.findLastIndex((p) => p.startsWith("attempts_")));
    expect(Object.values(await partitionsOf(fresh, oldIds))).toEqual([null, null, null, null, null, null]);
    for (const [table, p] of Object.entries(await partitionsOf(fresh, newIds))) expect(p).toBe(`${table}_p${dayName(now)}`);
    // A day is dropped only once it has wholly expired.
    const borderline = startOfDay(now) - 30 * DAY; // its day ends 30 days before the next midnight
    await ensurePartitions(fresh, borderline, 0);
    expect(await dropExpiredPartitions(fresh, startOfDay(now) + DAY - 1, 30)).not.toContain(`requests_p${dayName(borderline)}`);
    expect(await dropExpiredPartitions(fresh, startOfDay(now) + DAY, 30)).toContain(`requests_p${dayName(borderline)}`);
  });

  it("ensurePartitions moves the rows the DEFAULT partition caught into the new day's partition", async () => {
    const later = Date.now() + 20 * DAY; // beyond the days created ahead
    await seedTeam(fresh, "tm_default", "TEAM");
    const ids = await insertDay(fresh, later, "tm_default", "src_tm_default");
    for (const [table, p] of Object.entries(await partitionsOf(fresh, ids))) expect(p).toBe(`${table}_default`);
    expect(await ensurePartitions(fresh, later, 0)).toBeGreaterThan(0);
    for (const [table, p] of Object.entries(await partitionsOf(fresh, ids))) expect(p).toBe(`${table}_p${dayName(later)}`);
  });
});

describe("retention – guest workspaces", () => {
  it("expired console sessions are deleted, and guest teams without a live session with their sources; teams and live guests stay", async () => {
    const now = Date.now();
    const longAgo = new Date(now - 100 * DAY);
    await seedTeam(fresh, "tm_gone", "GUEST", longAgo);
    await seedTeam(fresh, "tm_live", "GUEST", longAgo);
    await seedTeam(fresh, "tm_team", "TEAM", longAgo);
    await seedTeam(fresh, "tm_new", "GUEST"); // being created: its session is not written yet
    await fresh.query(
      "INSERT INTO console_sessions (id, token_hash, team_id, expires_at) VALUES ('ses_a', 'h_a', 'tm_gone', $1), ('ses_b', 'h_b', 'tm_live', $1), ('ses_c', 'h_c', 'tm_live', $2)",
      [new Date(now - DAY), new Date(now + DAY)],
    );
    expect(await expireGuestWorkspaces(fresh, now)).toEqual({ sessions: 2, teams: 1 });
    const teams = (await fresh.query("SELECT id FROM teams WHERE id LIKE 'tm\\_%' ORDER BY id")).rows.map((r) => r.id);
    expect(teams).toEqual(["tm_default", "tm_drop", "tm_live", "tm_new", "tm_team"]);
    expect((await fresh.query("SELECT id FROM sources WHERE team_id = 'tm_gone'")).rowCount).toBe(0);
    expect((await fresh.query("SELECT id FROM console_sessions ORDER BY id")).rows.map((r) => r.id)).toEqual(["ses_c"]);
  });
});

describe("retention – migrating a database with data", () => {
  it("the rows of the unpartitioned tables are kept, each in its day's partition", async () => {
    const db = new pg.Client({ connectionString: urlOf(names.legacy) });
    await db.connect();
    try {
      const dirs = readdirSync("prisma/migrations")
        .filter((d) => /^\d{14}_/.test(d))
        .sort();
      expect(dirs).toContain(MIGRATION);
      for (const d of dirs.filter((d) => d < MIGRATION)) await db.query(readFileSync(`prisma/migrations/${d}/migration.sql`, "utf8"));
      await seedTeam(db, "tm_legacy", "TEAM", new Date(), "cli_key");
      const days = [Date.now() - 3 * DAY, Date.now()];
      const before = [];
      for (const ms of days) before.push(await insertDay(db, ms, "tm_legacy", "src_tm_legacy"));
      expect((await db.query("SELECT relkind FROM pg_class WHERE relname = 'requests'")).rows[0].relkind).toBe("r");
      await db.query(readFileSync(`prisma/migrations/${MIGRATION}/migration.sql`, "utf8"));
      expect((await db.query("SELECT relkind FROM pg_class WHERE relname = 'requests'")).rows[0].relkind).toBe("p");
      for (const [i, ids] of before.entries()) {
        for (const [table, p] of Object.entries(await partitionsOf(db, ids))) expect(p).toBe(`${table}_p${dayName(days[i])}`);
      }
      const { rows } = await db.query("SELECT body FROM request_raw_data WHERE request_id = $1", [before[0].requests]);
      expect(rows[0].body).toEqual(Buffer.from("abc"));
    } finally {
      await db.end();
    }
  });
});

describe("retention – the worker", () => {
  it("runs a retention pass at start: the partitions of yesterday (which the migration does not create) exist", async () => {
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const yesterday = dayName(Date.now() - DAY);
      const want = ["attempts", "events", "ignored_events", "request_raw_data", "requests", "transformation_executions"].map((t) => `${t}_p${yesterday}`);
      let found: string[] = [];
      for (const started = Date.now(); Date.now() - started < 30_000; await new Promise((r) => setTimeout(r, 250))) {
        found = (await db.query("SELECT relname FROM pg_class WHERE relname = ANY($1) ORDER BY relname", [want])).rows.map((r) => r.relname);
        if (found.length === want.length) break;
      }
      expect(found).toEqual(want);
    } finally {
      await db.end();
    }
  });
});

describe("retention – paging across a partition boundary (gateway API)", () => {
  it("GET /requests and /events with a small limit return every row once, in order, across two days' partitions", async () => {
    const team = await newTeam("retention paging");
    const source = await api(team, "POST", "/2025-07-01/sources", { name: "paging" });
    expect(source.status).toBe(200);
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const boundary = startOfDay(Date.now()) + DAY; // tomorrow 00:00 UTC: both days' partitions exist
    const rows: { requests: string; events: string }[] = [];
    try {
      for (const offset of [-3000, -2000, -1000, 0, 1000, 2000, 3000]) rows.push(await insertDay(db, boundary + offset, team.teamId, source.json.id));
      const parts = await partitionsOf(db, { requests: rows[0].requests, events: rows.at(-1)!.events });
      expect(parts).toEqual({ requests: `requests_p${dayName(boundary - 1)}`, events: `events_p${dayName(boundary)}` });
    } finally {
      await db.end();
    }
    for (const resource of ["requests", "events"] as const) {
      const seen: string[] = [];
      let query = "limit=2";
      for (let i = 0; i < 10; i++) {
        const r = await api(team, "GET", `/2025-07-01/${resource}?${query}`);
        expect(r.status).toBe(200);
        seen.push(...r.json.models.map((m: { id: string }) => m.id));
        if (!r.json.pagination.next) break;
        query = `limit=2&next=${r.json.pagination.next}`;
      }
      // Default order: created_at descending.
      expect(seen).toEqual(rows.map((r) => r[resource]).reverse());
    }
  });
});

// Outbound (docs/outbound.md#retention): outbound_events and outbound_attempts are partitioned by UTC day on their `time`
// (migration 20261124172523_outbound_partition_by_time).
const OUTBOUND_MIGRATION = "20261124172523_outbound_partition_by_time";

/** An outbound event with `time` `ms`, one attempt at `ms` and a finished delivery; returns the ids. */
async function insertOutbound(db: pg.Pool | pg.Client, ms: number, tag: string) {
  const at = new Date(ms);
  const ids = { outbound_events: `evt_${tag}`, outbound_attempts: `atm_${tag}` };
  await db.query(
    "INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, data, matched_destination_ids) VALUES ($1, 't_ret', 'a', $2, true, $3, '{des_x}')",
    [ids.outbound_events, at, Buffer.from("{}")],
  );
  await db.query(
    "INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, attempt_number, manual, time) VALUES ($1, $2, 't_ret', 'des_x', 'webhook', 'a', 'success', 0, false, $3)",
    [ids.outbound_attempts, ids.outbound_events, at],
  );
  return ids;
}
const outboundPartitionOf = async (db: pg.Pool | pg.Client, table: string, id: string) =>
  (await db.query(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE id = $1`, [id])).rows[0]?.p ?? null;

describe("retention – outbound events and attempts by day", () => {
  it("rows land in their day's partition by time; whole old days are dropped; DEFAULT rows are moved into a new day, or deleted past retention", async () => {
    const now = Date.now();
    const old = now - 40 * DAY;
    await ensurePartitions(fresh, old, 1);
    await ensurePartitions(fresh, now, 7);
    const oldIds = await insertOutbound(fresh, old, "old");
    const newIds = await insertOutbound(fresh, now, "new");
    for (const [table, id] of Object.entries(oldIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_p${dayName(old)}`);
    for (const [table, id] of Object.entries(newIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_p${dayName(now)}`);
    const dropped = await dropExpiredPartitions(fresh, now, 30);
    expect(dropped).toEqual(expect.arrayContaining([`outbound_attempts_p${dayName(old)}`, `outbound_events_p${dayName(old)}`]));
    for (const [table, id] of Object.entries(oldIds)) expect(await outboundPartitionOf(fresh, table, id)).toBeNull();
    for (const [table, id] of Object.entries(newIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_p${dayName(now)}`);

    // A time with no partition: far ahead (moved in when its day is created) and long ago (deleted past retention).
    const later = now + 25 * DAY; // no partition yet (the test above created the day 20 days ahead)
    const laterIds = await insertOutbound(fresh, later, "later");
    const ancientIds = await insertOutbound(fresh, now - 400 * DAY, "ancient");
    for (const [table, id] of Object.entries(laterIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_default`);
    await ensurePartitions(fresh, later, 0);
    for (const [table, id] of Object.entries(laterIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_p${dayName(later)}`);
    for (const [table, id] of Object.entries(ancientIds)) expect(await outboundPartitionOf(fresh, table, id)).toBe(`${table}_default`);
    await fresh.query(
      "INSERT INTO outbound_deliveries (event_id, event_time, destination_id, tenant_id, status, updated_at) VALUES ('evt_ancient', $1, 'des_x', 't_ret', 'success', $1), ('evt_new', $2, 'des_x', 't_ret', 'pending', $1)",
      [new Date(now - 400 * DAY), new Date(now)],
    );
    expect(await expireOutboundLeftovers(fresh, now, 0)).toEqual({ events: 0, attempts: 0, deliveries: 0 });
    expect(await expireOutboundLeftovers(fresh, now, 30)).toEqual({ events: 1, attempts: 1, deliveries: 1 });
    for (const [table, id] of Object.entries(ancientIds)) expect(await outboundPartitionOf(fresh, table, id)).toBeNull();
    // A pending delivery stays, however old.
    expect((await fresh.query("SELECT event_id FROM outbound_deliveries")).rows.map((r) => r.event_id)).toEqual(["evt_new"]);
  });

  it("migrating a database with outbound data keeps every row, each in its day's partition, and gives deliveries their event's time", async () => {
    const db = new pg.Client({ connectionString: urlOf(names.outboundLegacy) });
    await db.connect();
    try {
      const dirs = readdirSync("prisma/migrations")
        .filter((d) => /^\d{14}_/.test(d))
        .sort();
      expect(dirs).toContain(OUTBOUND_MIGRATION);
      for (const d of dirs.filter((d) => d < OUTBOUND_MIGRATION)) await db.query(readFileSync(`prisma/migrations/${d}/migration.sql`, "utf8"));
      const days = [Date.now() - 3 * DAY, Date.now()];
      for (const [i, ms] of days.entries()) await insertOutbound(db, ms, `legacy${i}`);
      await db.query(
        "INSERT INTO outbound_deliveries (event_id, destination_id, tenant_id, status) VALUES ('evt_legacy0', 'des_x', 't_ret', 'success'), ('evt_gone', 'des_x', 't_ret', 'pending')",
      );
      expect((await db.query("SELECT relkind FROM pg_class WHERE relname = 'outbound_events'")).rows[0].relkind).toBe("r");
      await db.query(readFileSync(`prisma/migrations/${OUTBOUND_MIGRATION}/migration.sql`, "utf8"));
      for (const table of ["outbound_events", "outbound_attempts"])
        expect((await db.query("SELECT relkind FROM pg_class WHERE relname = $1", [table])).rows[0].relkind).toBe("p");
      for (const [i, ms] of days.entries()) {
        expect(await outboundPartitionOf(db, "outbound_events", `evt_legacy${i}`)).toBe(`outbound_events_p${dayName(ms)}`);
        expect(await outboundPartitionOf(db, "outbound_attempts", `atm_legacy${i}`)).toBe(`outbound_attempts_p${dayName(ms)}`);
      }
      const { rows } = await db.query("SELECT event_id, event_time FROM outbound_deliveries");
      expect(rows).toEqual([{ event_id: "evt_legacy0", event_time: new Date(days[0]) }]);
    } finally {
      await db.end();
    }
  });
});

describe("retention – outbound API over day partitions", () => {
  let key = "";
  const tenant = `ret-${suffix}`;
  beforeAll(async () => {
    key = (await createOutboundKey(`retention-${suffix}`)).key;
    expect((await outboundCall(key, "PUT", `/tenants/${tenant}`)).status).toBe(201);
  });

  it("an event id stays unique across days: the same id with another day's time is a duplicate, also when published at once", async () => {
    const id = `evt-dup-${suffix}`;
    const now = Date.now();
    const first = await outboundCall(key, "POST", "/publish", { id, tenant_id: tenant, topic: "a", time: new Date(now - DAY).toISOString(), data: { n: 1 } });
    expect(first.json).toMatchObject({ id, duplicate: false });
    const again = await outboundCall(key, "POST", "/publish", { id, tenant_id: tenant, topic: "a", time: new Date(now).toISOString(), data: { n: 2 } });
    expect(again).toMatchObject({ status: 202, json: { id, duplicate: true } });
    // Ten publishes of one new id at once, each with a different day: one is stored, nine are duplicates.
    const racing = `evt-race-${suffix}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        outboundCall(key, "POST", "/publish", { id: racing, tenant_id: tenant, topic: "a", time: new Date(now - i * DAY).toISOString(), data: { i } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(answers.filter((a) => a.json.duplicate === false)).toHaveLength(1);
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      expect((await db.query("SELECT count(*)::int AS n FROM outbound_events WHERE id = ANY($1)", [[id, racing]])).rows[0].n).toBe(2);
    } finally {
      await db.end();
    }
    expect((await outboundCall(key, "GET", `/events/${id}`)).json).toMatchObject({ id, data: { n: 1 } });
  });

  it("GET /events pages across day partitions, every event once in order; metrics count them", async () => {
    const boundary = startOfDay(Date.now());
    const times = [-3000, -2000, -1000, 0, 1000, 2000].map((o) => boundary + o);
    const ids: string[] = [];
    for (const [i, t] of times.entries()) {
      const r = await outboundCall(key, "POST", "/publish", {
        id: `evt-page-${i}-${suffix}`,
        tenant_id: tenant,
        topic: "paged",
        time: new Date(t).toISOString(),
        data: { i },
      });
      expect(r.status).toBe(202);
      ids.push(r.json.id);
    }
    const seen: string[] = [];
    let query = `tenant_id=${tenant}&topic=paged&limit=2`;
    for (let i = 0; i < 10; i++) {
      const r = await outboundCall(key, "GET", `/events?${query}`);
      expect(r.status).toBe(200);
      seen.push(...r.json.models.map((m: { id: string }) => m.id));
      if (!r.json.pagination.next) break;
      query = `tenant_id=${tenant}&topic=paged&limit=2&next=${r.json.pagination.next}`;
    }
    expect(seen).toEqual([...ids].reverse());
    const m = await outboundCall(
      key,
      "GET",
      `/metrics/events?time[start]=${new Date(boundary - DAY).toISOString()}&time[end]=${new Date(boundary + DAY).toISOString()}&measures=count&filters[topic]=paged&filters[tenant_id]=${tenant}`,
    );
    expect(m.status).toBe(200);
    expect(m.json.data[0].metrics.count).toBe(6);
  });
});
