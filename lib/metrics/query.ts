/**
 * One metrics query builder for every metrics endpoint (design "Gateway bulk operations and metrics":
 * "one query builder for every metrics endpoint of both services"; issue 12 §2, issue 13 §4). A
 * metrics table describes what can be asked (measures as SQL aggregates, dimensions and filters as SQL
 * expressions over indexed columns, never bodies); a request says what is asked (time range, optional
 * granularity, measures, dimensions, filters). The answer is the real products' MetricsResponse:
 * `{data: [{time_bucket?, dimensions?, metrics}], metadata: {granularity, query_time_ms, row_count,
 * row_limit, truncated}}`, with every bucket of the range present (zero counts, null latencies).
 * Each surface parses its own query form into a MetricsRequest (lib/gateway/metrics/parse.ts) and maps
 * MetricsError to its error body.
 */
import type pg from "pg";

export type GranularityUnit = "s" | "m" | "h" | "d" | "w" | "M";
export type Granularity = { n: number; unit: GranularityUnit; text: string };

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
export type MeasureDef = { sql: string; empty: 0 | null };

/** Measure builders: rows (matching `where`), their share of all rows, an average or percentile (null when empty). */
export const measure = {
  count: (where?: string): MeasureDef => ({ sql: where ? `count(*) FILTER (WHERE ${where})` : "count(*)", empty: 0 }),
  share: (where: string): MeasureDef => ({ sql: `coalesce(count(*) FILTER (WHERE ${where})::float8 / nullif(count(*), 0), 0)`, empty: 0 }),
  distinct: (sql: string): MeasureDef => ({ sql: `count(DISTINCT ${sql})`, empty: 0 }),
  value: (sql: string): MeasureDef => ({ sql, empty: null }),
  percentile: (p: number, col: string): MeasureDef => ({ sql: `percentile_cont(${p}) WITHIN GROUP (ORDER BY ${col})`, empty: null }),
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
  /** state: how far before the range start a row may have begun and still be alive (SQL interval), bounding the scan. */
  lookback?: string;
  /** WHERE clauses scoping the rows (team, tenant), with `$1…` parameters given to runMetrics. */
  scope: string[];
  measures: Record<string, MeasureDef>;
  dimensions: Record<string, string>;
  filters: Record<string, string>;
};

export type MetricsRow = { time_bucket?: string; dimensions?: Record<string, string | number | boolean | null>; metrics: Record<string, number | null> };
export type MetricsResponse = {
  data: MetricsRow[];
  metadata: { granularity: string | null; query_time_ms: number; row_count: number; row_limit: number; truncated: boolean };
};

/** A parameter of a metrics query is wrong: `param` names it (`measures`, `granularity`, `filters[status]`…). */
export class MetricsError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** Most rows one answer holds; the rest is cut and `truncated` set. */
export const ROW_LIMIT = 10_000;
/** Most time buckets one query may ask for. */
export const MAX_BUCKETS = 10_000;
const UNIT_MS: Record<Exclude<GranularityUnit, "M">, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Buckets are aligned on this instant (a Monday, so weeks start on Mondays, UTC). */
const ORIGIN_MS = Date.UTC(2000, 0, 3);

/** Parses `\d+(s|m|h|d|w|M)` (1h, 15m, 1M…). Throws MetricsError("granularity"). */
export function parseGranularity(text: string): Granularity {
  const m = /^([1-9]\d{0,3})(s|m|h|d|w|M)$/.exec(text);
  if (!m) throw new MetricsError("granularity", `granularity must be a number and a unit s, m, h, d, w or M (e.g. 1h, 15m), not "${text}"`);
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

/** The bucket starts covering [start, end) (ms). Throws MetricsError when there would be more than MAX_BUCKETS. */
export function bucketsOf(start: Date, end: Date, g: Granularity): number[] {
  const out: number[] = [];
  for (let t = bucketStart(start.getTime(), g); t < end.getTime(); t = nextBucket(t, g)) {
    out.push(t);
    if (out.length > MAX_BUCKETS) throw new MetricsError("granularity", `granularity ${g.text} makes more than ${MAX_BUCKETS} buckets in this range; choose a coarser one`);
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

/** Checks the request's names against the table. Throws MetricsError naming the first bad one. */
export function checkRequest(table: MetricsTable, req: MetricsRequest): void {
  if (!(req.start.getTime() < req.end.getTime())) throw new MetricsError("date_range", "the range's end must be after its start");
  if (req.measures.length === 0) throw new MetricsError("measures", `at least one measure is required: ${Object.keys(table.measures).join(", ")}`);
  for (const m of req.measures) if (!(m in table.measures)) throw new MetricsError("measures", `unknown measure "${m}"; this endpoint has ${Object.keys(table.measures).join(", ")}`);
  for (const d of req.dimensions) if (!(d in table.dimensions)) throw new MetricsError("dimensions", `unknown dimension "${d}"; this endpoint has ${Object.keys(table.dimensions).join(", ") || "none"}`);
  for (const f of Object.keys(req.filters)) if (!(f in table.filters)) throw new MetricsError(`filters[${f}]`, `unknown filter "${f}"; this endpoint has ${Object.keys(table.filters).join(", ") || "none"}`);
}

const key = (dims: unknown[]) => JSON.stringify(dims);

/**
 * Runs `req` against `table` with the scope parameters `params` ($1…). Throws MetricsError for a bad
 * request (checkRequest, too many buckets) and database errors.
 */
export async function runMetrics(db: Pick<pg.Pool, "query">, table: MetricsTable, params: unknown[], req: MetricsRequest): Promise<MetricsResponse> {
  const began = performance.now();
  checkRequest(table, req);
  const measures = [...new Set(req.measures)];
  const dimensions = [...new Set(req.dimensions)];
  const buckets = req.granularity ? bucketsOf(req.start, req.end, req.granularity) : null;
  const p = [...params];
  const add = (v: unknown) => (p.push(v), `$${p.length}`);
  const where = [...table.scope];
  for (const [name, values] of Object.entries(req.filters)) where.push(`(${table.filters[name]})::text = ANY(${add(values)}::text[])`);
  const dimSql = dimensions.map((d, i) => `${table.dimensions[d]} AS d${i}`);
  const measureSql = measures.map((m, i) => `(${table.measures[m]!.sql})::float8 AS m${i}`);
  const groupDims = dimensions.map((_, i) => `d${i}`);
  let sql: string;
  if (table.kind === "events") {
    const start = add(req.start);
    const end = add(req.end);
    where.push(`${table.time} >= ${start}`, `${table.time} < ${end}`);
    const bucket = req.granularity ? `${bucketSql(table.time, req.granularity)} AS b` : "NULL::timestamptz AS b";
    sql = `SELECT ${[bucket, ...dimSql, ...measureSql].join(", ")} FROM ${table.from} WHERE ${where.join(" AND ")}
           GROUP BY ${["b", ...groupDims].join(", ")} ORDER BY ${["b", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
  } else {
    // The instants at which the state is read: each bucket's end (capped at the range end), or the range end.
    const ats = (buckets ?? [req.start.getTime()]).map((b, i, all) => new Date(Math.min(req.end.getTime(), buckets ? (all[i + 1] ?? nextBucket(b, req.granularity!)) : req.end.getTime())));
    const atList = add(ats);
    const bucketList = add((buckets ?? [null]).map((b) => (b === null ? null : new Date(b))));
    const lowest = add(req.start);
    const highest = add(req.end);
    where.push(`${table.time} < ${highest}`, `${table.time} >= ${lowest}::timestamptz - ${table.lookback ?? "interval '7 days'"}`, `(${table.until} IS NULL OR ${table.until} > ${lowest})`);
    sql = `SELECT ${["b.start AS b", ...dimSql, ...measureSql].join(", ")}
             FROM unnest(${atList}::timestamptz[], ${bucketList}::timestamptz[]) AS b(at, start)
             JOIN (SELECT * FROM ${table.from} WHERE ${where.join(" AND ")}) AS ${table.from.split(/\s+/).at(-1)}
               ON ${table.time} <= b.at AND (${table.until} IS NULL OR ${table.until} > b.at)
            GROUP BY ${["b.start", ...groupDims].join(", ")} ORDER BY ${["b.start", ...groupDims].join(", ")} LIMIT ${ROW_LIMIT + 1}`;
  }
  const { rows } = await db.query<Record<string, unknown>>(sql, p);
  const truncated = rows.length > ROW_LIMIT;
  const found = rows.slice(0, ROW_LIMIT);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const metricsOf = (row: Record<string, unknown> | undefined) => Object.fromEntries(measures.map((m, i) => [m, row ? num(row[`m${i}`]) : table.measures[m]!.empty]));
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
    metadata: { granularity: req.granularity?.text ?? null, query_time_ms: Math.round(performance.now() - began), row_count: data.length, row_limit: ROW_LIMIT, truncated },
  };
}
