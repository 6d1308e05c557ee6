import { bodyPreview, PREVIEW_BODY_BYTES } from "@/lib/http/body-preview";
import { requireConsoleSource } from "@/lib/console/console-source";
import type { TCapturedRequest, TSourcePreview } from "@/lib/console/schemas";
import { storableText } from "@/lib/ingest/storable";
import { ingestUrlFor } from "@/lib/urls";
import { getPool } from "@/lib/db/pool";
import { AppError } from "@/lib/http/errors";

/** Requests listed in a preview (and in each older page). */
const PREVIEW_REQUESTS = 100;
/** Longest search text of `GET /{id}?q=`, characters. */
export const SEARCH_MAX_LENGTH = 200;

type Row = {
  id: string;
  verified: boolean;
  rejection_cause: string | null;
  ingested_at: Date;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  body_size: number;
  content_type: string | null;
};

/** Which of a source's requests a preview lists (docs/console-api.md "Source preview"). */
export type PreviewFilter = {
  /** Only requests older than this request of the source (the last id of the previous page). */
  before?: string;
  /** Only requests whose method, path, query, header names or values, or body contain this text. */
  q?: string;
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The captured requests of source `sourceId` matching `where` (SQL over `r` requests and `d` request_raw_data,
 * its parameters from $2 on in `args`), in the preview's shape, newest first, at most `limit`.
 */
async function capturedRequests(sourceId: string, where: string, args: unknown[], limit: number): Promise<TCapturedRequest[]> {
  const { rows } = await getPool().query<Row>(
    `SELECT r.id, r.verified, r.rejection_cause, r.ingested_at, d.method, d.path, d.query, d.headers,
            substring(d.body from 1 for ${PREVIEW_BODY_BYTES + 1}) AS body, d.body_size, d.content_type
       FROM requests r JOIN request_raw_data d ON d.request_id = r.id
      WHERE r.source_id = $1 ${where}
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT ${Math.trunc(limit)}`,
    [sourceId, ...args],
  );
  return rows.map((r) => ({
    id: r.id,
    verb: r.method,
    received_at: r.ingested_at.toISOString(),
    path: r.path,
    query: r.query,
    headers: r.headers,
    ...bodyPreview(r.body, r.body_size),
    body_size: r.body_size,
    content_type: r.content_type,
    verified: r.verified,
    rejection_cause: r.rejection_cause,
  }));
}

/** SQL conditions (over `r` and `d`, parameters from $2) and their arguments for `filter`. Throws AppError VALIDATION for a bad filter. */
function filterSql(publicId: string, filter: PreviewFilter): { where: string; args: unknown[] } {
  const conditions: string[] = [];
  const args: unknown[] = [];
  if (filter.before !== undefined) {
    args.push(filter.before);
    // A cursor of another source, or none at all, matches no row: an empty page, never someone else's requests.
    conditions.push(`(r.created_at, r.id) < (SELECT b.created_at, b.id FROM requests b WHERE b.id = $${args.length + 1} AND b.source_id = $1)`);
  }
  if (filter.q !== undefined) {
    const q = filter.q;
    if (q.length === 0 || q.length > SEARCH_MAX_LENGTH)
      throw new AppError("VALIDATION", "Invalid search", {
        messages: [`q: the search text must be 1-${SEARCH_MAX_LENGTH} characters (test URL "${publicId}")`],
      });
    args.push(`%${escapeLike(storableText(q))}%`, Buffer.from(q, "utf8"));
    const [text, bytes] = [`$${args.length}`, `$${args.length + 1}`];
    // Text fields case-insensitively; the body (bytea) byte for byte, as sent.
    conditions.push(
      `(d.method ILIKE ${text} OR d.path ILIKE ${text} OR d.query ILIKE ${text} OR d.headers::text ILIKE ${text} OR position(${bytes}::bytea in d.body) > 0)`,
    );
  }
  return { where: conditions.map((c) => `AND ${c}`).join(" "), args };
}

/**
 * The source preview of `GET /{id}` (docs/console-api.md#source-preview-get-id-accept-applicationjson): the source and its
 * newest requests first (at most 100); `filter` pages past them (`before`) and searches them (`q`). `publicId` is the id without `src_`.
 * Throws AppError NOT_FOUND when no test URL has that id: unknown, or a gateway team's source (the console serves test URLs only);
 * AppError VALIDATION for a search text that is empty or longer than {@link SEARCH_MAX_LENGTH}.
 */
export async function getSourcePreview(publicId: string, filter: PreviewFilter = {}, limit = PREVIEW_REQUESTS): Promise<TSourcePreview & { team_id: string }> {
  const source = await requireConsoleSource(publicId);
  const { where, args } = filterSql(publicId, filter);
  return {
    id: source.id,
    team_id: source.team_id,
    ingest_url: ingestUrlFor(source.id),
    type: source.type,
    name: source.name,
    requests: await capturedRequests(source.id, where, args, limit),
  };
}

/**
 * The requests `requestIds` of source `sourceId` (its full id) in the preview's shape, oldest first (the order
 * a live view adds them in); ids of other sources or of no request are left out.
 */
export async function capturedRequestsByIds(sourceId: string, requestIds: readonly string[]): Promise<TCapturedRequest[]> {
  if (requestIds.length === 0) return [];
  return (await capturedRequests(sourceId, "AND r.id = ANY($2::text[])", [requestIds], requestIds.length)).reverse();
}

/**
 * The exact stored body of request `requestId` of test URL `publicId`, for download.
 * Throws AppError NOT_FOUND when either is unknown, they do not belong together, or `publicId` is a
 * gateway team's source (the console serves test URLs only).
 */
export async function getRawBody(publicId: string, requestId: string): Promise<{ body: Buffer; contentType: string | null }> {
  const source = await requireConsoleSource(publicId);
  const { rows } = await getPool().query<{ body: Buffer | null; content_type: string | null }>(
    `SELECT d.body, d.content_type FROM requests r JOIN request_raw_data d ON d.request_id = r.id
      WHERE r.id = $1 AND r.source_id = $2`,
    [requestId, source.id],
  );
  if (!rows[0]) throw new AppError("NOT_FOUND", "No such request", { messages: [`No request "${requestId}" on test URL "${publicId}"`] });
  return { body: rows[0].body ?? Buffer.alloc(0), contentType: rows[0].content_type };
}
