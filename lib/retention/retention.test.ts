/**
 * Issue 15 §5 "Retention": time partitions, their expiry, guest workspace expiry, and the migration of an
 * existing database. Runs against real PostgreSQL: a database of its own for what drops or migrates, the
 * shared test database (DATABASE_URL) for paging through the app's own store.
 */
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate";
import { closePool, getPool } from "@/lib/db/pool";
import { listRequests } from "@/lib/gateway/requests/request-store";
import { parsePaging } from "@/lib/http/paging";
import { createId, type IdKind } from "@/lib/ids";
import { DAY_MS, idTimeMs, listPartitions, PARTITIONED_TABLES } from "@/lib/retention/partitions";
import { expireGuests, runRetention } from "@/lib/retention/retention";
import { MIGRATIONS_DIR } from "@/lib/db/schema-engine";

const adminUrl = process.env.TEST_PG_ADMIN_URL!;
const suffix = `${Date.now()}_${process.pid}`;
const names = { fresh: `hookyard_ret_f_${suffix}`, old: `hookyard_ret_o_${suffix}` };
const urlOf = (db: string) => adminUrl.replace(/\/[^/?]+(\?|$)/, `/${db}$1`);
const NOW = Date.now();

async function insertTeamAndSource(db: pg.Pool | pg.Client, mode = "TEAM", createdAt = new Date(NOW)) {
  const team = createId("team");
  const source = createId("source");
  await db.query(`INSERT INTO teams (id, name, mode, cli_key, created_at, updated_at) VALUES ($1, 't', $2, $3, $4, $4)`, [team, mode, createId("team"), createdAt]);
  await db.query(`INSERT INTO sources (id, team_id, name, created_at, updated_at) VALUES ($1, $2, 's', $3, $3)`, [source, team, createdAt]);
  return { team, source };
}

/** One request with raw data, event, ignored event, attempt and execution, all created at `at` (ms). */
async function insertRecords(db: pg.Pool | pg.Client, team: string, source: string, at: number) {
  const t = new Date(at);
  const ids = {
    request: createId("request", at),
    event: createId("event", at),
    ignoredEvent: createId("ignoredEvent", at),
    attempt: createId("attempt", at),
    execution: createId("execution", at),
  };
  await db.query(`INSERT INTO requests (id, team_id, source_id, ingested_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $4, $4)`, [ids.request, team, source, t]);
  await db.query(`INSERT INTO request_raw_data (request_id, method, path, query, headers, body_size) VALUES ($1, 'POST', '/', '', '{}', 0)`, [ids.request]);
  await db.query(
    `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, created_at, updated_at) VALUES ($1, $2, 'web_x', $3, 'des_x', $4, 'SUCCESSFUL', $5, $5)`,
    [ids.event, team, source, ids.request, t],
  );
  await db.query(`INSERT INTO ignored_events (id, team_id, webhook_id, request_id, cause, created_at, updated_at) VALUES ($1, $2, 'web_x', $3, 'FILTERED', $4, $4)`, [ids.ignoredEvent, team, ids.request, t]);
  await db.query(
    `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, created_at, updated_at) VALUES ($1, $2, $3, 'des_x', 1, 'INITIAL', 'SUCCESSFUL', $4, $4)`,
    [ids.attempt, team, ids.event, t],
  );
  await db.query(`INSERT INTO transformation_executions (id, team_id, transformation_id, log_level, created_at, updated_at) VALUES ($1, $2, 'trs_x', 'info', $3, $3)`, [ids.execution, team, t]);
  return ids;
}

const TABLE_OF: Record<string, [string, string]> = {
  request: ["requests", "id"],
  event: ["events", "id"],
  ignoredEvent: ["ignored_events", "id"],
  attempt: ["attempts", "id"],
  execution: ["transformation_executions", "id"],
};

async function present(db: pg.Pool, ids: Record<string, string>): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const [kind, id] of Object.entries(ids)) {
    const [table, col] = TABLE_OF[kind]!;
    out[kind] = (await db.query(`SELECT 1 FROM ${table} WHERE ${col} = $1`, [id])).rowCount === 1;
  }
  out.raw = (await db.query(`SELECT 1 FROM request_raw_data WHERE request_id = $1`, [ids.request])).rowCount === 1;
  return out;
}

describe("retention", () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  let fresh: pg.Pool;
  beforeAll(async () => {
    await admin.connect();
    for (const n of Object.values(names)) await admin.query(`CREATE DATABASE "${n}"`);
    await migrate(urlOf(names.fresh));
    fresh = new pg.Pool({ connectionString: urlOf(names.fresh), max: 3 });
    fresh.on("error", () => {}); // DROP DATABASE … WITH (FORCE) at the end ends its idle connections
  });
  afterAll(async () => {
    await fresh?.end();
    await closePool();
    for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
    await admin.end();
  });

  it("partition bounds computed in SQL enclose the ids lib/ids.ts makes at that millisecond", async () => {
    for (const ms of [0, 1_700_000_000_000, NOW, NOW + 123_456_789, 2 ** 47]) {
      for (const kind of ["request", "event", "ignoredEvent", "attempt", "execution"] as IdKind[]) {
        const id = createId(kind, ms);
        const prefix = id.slice(0, 4);
        const { rows } = await fresh.query<{ lo: string; hi: string }>("SELECT hookyard_id_bound($1, $2) AS lo, hookyard_id_bound($1, $2 + 1) AS hi", [prefix, ms]);
        expect(rows[0]!.lo <= id && id < rows[0]!.hi).toBe(true);
        expect(idTimeMs(id, prefix)).toBe(ms);
        expect(idTimeMs(rows[0]!.lo, prefix)).toBe(ms);
      }
    }
  });

  it("drops whole partitions older than RETENTION_DAYS, expires old default-partition rows, keeps the rest", async () => {
    const { team, source } = await insertTeamAndSource(fresh);
    const day = (d: number) => Math.floor(NOW / DAY_MS) * DAY_MS + d * DAY_MS;
    // Partitions of days -45..-40, as a database running for weeks has.
    for (const { table, prefix } of PARTITIONED_TABLES) {
      for (let d = -45; d < -39; d++) await fresh.query("SELECT hookyard_create_partition($1, $2, $3, $4)", [table, prefix, day(d), day(d + 1)]);
    }
    const old = await insertRecords(fresh, team, source, day(-42) + 3_600_000);
    const inDefault = await insertRecords(fresh, team, source, day(-60)); // no partition: the default one
    const recent = await insertRecords(fresh, team, source, NOW - 3_600_000);
    const edge = await insertRecords(fresh, team, source, NOW - 29 * DAY_MS); // within 30 days
    expect(Object.values(await present(fresh, old)).every(Boolean)).toBe(true);
    expect((await fresh.query("SELECT count(*)::int AS n FROM requests_default")).rows[0].n).toBe(2); // -60 and -29 days

    const result = await runRetention({ now: NOW, db: fresh });
    for (const table of ["requests", "request_raw_data", "events", "ignored_events", "attempts", "transformation_executions"]) {
      expect(result.dropped).toContain(`${table}_p${new Date(day(-42)).toISOString().slice(0, 10).replaceAll("-", "")}`);
    }
    expect(result.dropped).toHaveLength(6 * 6);
    expect(result.defaultRows).toBe(6); // raw data, request, event, ignored event, attempt, execution
    expect(await present(fresh, old)).toEqual({ request: false, event: false, ignoredEvent: false, attempt: false, execution: false, raw: false });
    expect(await present(fresh, inDefault)).toEqual({ request: false, event: false, ignoredEvent: false, attempt: false, execution: false, raw: false });
    expect(await present(fresh, recent)).toEqual({ request: true, event: true, ignoredEvent: true, attempt: true, execution: true, raw: true });
    expect(await present(fresh, edge)).toEqual({ request: true, event: true, ignoredEvent: true, attempt: true, execution: true, raw: true });
    for (const { table, prefix } of PARTITIONED_TABLES) {
      const parts = await listPartitions(fresh, table, prefix);
      expect(parts.every((p) => p.toMs! > NOW - 30 * DAY_MS)).toBe(true);
      // Partitions exist a week ahead, one day wide, without gaps.
      expect(Math.max(...parts.map((p) => p.toMs!))).toBeGreaterThanOrEqual(NOW + 7 * DAY_MS);
    }
    // A second pass finds nothing left to do.
    expect(await runRetention({ now: NOW, db: fresh })).toEqual({ created: [], dropped: [], defaultRows: 0, sessions: 0, teams: 0 });
  });

  it("creates the partitions ahead as time goes on, and later expires what they held", async () => {
    const later = NOW + 20 * DAY_MS;
    const r = await runRetention({ now: later, db: fresh });
    expect(r.created.length).toBe(6 * 20);
    const { team, source } = await insertTeamAndSource(fresh);
    const ids = await insertRecords(fresh, team, source, later + 3 * DAY_MS);
    const { rows } = await fresh.query("SELECT tableoid::regclass::text AS part FROM requests WHERE id = $1", [ids.request]);
    expect(rows[0].part).toBe(`requests_p${new Date(later + 3 * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`);
    const gone = await runRetention({ now: later + 3 * DAY_MS + 31 * DAY_MS, db: fresh });
    expect(gone.dropped.length).toBeGreaterThan(0);
    expect(Object.values(await present(fresh, ids)).some(Boolean)).toBe(false);
  });

  it("expires console sessions and guest workspaces with their 90-day cookie, with their sources", async () => {
    const long = new Date(NOW - 100 * DAY_MS);
    const expired = await insertTeamAndSource(fresh, "GUEST", long);
    await fresh.query(`INSERT INTO console_sessions (id, token_hash, team_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`, [createId("session"), `h${suffix}a`, expired.team, new Date(NOW - 10 * DAY_MS), long]);
    const live = await insertTeamAndSource(fresh, "GUEST", long);
    await fresh.query(`INSERT INTO console_sessions (id, token_hash, team_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`, [createId("session"), `h${suffix}b`, live.team, new Date(NOW + DAY_MS), long]);
    const young = await insertTeamAndSource(fresh, "GUEST", new Date(NOW - DAY_MS)); // no session yet: kept
    const gateway = await insertTeamAndSource(fresh, "TEAM", long); // gateway teams never expire
    const req = await insertRecords(fresh, expired.team, expired.source, NOW);

    expect(await expireGuests(fresh, NOW)).toEqual({ sessions: 1, teams: 1 });
    const teams = (await fresh.query<{ id: string }>("SELECT id FROM teams WHERE id = ANY($1)", [[expired.team, live.team, young.team, gateway.team]])).rows.map((r) => r.id);
    expect(teams.sort()).toEqual([live.team, young.team, gateway.team].sort());
    expect((await fresh.query("SELECT 1 FROM sources WHERE id = $1", [expired.source])).rowCount).toBe(0);
    expect((await fresh.query("SELECT 1 FROM requests WHERE id = $1", [req.request])).rowCount).toBe(0);
    expect((await fresh.query("SELECT 1 FROM request_raw_data WHERE request_id = $1", [req.request])).rowCount).toBe(0);
  });

  it("keyset paging through the requests list crosses partition boundaries: every row once, in order", async () => {
    const db = getPool();
    const { team, source } = await insertTeamAndSource(db);
    const made: string[] = [];
    // Yesterday's and today's partitions, and older rows in the default partition.
    for (const offset of [0, 1, 2, 3, 4, 5, 6, 7].map((h) => NOW - h * 7 * 3_600_000)) made.push((await insertRecords(db, team, source, offset)).request);
    const parts = await db.query<{ part: string }>("SELECT DISTINCT tableoid::regclass::text AS part FROM requests WHERE id = ANY($1)", [made]);
    expect(parts.rowCount).toBeGreaterThanOrEqual(2);
    for (const dir of ["desc", "asc"] as const) {
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const page = await listRequests(team, {}, parsePaging({ limit: "3", dir, ...(next ? { next } : {}) }, ["created_at"]), true);
        seen.push(...page.models.map((m) => (m as { id: string }).id));
        next = page.pagination.next;
      } while (next);
      expect(seen).toEqual(dir === "desc" ? made : [...made].reverse());
    }
  });

  it("the migration keeps the rows of a database made before partitioning", async () => {
    const client = new pg.Client({ connectionString: urlOf(names.old) });
    await client.connect();
    try {
      const dirs = readdirSync(MIGRATIONS_DIR).filter((d) => /^\d{14}_/.test(d)).sort();
      const mine = dirs.indexOf("20261123220000_time_partitions");
      expect(mine).toBeGreaterThan(0);
      for (const d of dirs.slice(0, mine)) await client.query(readFileSync(`${MIGRATIONS_DIR}/${d}/migration.sql`, "utf8"));
      const { team, source } = await insertTeamAndSource(client);
      const rows = [];
      for (const at of [NOW - 10 * DAY_MS, NOW - DAY_MS, NOW]) rows.push(await insertRecords(client, team, source, at));
      expect((await client.query("SELECT relkind FROM pg_class WHERE relname = 'requests'")).rows[0].relkind).toBe("r");

      await client.query(readFileSync(`${MIGRATIONS_DIR}/20261123220000_time_partitions/migration.sql`, "utf8"));

      for (const table of ["requests", "request_raw_data", "events", "ignored_events", "attempts", "transformation_executions"]) {
        expect((await client.query("SELECT relkind FROM pg_class WHERE relname = $1", [table])).rows[0].relkind).toBe("p");
        expect((await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(3);
        expect((await client.query(`SELECT count(*)::int AS n FROM ${table}_default`)).rows[0].n).toBe(0);
      }
      const back = await client.query("SELECT id, created_at FROM requests ORDER BY id");
      expect(back.rows.map((r) => r.id)).toEqual(rows.map((r) => r.request));
      expect(back.rows.map((r) => r.created_at.getTime())).toEqual([NOW - 10 * DAY_MS, NOW - DAY_MS, NOW]);
      // Foreign keys hold on the new tables: raw data of an unknown request is refused.
      await expect(client.query(`INSERT INTO request_raw_data (request_id, method, path, query, headers, body_size) VALUES ($1, 'POST', '/', '', '{}', 0)`, [createId("request")])).rejects.toThrow(/foreign key/);
    } finally {
      await client.end();
    }
  });
});
