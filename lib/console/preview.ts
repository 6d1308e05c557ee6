import { bodyPreview, PREVIEW_BODY_BYTES } from "@/lib/http/body-preview";
import { requireConsoleSource } from "@/lib/console/console-source";
import type { TSourcePreview } from "@/lib/console/schemas";
import { ingestUrlFor } from "@/lib/urls";
import { getPool } from "@/lib/db/pool";
import { AppError } from "@/lib/http/errors";

/** Requests listed in a preview. */
const PREVIEW_REQUESTS = 100;

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

/**
 * The source preview of `GET /{id}` (docs/console-api.md#source-preview-get-id-accept-applicationjson): the source and its
 * newest requests first. `publicId` is the id without `src_`.
 * Throws AppError NOT_FOUND when no test URL has that id: unknown, or a gateway team's source (the console serves test URLs only).
 */
export async function getSourcePreview(publicId: string, limit = PREVIEW_REQUESTS): Promise<TSourcePreview & { team_id: string }> {
  const source = await requireConsoleSource(publicId);
  const pool = getPool();
  const { rows } = await pool.query<Row>(
    `SELECT r.id, r.verified, r.rejection_cause, r.ingested_at, d.method, d.path, d.query, d.headers,
            substring(d.body from 1 for ${PREVIEW_BODY_BYTES + 1}) AS body, d.body_size, d.content_type
       FROM requests r JOIN request_raw_data d ON d.request_id = r.id
      WHERE r.source_id = $1
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT $2`,
    [source.id, limit],
  );
  return {
    id: source.id,
    team_id: source.team_id,
    ingest_url: ingestUrlFor(source.id),
    type: source.type,
    name: source.name,
    requests: rows.map((r) => ({
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
    })),
  };
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
