/**
 * `GET /metrics/{name}` (2025-07-01; docs/gateway-api.md#metrics-2025-07-01): the real
 * product's query form — `date_range[start]`, `date_range[end]` (required), `granularity`
 * (`\d+(s|m|h|d|w|M)`), `measures[]` (required), `dimensions[]`, `filters[name]` — run by the shared
 * builder (lib/metrics/query.ts) over the team's data. A bad parameter is a 400 naming it.
 */
import { getPool } from "@/lib/db/pool";
import { GATEWAY_METRICS } from "@/lib/gateway/metrics/tables";
import { AppError, badRequest } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/gateway/http";
import { type ParsedQuery, parseDate, type QueryValue } from "@/lib/http/query";
import { type MetricsRequest, parseGranularity, runMetrics } from "@/lib/metrics/query";

/** Longest range one query may cover, ms (a year and a day). */
const MAX_RANGE_MS = 366 * 86_400_000;

/** A list parameter given as `x=a`, `x[]=a&x[]=b`, `x[0]=a` or `x=a,b`. Throws 400 for anything else. */
function list(name: string, value: QueryValue | undefined): string[] {
  if (value === undefined) return [];
  const values =
    typeof value === "string"
      ? value.split(",")
      : Array.isArray(value)
        ? value
        : Object.keys(value).length === 1 && Array.isArray(value[""])
          ? value[""]
          : null;
  if (!values || values.some((v) => typeof v !== "string" || v === "")) throw badRequest(`"${name}" must be a list of names`, { field: name });
  return values as string[];
}

/** The MetricsRequest of a gateway metrics query string. Throws 400 naming the parameter. */
function parseGatewayMetricsQuery(query: ParsedQuery): MetricsRequest {
  const range = query.date_range;
  if (!range || typeof range !== "object" || Array.isArray(range))
    throw badRequest('"date_range[start]" and "date_range[end]" are required', { field: "date_range" });
  const bound = (k: "start" | "end") => {
    const v = (range as Record<string, QueryValue>)[k];
    if (typeof v !== "string") throw badRequest(`"date_range[${k}]" is required: an ISO date or date-time`, { field: `date_range[${k}]` });
    try {
      return parseDate(`date_range[${k}]`, v);
    } catch {
      throw badRequest(`"date_range[${k}]" must be an ISO date (2026-01-31) or date-time (2026-01-31T12:00:00Z)`, { field: `date_range[${k}]` });
    }
  };
  const start = bound("start");
  const end = bound("end");
  if (end.getTime() - start.getTime() > MAX_RANGE_MS) throw badRequest("The range may cover at most 366 days", { field: "date_range" });
  const g = query.granularity;
  if (g !== undefined && typeof g !== "string") throw badRequest('"granularity" must be one value such as 1h', { field: "granularity" });
  const filters: Record<string, string[]> = {};
  const f = query.filters;
  if (f !== undefined) {
    if (typeof f !== "object" || Array.isArray(f)) throw badRequest('"filters" takes filters[name]=value', { field: "filters" });
    for (const [name, value] of Object.entries(f)) filters[name] = list(`filters[${name}]`, value);
  }
  return {
    start,
    end,
    granularity: g ? parseGranularity(g) : null,
    measures: list("measures", query.measures),
    dimensions: list("dimensions", query.dimensions),
    filters,
  };
}

// GET /metrics/{requests|events|attempts|events-by-issue|queue-depth|transformations|events-pending-timeseries}
export const metricsRoute = gatewayRoute<undefined, { name: string }>({ since: "2025-07-01" }, async ({ teamId, params, query }) => {
  const table = Object.hasOwn(GATEWAY_METRICS, params.name) ? GATEWAY_METRICS[params.name] : undefined;
  if (!table) throw new AppError("NOT_FOUND", `No metrics at /metrics/${params.name}`);
  const req = parseGatewayMetricsQuery(query);
  return { body: await runMetrics(getPool(), table, [teamId], req) };
});
