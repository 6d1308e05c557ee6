/**
 * One metrics query builder for every metrics endpoint of both services
 * (docs/gateway-api.md#metrics-2025-07-01, docs/outbound.md#events-attempts-metrics-health). A
 * metrics table describes what can be asked (measures as SQL aggregates, dimensions and filters as SQL
 * expressions over indexed columns, never bodies); a request says what is asked (time range, optional
 * granularity, measures, dimensions, filters). The answer is the real products' MetricsResponse:
 * `{data: [{time_bucket?, dimensions?, metrics}], metadata: {granularity, query_time_ms, row_count,
 * row_limit, truncated}}`, with every bucket of the range present (zero counts, null latencies).
 * Each surface parses its own query form into a MetricsRequest (lib/gateway/metrics/routes.ts) and maps
 * the 400 AppError of {@link metricsInvalid} to its error body.
 */
import { AppError } from "@/lib/http/errors";
import type pg from "pg";

type GranularityUnit = "s" | "m" | "h" | "d" | "w" | "M";
type Granularity = { n: number; unit: GranularityUnit; text: string };

export type MetricsRequest = {
  /** Inclusive start and exclusive end of the range. */
  start: Date;
  end: Date;
  granularity: Granularity | null;
  measures: string[];
  dimensions: string[];
  /** Filter name → accepted values (any of them). */
  filters: Record<string, string[]>;
};

/** A measure: its SQL aggregate (a number or null), and its value in a bucket without rows. */
type MeasureDef = { sql: string; empty: 0 | null };

/** Measure builders: rows (matching `where`), their share of all rows, an average or percentile (null when empty). */
export const measure = {
  count: (where?: string): MeasureDef => ({ sql: where ? `count(*) FILTER (WHERE ${where})` : "count(*)", empty: 0 }),
  share: (where: string): MeasureDef => ({ sql: `coalesce(count(*) FILTER (WHERE ${where})::float8 / nullif(count(*), 0), 0)`, empty: 0 }),
  distinct: (sql: string): MeasureDef => ({ sql: `count(DISTINCT ${sql})`, empty: 0 }),
  value: (sql: string): MeasureDef => ({ sql, empty: null }),
  percentile: (p: number, col: string): MeasureDef => ({ sql: `percentile_cont(${p}) WITHIN GROUP (ORDER BY ${col})`, empty: null }),
};

/**
 * Measure builders over rollup rows (alias `r`, see RollupStore): row counts are sums of `r.n`, averages
 * ratios of a sum and a count column, percentiles the interpolated percentile (percentile_cont) of the
 * rows' latency histogram: each row stands for `r.<count>` values of mean `r.<sum> / r.<count>`.
 */
export const rollupMeasure = {
  count: (where?: string): MeasureDef => ({ sql: where ? `coalesce(sum(r.n) FILTER (WHERE ${where}), 0)` : "sum(r.n)", empty: 0 }),
  share: (where: string): MeasureDef => ({ sql: `coalesce(sum(r.n) FILTER (WHERE ${where})::float8 / nullif(sum(r.n), 0), 0)`, empty: 0 }),
  avg: (sum: string, count: string): MeasureDef => ({ sql: `sum(r.${sum})::numeric / nullif(sum(r.${count}), 0)`, empty: null }),
  value: (sql: string): MeasureDef => ({ sql, empty: null }),
  percentile: (p: number, sum: string, count: string): MeasureDef => ({
    sql: `hookyard_weighted_percentile(${p}, array_agg(r.${sum}::float8 / r.${count}) FILTER (WHERE r.${count} > 0), array_agg(r.${count}::bigint) FILTER (WHERE r.${count} > 0))`,
    empty: null,
  }),
};

/**
 * A per-minute rollup table of one base table (lib/metrics/rollup.ts keeps it; migration
 * 20261124173000_metrics_rollups). Its rows are `(team_id, minute, ...keys, ...sums)`: for each team and
 * minute (`date_bin('1 minute', time)`), one row per distinct key, with aggregated columns. A statement
 * changing base rows marks their (team, minute) dirty in `metrics_dirty` under `source` (a trigger); a
 * minute without a mark is exact in the rollup. Queries read the rollup for the clean whole minutes of the
 * range and the base rows (one "live row" each: exact time, `n` = 1) for the rest.
 */
export type RollupStore = {
  table: string;
  /** The `metrics_dirty.source` of the base table. */
  source: string;
  /** The base table with its alias, its team column and its time column (e.g. `attempts a`, `a.team_id`, `a.created_at`). */
  base: { from: string; team: string; time: string };
  /** Key columns: name → SQL over a base row, as stored in the rollup. */
  keys: Record<string, string>;
  /** Key columns whose live row value differs (exact instead of rounded): name → SQL over a base row. */
  liveKeys?: Record<string, string>;
  /** Aggregated columns: name → aggregate and the SQL of one base row's value (a live row's value). */
  sums: Record<string, { fn: "sum" | "min" | "max"; sql: string }>;
  /**
   * A second table of the same columns per hour (`minute` = the hour's start), the sum of its minutes'
   * rows, used for the clean whole hours of a range when the granularity is whole hours (or none).
   */
  hourly?: string;
  /**
   * state tables: the key column holding when a row stopped being counted, rounded UP to the minute (exact
   * in live rows), and the condition (over `r` and `b.at`) that a row is alive at the minute-aligned `b.at`.
   */
  state?: { until: string; alive: string };
};

/** What a rollup can answer for one endpoint: measures, dimensions and filters as SQL over its rows (alias `r`). */
export type RollupUse = {
  store: RollupStore;
  measures: Record<string, MeasureDef>;
  dimensions: Record<string, string>;
  filters: Record<string, string>;
};

/**
 * What an endpoint can be asked. `kind: "events"` aggregates the rows whose `time` falls in each
 * bucket. `kind: "state"` counts, at the end of each bucket (`b.at` in measure SQL), the rows alive
 * then: `time <= b.at` and (`until` is null or `until > b.at`) — pending events over time, queue depth.
 */
export type MetricsTable = {
  kind: "events" | "state";
  /** FROM clause with its alias. */
  from: string;
  /** The row's time column (events: when it happened; state: when it began). */
  time: string;
  /** state: when the row stopped being counted (null = still alive). */
  until?: string;
  /** state: how far before the range start a row may have begun and still be alive (ms, default 7 days), bounding the scan. */
  lookbackMs?: number;
  /** WHERE clauses scoping the rows (team, tenant), with `$1…` parameters given to runMetrics. */
  scope: string[];
  measures: Record<string, MeasureDef>;
  dimensions: Record<string, string>;
  filters: Record<string, string>;
  /** Rollups that can answer some queries faster (the first covering every measure, dimension and filter asked is used). */
  rollups?: RollupUse[];
};

export type MetricsRow = { time_bucket?: string; dimensions?: Record<string, string | number | boolean | null>; metrics: Record<string, number | null> };
export type MetricsResponse = {
  data: MetricsRow[];
  metadata: { granularity: string | null; query_time_ms: number; row_count: number; row_limit: number; truncated: boolean };
};

/**
 * A parameter of a metrics query is wrong: a 400 AppError whose `details.field` names it (`measures`,
 * `granularity`, `filters[status]`…); the gateway body shows `data: {field}` (docs/errors.md).
 */
export const metricsInvalid = (param: string, message: string) => new AppError("BAD_REQUEST", message, { field: param, input: { field: param } });

/** Most rows one answer holds; the rest is cut and `truncated` set. */
const ROW_LIMIT = 10_000;
/** Most time buckets one query may ask for. */
const MAX_BUCKETS = 10_000;
const UNIT_MS: Record<Exclude<GranularityUnit, "M">, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Buckets are aligned on this instant (a Monday, so weeks start on Mondays, UTC). */
const ORIGIN_MS = Date.UTC(2000, 0, 3);

/** Parses `\d+(s|m|h|d|w|M)` (1h, 15m, 1M…). Throws a 400 AppError (metricsInvalid, field "granularity"). */
export function parseGranularity(text: string): Granularity {
  const m = /^([1-9]\d{0,3})(s|m|h|d|w|M)$/.exec(text);
  if (!m) throw metricsInvalid("granularity", `granularity must be a number and a unit s, m, h, d, w or M (e.g. 1h, 15m), not "${text}"`);
  return { n: Number(m[1]), unit: m[2] as GranularityUnit, text };
}

/** The start of the bucket holding `t` (ms). */
function bucketStart(t: number, g: Granularity): number {
  if (g.unit === "M") {
    const d = new Date(t);
    const months = d.getUTCFullYear() * 12 + d.getUTCMonth();
    const first = months - (months % g.n);
    return Date.UTC(Math.floor(first / 12), first % 12, 1);
  }
  const size = g.n * UNIT_MS[g.unit];
  return ORIGIN_MS + Math.floor((t - ORIGIN_MS) / size) * size;
}

function nextBucket(t: number, g: Granularity): number {
  if (g.unit === "M") {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + g.n, 1);
  }
  return t + g.n * UNIT_MS[g.unit];
}

/** The bucket starts covering [start, end) (ms). Throws a 400 AppError (metricsInvalid) when there would be more than MAX_BUCKETS. */
function bucketsOf(start: Date, end: Date, g: Granularity): number[] {
  const out: number[] = [];
  for (let t = bucketStart(start.getTime(), g); t < end.getTime(); t = nextBucket(t, g)) {
    out.push(t);
    if (out.length > MAX_BUCKETS)
      throw metricsInvalid("granularity", `granularity ${g.text} makes more than ${MAX_BUCKETS} buckets in this range; choose a coarser one`);
  }
  return out;
}

/** SQL of the bucket start holding `col` (the JS bucketStart, in PostgreSQL). */
function bucketSql(col: string, g: Granularity): string {
  if (g.unit === "M") {
    const months = `(extract(year FROM ${col} AT TIME ZONE 'UTC')::int * 12 + extract(month FROM ${col} AT TIME ZONE 'UTC')::int - 1)`;
    return `(date_trunc('month', ${col} AT TIME ZONE 'UTC') - make_interval(months => ${months} % ${g.n})) AT TIME ZONE 'UTC'`;
  }
  return `date_bin('${g.n * UNIT_MS[g.unit]} milliseconds'::interval, ${col}, TIMESTAMPTZ '2000-01-03 00:00:00+00')`;
}

/**
 * Checks the request's names against the table: own properties only (Object.hasOwn), so a name such as
 * `__proto__`, `constructor` or `toString` is unknown like any other, never an inherited member turned
 * into SQL. Throws a 400 AppError (metricsInvalid) naming the first bad one.
 */
export function checkRequest(table: MetricsTable, req: MetricsRequest): void {
  if (!(req.start.getTime() < req.end.getTime())) throw metricsInvalid("date_range", "the range's end must be after its start");
  if (req.measures.length === 0) throw metricsInvalid("measures", `at least one measure is required: ${Object.keys(table.measures).join(", ")}`);
  for (const m of req.measures)
    if (!Object.hasOwn(table.measures, m))
      throw metricsInvalid("measures", `unknown measure "${m}"; this endpoint has ${Object.keys(table.measures).join(", ")}`);
  for (const d of req.dimensions)
    if (!Object.hasOwn(table.dimensions, d))
      throw metricsInvalid("dimensions", `unknown dimension "${d}"; this endpoint has ${Object.keys(table.dimensions).join(", ") || "none"}`);
  for (const f of Object.keys(req.filters))
    if (!Object.hasOwn(table.filters, f))
      throw metricsInvalid(`filters[${f}]`, `unknown filter "${f}"; this endpoint has ${Object.keys(table.filters).join(", ") || "none"}`);
}

const key = (dims: unknown[]) => JSON.stringify(dims);
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Rollup minutes are aligned like date_bin('1 minute', t, ORIGIN). */
export const MINUTE_SQL = (col: string) => `date_bin('1 minute', ${col}, TIMESTAMPTZ '2000-01-03 00:00:00+00')`;
/** Hourly rollup rows are aligned like date_bin('1 hour', t, ORIGIN) (UTC hours). */
export const HOUR_SQL = (col: string) => `date_bin('1 hour', ${col}, TIMESTAMPTZ '2000-01-03 00:00:00+00')`;
/** How far before the range start a state row may have begun, when the table does not say (ms). */
const DEFAULT_LOOKBACK_MS = 7 * 86_400_000;

/** The rollup that can answer `req` on `table`, or null (seconds granularity, a name it lacks, no whole minute in the range). */
function rollupFor(table: MetricsTable, req: MetricsRequest, measures: string[], dimensions: string[]): RollupUse | null {
  const g = req.granularity;
  if (g && g.unit === "s" && g.n % 60 !== 0) return null;
  return (
    table.rollups?.find(
      (r) =>
        measures.every((m) => Object.hasOwn(r.measures, m)) &&
        dimensions.every((d) => Object.hasOwn(r.dimensions, d)) &&
        Object.keys(req.filters).every((f) => Object.hasOwn(r.filters, f)),
    ) ?? null
  );
}

/**
 * The rows of `use.store` for team `$1` created in [lo, hi) as a derived table's SQL: rollup rows for the
 * whole minutes of the range that no dirty mark (and, for states read at an instant `ambiguousAt` that is
 * not a whole minute, no row ending in that minute) forbids; live rows of the base table for the rest.
 * `still` (state tables): only rows whose end is after it. Null when the range holds no whole minute.
 */
function rollupRowsSql(
  use: RollupUse,
  lo: number,
  hi: number,
  still: string | null,
  ambiguousAt: number | null,
  hours: boolean,
  add: (v: unknown) => string,
): string | null {
  const { store } = use;
  const fullLo = Math.ceil(lo / MINUTE_MS) * MINUTE_MS;
  const fullHi = Math.floor(hi / MINUTE_MS) * MINUTE_MS;
  if (fullLo >= fullHi) return null;
  const [pLo, pHi, pFullLo, pFullHi] = [lo, hi, fullLo, fullHi].map((t) => `${add(new Date(t))}::timestamptz`);
  const cols = ["minute", ...Object.keys(store.keys), ...Object.keys(store.sums)];
  const live = [
    `${store.base.time} AS minute`,
    ...Object.entries(store.keys).map(([k, sql]) => `${store.liveKeys?.[k] ?? sql} AS ${k}`),
    ...Object.entries(store.sums).map(([k, s]) => `${s.sql} AS ${k}`),
  ].join(", ");
  const until = store.state?.until;
  const rollupStill = still && until ? ` AND (r.${until} IS NULL OR r.${until} > ${still})` : "";
  const baseStill =
    still && until ? ` AND (${store.liveKeys?.[until] ?? store.keys[until]} IS NULL OR ${store.liveKeys?.[until] ?? store.keys[until]} > ${still})` : "";
  const ambiguous =
    ambiguousAt !== null && until && ambiguousAt % MINUTE_MS !== 0
      ? ` UNION SELECT r.minute FROM ${store.table} r WHERE r.team_id = $1 AND r.minute >= ${pFullLo} AND r.minute < ${pFullHi} AND r.${until} = ${add(new Date(Math.ceil(ambiguousAt / MINUTE_MS) * MINUTE_MS))}::timestamptz`
      : "";
  const where = `${store.base.team} = $1`;
  const hourLo = Math.ceil(fullLo / HOUR_MS) * HOUR_MS;
  const hourHi = Math.floor(fullHi / HOUR_MS) * HOUR_MS;
  const useHours = hours && store.hourly && hourLo < hourHi;
  const colList = cols.map((c) => `r.${c}`).join(", ");
  let rolled = `SELECT ${colList} FROM ${store.table} r
       WHERE r.team_id = $1 AND r.minute >= ${pFullLo} AND r.minute < ${pFullHi} AND r.minute NOT IN (SELECT minute FROM base_minutes)${rollupStill}`;
  if (useHours) {
    // Clean whole hours from the hourly table; the other clean minutes from the minute table.
    const [pHourLo, pHourHi] = [hourLo, hourHi].map((t) => `${add(new Date(t))}::timestamptz`);
    // (three index ranges of the minute table: before the first whole hour, after the last, in dirty hours)
    const minutes = (from: string, to: string) =>
      `SELECT ${colList} FROM ${store.table} r WHERE r.team_id = $1 AND r.minute >= ${from} AND r.minute < ${to} AND r.minute NOT IN (SELECT minute FROM base_minutes)${rollupStill}`;
    rolled = `SELECT ${colList} FROM ${store.hourly} r
       WHERE r.team_id = $1 AND r.minute >= ${pHourLo} AND r.minute < ${pHourHi} AND r.minute NOT IN (SELECT hour FROM base_hours)${rollupStill}
      UNION ALL ${minutes(pFullLo, pHourLo)}
      UNION ALL ${minutes(pHourHi, pFullHi)}
      UNION ALL SELECT r.* FROM base_hours h CROSS JOIN LATERAL (${minutes("h.hour", "h.hour + interval '1 hour'")} OFFSET 0) AS r
       WHERE h.hour >= ${pHourLo} AND h.hour < ${pHourHi}`;
  }
  return `(WITH base_minutes AS (
        SELECT DISTINCT d.minute FROM metrics_dirty d WHERE d.source = ${add(store.source)} AND d.team_id = $1 AND d.minute >= ${pFullLo} AND d.minute < ${pFullHi}${ambiguous}),
      base_hours AS (SELECT DISTINCT ${HOUR_SQL("minute")} AS hour FROM base_minutes)
      ${rolled}
      UNION ALL
      SELECT ${live} FROM ${store.base.from} WHERE ${where} AND ${store.base.time} >= ${pLo} AND ${store.base.time} < ${pFullLo}${baseStill}
      UNION ALL
      SELECT ${live} FROM ${store.base.from} WHERE ${where} AND ${store.base.time} >= ${pFullHi} AND ${store.base.time} < ${pHi}${baseStill}
      UNION ALL
      SELECT ${live} FROM base_minutes m CROSS JOIN LATERAL (${baseMinuteSql(store, "m.minute")}) AS ${baseAlias(store)} WHERE true${baseStill})`;
}

/** The alias of a rollup's base table (`attempts a` → `a`). */
export const baseAlias = (store: RollupStore) => store.base.from.split(/\s+/).at(-1)!;

/**
 * The base rows of team `$1`… of one minute starting at `minute` (SQL), as a LATERAL subquery: OFFSET 0
 * keeps the planner from flattening it into a join over the whole table, so each minute is an index range.
 */
export function baseMinuteSql(store: RollupStore, minute: string, team = "$1"): string {
  return `SELECT ${baseAlias(store)}.* FROM ${store.base.from} WHERE ${store.base.team} = ${team} AND ${store.base.time} >= ${minute} AND ${store.base.time} < ${minute} + interval '1 minute' OFFSET 0`;
}

/**
 * Runs `req` against `table` with the scope parameters `params` ($1…). Throws a 400 AppError (metricsInvalid) for a bad
 * request (checkRequest, too many buckets) and database errors.
 */
export async function runMetrics(
  db: Pick<pg.Pool, "query">,
  table: MetricsTable,
  params: unknown[],
  req: MetricsRequest,
  options: { rollups?: boolean } = {},
): Promise<MetricsResponse> {
  const began = performance.now();
  checkRequest(table, req);
  const measures = [...new Set(req.measures)];
  const dimensions = [...new Set(req.dimensions)];
  const buckets = req.granularity ? bucketsOf(req.start, req.end, req.granularity) : null;
  const p = [...params];
  const add = (v: unknown) => (p.push(v), `$${p.length}`);
  const use = options.rollups === false ? null : rollupFor(table, req, measures, dimensions);
  const plainParams = p.length;
  const rollupSql = use ? runRollup(table, use, req, buckets, measures, dimensions, add) : null;
  if (!rollupSql) p.length = plainParams;
  const sql = rollupSql ?? plainSql(table, req, buckets, measures, dimensions, add);
  const { rows } = await db.query<Record<string, unknown>>(sql, p);
  return shape(req, table, measures, dimensions, buckets, rows, began);
}

/** The plain aggregate over the base table (columns b, d0…, m0…). */
function plainSql(
  table: MetricsTable,
  req: MetricsRequest,
  buckets: number[] | null,
  measures: string[],
  dimensions: string[],
  add: (v: unknown) => string,
): string {
  const where = [...table.scope];
  for (const [name, values] of Object.entries(req.filters)) where.push(`(${table.filters[name]})::text = ANY(${add(values)}::text[])`);
  const dimSql = dimensions.map((d, i) => `${table.dimensions[d]} AS d${i}`);
  const measureSql = measures.map((m, i) => `(${table.measures[m].sql})::float8 AS m${i}`);
  const groupDims = dimensions.map((_, i) => `d${i}`);
  if (table.kind === "events") {
    const start = add(req.start);
    const end = add(req.end);
    where.push(`${table.time} >= ${start}`, `${table.time} < ${end}`);
    const bucket = req.granularity ? `${bucketSql(table.time, req.granularity)} AS b` : "NULL::timestamptz AS b";
    return `SELECT ${[bucket, ...dimSql, ...measureSql].join(", ")} FROM ${table.from} WHERE ${where.join(" AND ")}
           GROUP BY ${["b", ...groupDims].join(", ")} ORDER BY ${["b", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
  } else {
    const ats = stateInstants(req, buckets);
    const atList = add(ats);
    const bucketList = add((buckets ?? [null]).map((b) => (b === null ? null : new Date(b))));
    const lowest = add(req.start);
    const highest = add(req.end);
    where.push(
      `${table.time} < ${highest}`,
      `${table.time} >= ${add(new Date(req.start.getTime() - (table.lookbackMs ?? DEFAULT_LOOKBACK_MS)))}::timestamptz`,
      `(${table.until} IS NULL OR ${table.until} > ${lowest})`,
    );
    return `SELECT ${["b.start AS b", ...dimSql, ...measureSql].join(", ")}
             FROM unnest(${atList}::timestamptz[], ${bucketList}::timestamptz[]) AS b(at, start)
             JOIN (SELECT * FROM ${table.from} WHERE ${where.join(" AND ")}) AS ${table.from.split(/\s+/).at(-1)}
               ON ${table.time} <= b.at AND (${table.until} IS NULL OR ${table.until} > b.at)
            GROUP BY ${["b.start", ...groupDims].join(", ")} ORDER BY ${["b.start", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
  }
}

/** The instants at which a state is read: each bucket's end (capped at the range end), or the range end. */
function stateInstants(req: MetricsRequest, buckets: number[] | null): Date[] {
  return (buckets ?? [req.start.getTime()]).map(
    (b, i, all) => new Date(Math.min(req.end.getTime(), buckets ? (all[i + 1] ?? nextBucket(b, req.granularity!)) : req.end.getTime())),
  );
}

/** The SQL answering `req` from `use` (same columns as the plain query: b, d0…, m0…), or null when the range holds no whole minute. */
function runRollup(
  table: MetricsTable,
  use: RollupUse,
  req: MetricsRequest,
  buckets: number[] | null,
  measures: string[],
  dimensions: string[],
  add: (v: unknown) => string,
): string | null {
  const filters = Object.entries(req.filters).map(([name, values]) => `(${use.filters[name]})::text = ANY(${add(values)}::text[])`);
  const dimSql = dimensions.map((d, i) => `${use.dimensions[d]} AS d${i}`);
  const measureSql = measures.map((m, i) => `(${use.measures[m].sql})::float8 AS m${i}`);
  const groupDims = dimensions.map((_, i) => `d${i}`);
  const filterSql = filters.length ? `WHERE ${filters.join(" AND ")}` : "";
  if (table.kind === "events") {
    const g = req.granularity;
    const wholeHours = !g || g.unit === "h" || g.unit === "d" || g.unit === "w" || g.unit === "M" || (g.unit === "m" && g.n % 60 === 0);
    const rows = rollupRowsSql(use, req.start.getTime(), req.end.getTime(), null, null, wholeHours, add);
    if (!rows) return null;
    const bucket = req.granularity ? `${bucketSql("r.minute", req.granularity)} AS b` : "NULL::timestamptz AS b";
    return `SELECT ${[bucket, ...dimSql, ...measureSql].join(", ")} FROM ${rows} AS r ${filterSql}
             GROUP BY ${["b", ...groupDims].join(", ")} ORDER BY ${["b", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
  }
  const state = use.store.state;
  if (!state) return null;
  const ats = stateInstants(req, buckets);
  const lookback = table.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const still = `${add(req.start)}::timestamptz`;
  const rows = rollupRowsSql(use, req.start.getTime() - lookback, req.end.getTime(), still, req.end.getTime(), false, add);
  if (!rows) return null;
  const atList = add(ats);
  const bucketList = add((buckets ?? [null]).map((b) => (b === null ? null : new Date(b))));
  return `SELECT ${["b.start AS b", ...dimSql, ...measureSql].join(", ")}
            FROM unnest(${atList}::timestamptz[], ${bucketList}::timestamptz[]) AS b(at, start)
            JOIN (SELECT * FROM ${rows} AS r ${filterSql}) AS r ON ${state.alive}
           GROUP BY ${["b.start", ...groupDims].join(", ")} ORDER BY ${["b.start", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
}

/** The MetricsResponse of the query's rows (b, d0…, m0…): every bucket present, empty ones with their empty values. */
function shape(
  req: MetricsRequest,
  table: MetricsTable,
  measures: string[],
  dimensions: string[],
  buckets: number[] | null,
  rows: Record<string, unknown>[],
  began: number,
): MetricsResponse {
  const truncated = rows.length > ROW_LIMIT;
  const found = rows.slice(0, ROW_LIMIT);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const metricsOf = (row: Record<string, unknown> | undefined) =>
    Object.fromEntries(measures.map((m, i) => [m, row ? num(row[`m${i}`]) : table.measures[m].empty]));
  const dimsOf = (row: Record<string, unknown>) => dimensions.map((_, i) => row[`d${i}`] as string | number | boolean | null);
  const toRow = (bucket: number | null, dims: unknown[], row: Record<string, unknown> | undefined): MetricsRow => ({
    ...(bucket !== null ? { time_bucket: new Date(bucket).toISOString() } : {}),
    ...(dimensions.length ? { dimensions: Object.fromEntries(dimensions.map((d, i) => [d, dims[i] as string | number | boolean | null])) } : {}),
    metrics: metricsOf(row),
  });
  let data: MetricsRow[];
  if (dimensions.length === 0) {
    // One row per bucket (or one row), empty ones included.
    const byBucket = new Map(found.map((r) => [r.b instanceof Date ? r.b.getTime() : null, r]));
    data = (buckets ?? [null]).map((b) => toRow(b, [], byBucket.get(b)));
  } else {
    // Every combination of dimension values seen gets every bucket.
    const combos = new Map<string, unknown[]>();
    const byKey = new Map<string, Record<string, unknown>>();
    for (const r of found) {
      const dims = dimsOf(r);
      combos.set(key(dims), dims);
      byKey.set(key([r.b instanceof Date ? r.b.getTime() : null, ...dims]), r);
    }
    data = [];
    for (const b of buckets ?? [null]) for (const dims of combos.values()) data.push(toRow(b, dims, byKey.get(key([b, ...dims]))));
    data = data.slice(0, ROW_LIMIT);
  }
  return {
    data,
    metadata: {
      granularity: req.granularity?.text ?? null,
      query_time_ms: Math.round(performance.now() - began),
      row_count: data.length,
      row_limit: ROW_LIMIT,
      truncated,
    },
  };
}
