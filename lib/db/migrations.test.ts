/**
 * prisma/schema.prisma is the source of truth; prisma/migrations must build the same database.
 * Applies every migration to one fresh database and the SQL of schema.prisma (diffed from empty) to
 * another, then compares their catalogs. Fails when someone edits the schema without
 * `npm run db:migration -- <name>`, or edits a migration by hand into something else.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCatalog } from "@/lib/db/catalog";
import { migrate } from "@/lib/db/migrate";
import { diffSchemaSql, MIGRATIONS_DIR, SCHEMA_PATH } from "@/lib/db/schema-engine";

const adminUrl = process.env.TEST_PG_ADMIN_URL;
const suffix = `${Date.now()}_${process.pid}`;
const names = { migrated: `hookyard_drift_m_${suffix}`, fromSchema: `hookyard_drift_s_${suffix}` };
const urlOf = (db: string) => adminUrl!.replace(/\/[^/?]+(\?|$)/, `/${db}$1`);

/**
 * What the migrations build that schema.prisma cannot say (migration 20261123220000_partition_by_time,
 * docs/scaling.md#retention-and-sizing): the big tables are partitioned by day on their id, and those ids sort in byte order. Any other
 * difference fails the test.
 */
const PARTITIONED = { attempts: "id", events: "id", ignored_events: "id", transformation_executions: "id", request_raw_data: "request_id", requests: "id" };
/** The outbound tables are partitioned by day on their time (migration 20261124172523_outbound_partition_by_time). */
const TIME_PARTITIONED = ["outbound_attempts", "outbound_events"];
/**
 * The metrics rollup tables (migration 20261124173000_metrics_rollups, lib/metrics/rollup.ts) are plain SQL kept by
 * the worker: they have no primary key, so schema.prisma cannot describe them. They are checked to exist and are
 * left out of the comparison.
 */
const ROLLUP_TABLES = [
  "metrics_dirty",
  "metrics_requests_1m",
  "metrics_events_1m",
  "metrics_attempts_1m",
  "metrics_attempt_latency_1m",
  "metrics_attempt_latency_1h",
  "metrics_transformations_1m",
];
const ofRollupTable = (line: string) => ROLLUP_TABLES.some((t) => line.includes(` ${t}.`) || line.includes(` ${t} `) || line.includes(` public.${t} `));
const KNOWN_DIFFERENCES = [
  ...Object.entries(PARTITIONED).flatMap(([table, key]) => [`partitioned ${table} RANGE (${key})`, `collation ${table}.${key} C`]),
  ...TIME_PARTITIONED.map((table) => `partitioned ${table} RANGE ("time")`),
  // An ordered event's place in its key's sequence is its request's id, compared in byte order as ids are
  // (migration 20261126092344_ordered_delivery, docs/pipeline.md "Ordered delivery").
  "collation events.ordering_pos C",
];

describe("migrations agree with schema.prisma", () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  beforeAll(async () => {
    await admin.connect();
    for (const n of Object.values(names)) await admin.query(`CREATE DATABASE "${n}"`);
  });
  afterAll(async () => {
    for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
    await admin.end();
  });

  it("the migrated database has exactly the tables, columns, indexes and constraints schema.prisma describes", async () => {
    const applied = await migrate(urlOf(names.migrated));
    expect(applied.length).toBeGreaterThan(0);
    const sql = await diffSchemaSql(urlOf(names.fromSchema), null);
    const client = new pg.Client({ connectionString: urlOf(names.fromSchema) });
    await client.connect();
    await client.query(sql);
    await client.end();
    const migrated = await describeCatalog(urlOf(names.migrated));
    const fromSchema = await describeCatalog(urlOf(names.fromSchema));
    expect(migrated.length).toBeGreaterThan(20);
    expect(migrated.filter((line) => KNOWN_DIFFERENCES.includes(line)).sort()).toEqual([...KNOWN_DIFFERENCES].sort());
    for (const table of ROLLUP_TABLES) expect(migrated.some((line) => line.startsWith(`column ${table}.`))).toBe(true);
    expect(migrated.filter((line) => !KNOWN_DIFFERENCES.includes(line) && !ofRollupTable(line))).toEqual(fromSchema);
  });

  it("the schema snapshot used to write the next migration is the current schema", () => {
    expect(readFileSync(`${MIGRATIONS_DIR}/schema_snapshot.prisma`, "utf8")).toBe(readFileSync(SCHEMA_PATH, "utf8"));
  });

  it("migrating twice applies nothing the second time", async () => {
    expect(await migrate(urlOf(names.migrated))).toEqual([]);
  });
});
