/**
 * Archiving a day before retention drops it (docs/operations.md "Archive"): the day's partitions of
 * requests (each with its raw data), events, ignored events, attempts, transformation executions,
 * outbound events and outbound attempts, as gzip NDJSON files with a manifest (lib/archive/day-archive.ts).
 * Hand-written SQL over pg: a server-side cursor in one REPEATABLE READ snapshot streams each partition,
 * so the files and the counts of the manifest describe the same moment and no day is held in memory.
 */
import type pg from "pg";
import { type ArchiveInput, type DayManifest, readManifest, verifyArchiveFile, writeDayArchive } from "@/lib/archive/day-archive";
import type { ArchiveStore } from "@/lib/archive/store";
import { logger } from "@/lib/log";

const log = logger("retention");

/** One archived file: the partitioned tables it reads (a file is rewritten only while all of them still exist), its query over the day's partitions. */
type FileSpec = { name: string; tables: string[]; sql: (p: (table: string) => string) => string };

// Bytes are base64 in the JSON (to_jsonb would write them as \x hex, twice the size).
const FILES: FileSpec[] = [
  {
    name: "requests",
    tables: ["requests", "request_raw_data"],
    sql: (p) =>
      `SELECT (to_jsonb(r) || jsonb_build_object('raw', CASE WHEN d.request_id IS NULL THEN NULL
                ELSE (to_jsonb(d) - 'request_id' - 'body') || jsonb_build_object('body', encode(d.body, 'base64')) END))::text AS line
         FROM ${p("requests")} r LEFT JOIN ${p("request_raw_data")} d ON d.request_id = r.id ORDER BY r.id`,
  },
  { name: "events", tables: ["events"], sql: (p) => `SELECT to_jsonb(t)::text AS line FROM ${p("events")} t ORDER BY t.id` },
  { name: "ignored_events", tables: ["ignored_events"], sql: (p) => `SELECT to_jsonb(t)::text AS line FROM ${p("ignored_events")} t ORDER BY t.id` },
  { name: "attempts", tables: ["attempts"], sql: (p) => `SELECT to_jsonb(t)::text AS line FROM ${p("attempts")} t ORDER BY t.id` },
  {
    name: "transformation_executions",
    tables: ["transformation_executions"],
    sql: (p) => `SELECT to_jsonb(t)::text AS line FROM ${p("transformation_executions")} t ORDER BY t.id`,
  },
  {
    name: "outbound_events",
    tables: ["outbound_events"],
    sql: (p) =>
      `SELECT ((to_jsonb(t) - 'data') || jsonb_build_object('data', encode(t.data, 'base64')))::text AS line FROM ${p("outbound_events")} t ORDER BY t.time, t.id`,
  },
  {
    name: "outbound_attempts",
    tables: ["outbound_attempts"],
    sql: (p) => `SELECT to_jsonb(t)::text AS line FROM ${p("outbound_attempts")} t ORDER BY t.time, t.id`,
  },
];

/** Every table an archive counts. */
export const ARCHIVED_TABLES = [...new Set(FILES.flatMap((f) => f.tables))];

/** `YYYY-MM-DD` → the partition suffix `_pYYYYMMDD`. Throws for a malformed day. */
function partitionOf(table: string, day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`not a day: ${day} (YYYY-MM-DD)`);
  return `${table}_p${day.replaceAll("-", "")}`;
}

/** Rows of each of `day`'s partitions that exist (a dropped or never-created partition is absent). */
async function partitionCounts(db: Pick<pg.PoolClient, "query">, day: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ARCHIVED_TABLES) {
    const name = partitionOf(table, day);
    const { rows } = await db.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [name]);
    if (!rows[0].exists) continue;
    const { rows: n } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
    counts[table] = n[0].n;
  }
  return counts;
}

/** The rows of `sql`'s `line` column, fetched through a cursor 1,000 at a time in `client`'s open transaction. */
async function* cursorLines(client: pg.PoolClient, sql: string, name: string): AsyncGenerator<string> {
  await client.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`);
  try {
    for (;;) {
      const { rows } = await client.query<{ line: string }>(`FETCH 1000 FROM ${name}`);
      for (const r of rows) yield r.line;
      if (rows.length < 1000) return;
    }
  } finally {
    await client.query(`CLOSE ${name}`);
  }
}

/**
 * Writes `day`'s (`YYYY-MM-DD`) archive to `store` from the database and verifies it; returns the
 * manifest. Files whose partitions are gone (dropped after an earlier archive) keep `previous`'s entry.
 * Throws on database or I/O errors, or when the written files do not verify (no manifest then).
 */
export async function archiveDay(pool: pg.Pool, store: ArchiveStore, day: string, previous: DayManifest | null = null): Promise<DayManifest> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const counts = await partitionCounts(client, day);
    const inputs: ArchiveInput[] = FILES.map((f, i) => {
      const present = f.tables.every((t) => t in counts);
      if (!present && previous?.files[f.name]) return { name: f.name, keep: previous.files[f.name] };
      if (!present) return { name: f.name, lines: (async function* () {})() };
      return {
        name: f.name,
        lines: cursorLines(
          client,
          f.sql((t) => `"${partitionOf(t, day)}"`),
          `hookyard_archive_${i}`,
        ),
      };
    });
    const bySource: Record<string, { team_id: string; requests: number }> = {};
    if ("requests" in counts) {
      const { rows } = await client.query<{ source_id: string; team_id: string; n: number }>(
        `SELECT source_id, team_id, count(*)::int AS n FROM "${partitionOf("requests", day)}" GROUP BY 1, 2`,
      );
      for (const r of rows) bySource[r.source_id] = { team_id: r.team_id, requests: r.n };
    }
    const merged = { ...(previous?.counts ?? {}), ...counts };
    const index = { requests_by_source: "requests" in counts ? bySource : (previous?.index.requests_by_source ?? {}) };
    const manifest = await writeDayArchive(store, day, inputs, () => ({ counts: merged, index }));
    await client.query("COMMIT");
    return manifest;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Makes sure `day` has a verified archive matching what its partitions hold now: an existing manifest
 * whose counts equal those of the partitions still there, and whose files still verify, is kept;
 * otherwise the day is archived again.
 * Returns the counts retention must find in each partition before dropping it. Throws on errors (the
 * day is then not dropped).
 */
export async function ensureDayArchived(pool: pg.Pool, store: ArchiveStore, day: string): Promise<Record<string, number>> {
  const manifest = await readManifest(store, day);
  const counts = await partitionCounts(pool, day);
  if (manifest && Object.entries(counts).every(([t, n]) => manifest.counts[t] === n)) {
    // Written at an earlier pass: read back again before anything is dropped on its word.
    const { problems } = await verifyDay(store, day);
    if (!problems.length) return manifest.counts;
    log.warn(`archive of ${day} no longer verifies (${problems[0]}); archiving the day again`);
  }
  return (await archiveDay(pool, store, day, manifest)).counts;
}

/**
 * Reads `day`'s archive back from `store` and checks every file's sha256, size and row count against
 * the manifest, and the manifest's counts against its files. Returns the problems found (empty: the
 * archive verifies), one sentence each. Throws on I/O errors.
 */
export async function verifyDay(store: ArchiveStore, day: string): Promise<{ manifest: DayManifest | null; problems: string[] }> {
  const manifest = await readManifest(store, day);
  if (!manifest) return { manifest, problems: [`${day}: no manifest (not archived)`] };
  const problems: string[] = [];
  for (const file of Object.values(manifest.files)) {
    const problem = await verifyArchiveFile(store, file);
    if (problem) problems.push(problem);
  }
  const checks: [string, string][] = [
    ["requests", "requests"],
    ["events", "events"],
    ["attempts", "attempts"],
    ["outbound_events", "outbound_events"],
    ["outbound_attempts", "outbound_attempts"],
  ];
  for (const [file, table] of checks) {
    const f = manifest.files[file];
    if (f && table in manifest.counts && f.rows !== manifest.counts[table]) problems.push(`${file}: ${f.rows} rows, the day held ${manifest.counts[table]}`);
  }
  return { manifest, problems };
}
