/**
 * Keyset paging for every gateway list (docs/gateway-api.md#lists-and-paging): `order_by` (default
 * `created_at`, allowed keys per resource), `dir` (default `desc`), `limit` (default 100, max 250),
 * `next` / `prev` cursors. A cursor is opaque (lib/http/cursor.ts: base64url JSON `{o, d, v, i}` of the
 * order it belongs to and the sort value and id of the row it continues from); `order_by`/`dir` must be
 * repeated with it when they differ from the defaults. Response: `{pagination: {order_by, dir, limit, next?, prev?}, count, models}`.
 */
import type pg from "pg";
import { badRequest } from "@/lib/http/errors";
import { cursorDate, cursorText, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import type { ParsedQuery } from "@/lib/http/query";

export type PageRequest = {
  orderBy: string;
  dir: "asc" | "desc";
  limit: number;
  cursor?: { direction: "next" | "prev"; value: string; id: string };
};

export type Page<T> = {
  pagination: { order_by: string; dir: "asc" | "desc"; limit: number; next?: string; prev?: string };
  count: number;
  models: T[];
};

type CursorPayload = { o: string; d: "asc" | "desc"; v: string; i: string };

/** The payload of cursor `raw` (lib/http/cursor.ts). Throws 400 "Invalid cursor" for anything else. */
function decodePageCursor(raw: string): CursorPayload {
  const p = decodeCursor(raw);
  if (p && typeof p.o === "string" && (p.d === "asc" || p.d === "desc") && cursorText(p.v) && cursorText(p.i)) return p as CursorPayload;
  throw badRequest("Invalid cursor", { cursor: raw });
}

const single = (query: ParsedQuery, name: string): string | undefined => {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw badRequest(`"${name}" must be a single value`, { [name]: v });
  return v;
};

/** Reads and validates the paging parameters. Throws 400 for unknown sort keys, bad limits and bad cursors. */
export function parsePaging(query: ParsedQuery, allowedOrderBy: readonly string[], defaultOrderBy = "created_at"): PageRequest {
  const orderBy = single(query, "order_by") ?? defaultOrderBy;
  if (!allowedOrderBy.includes(orderBy)) throw badRequest(`"order_by" must be one of ${allowedOrderBy.join(", ")}`, { order_by: orderBy });
  const dir = single(query, "dir") ?? "desc";
  if (dir !== "asc" && dir !== "desc") throw badRequest(`"dir" must be asc or desc`, { dir });
  const rawLimit = single(query, "limit");
  // `limit=` with no value means the default, not 0.
  const limit = rawLimit === undefined || rawLimit.trim() === "" ? 100 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 0 || limit > 250) throw badRequest(`"limit" must be an integer from 0 to 250`, { limit: rawLimit });
  const next = single(query, "next");
  const prev = single(query, "prev");
  if (next && prev) throw badRequest(`Give "next" or "prev", not both`);
  const raw = next ?? prev;
  if (!raw) return { orderBy, dir, limit };
  const c = decodePageCursor(raw);
  if (c.o !== orderBy || c.d !== dir) {
    throw badRequest(`This cursor belongs to order_by=${c.o}&dir=${c.d}; repeat them with it`, { order_by: orderBy, dir });
  }
  return { orderBy, dir, limit, cursor: { direction: next ? "next" : "prev", value: c.v, id: c.i } };
}

/**
 * Runs a keyset-paged SELECT. `from` is the FROM/JOIN clause, `where` the filters (with `params`),
 * `columns` maps each allowed order key to its SQL column (its table's `id` is the tie-breaker,
 * `idColumn`). Rows are turned into models by `toModel`.
 */
export async function selectPage<R extends Record<string, unknown>, T>(opts: {
  db: pg.Pool | pg.PoolClient;
  select: string;
  from: string;
  where: string[];
  params: unknown[];
  page: PageRequest;
  columns: Record<string, { sql: string; type: "date" | "text" }>;
  idColumn: string;
  toModel: (row: R) => T;
}): Promise<Page<T>> {
  const { page } = opts;
  const column = opts.columns[page.orderBy];
  const params = [...opts.params];
  const where = [...opts.where];
  const backwards = page.cursor?.direction === "prev";
  // Scan direction: the page's order, or its reverse when going back.
  const scanAsc = (page.dir === "asc") !== backwards;
  if (page.cursor) {
    const value = column.type === "date" ? cursorDate(page.cursor.value) : page.cursor.value;
    // A forged cursor's date must be one PostgreSQL takes.
    if (value === null) throw badRequest("Invalid cursor");
    params.push(value, page.cursor.id);
    where.push(`(${column.sql}, ${opts.idColumn}) ${scanAsc ? ">" : "<"} ($${params.length - 1}, $${params.length})`);
  }
  const order = scanAsc ? "ASC" : "DESC";
  params.push(page.limit + 1);
  const sql = `SELECT ${opts.select}, ${column.sql} AS __sort, ${opts.idColumn} AS __id FROM ${opts.from}
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY ${column.sql} ${order}, ${opts.idColumn} ${order} LIMIT $${params.length}`;
  const { rows } = await opts.db.query<R & { __sort: Date | string; __id: string }>(sql, params);
  const more = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  const cursorOf = (row: { __sort: Date | string; __id: string }) =>
    encodeCursor({ o: page.orderBy, d: page.dir, v: row.__sort instanceof Date ? row.__sort.toISOString() : String(row.__sort), i: row.__id });
  const first = pageRows[0];
  const last = pageRows[pageRows.length - 1];
  const hasNext = backwards ? Boolean(page.cursor) : more;
  const hasPrev = backwards ? more : Boolean(page.cursor);
  return {
    pagination: {
      order_by: page.orderBy,
      dir: page.dir,
      limit: page.limit,
      ...(hasNext && last ? { next: cursorOf(last) } : {}),
      ...(hasPrev && first ? { prev: cursorOf(first) } : {}),
    },
    count: pageRows.length,
    models: pageRows.map((r) => {
      const { __sort: _s, __id: _i, ...rest } = r;
      return opts.toModel(rest as unknown as R);
    }),
  };
}
