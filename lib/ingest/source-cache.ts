import { getPool } from "@/lib/db/pool";

/** What ingestion needs to know about a source. */
export type IngestSource = {
  id: string;
  teamId: string;
  teamMode: "GUEST" | "TEAM";
  type: string;
  allowedMethods: string[];
  customResponse: { content_type: "json" | "text" | "xml"; body: string } | null;
  disabled: boolean;
  /** Active connections fed by this source; 0 gives NO_CONNECTION. */
  connectionCount: number;
};

/** How long a found source is reused without reading it again, ms. */
const TTL_MS = 1000;
const cache = new Map<string, { source: IngestSource; expiresAt: number }>();
const inFlight = new Map<string, Promise<IngestSource | null>>();

async function load(id: string): Promise<IngestSource | null> {
  const { rows } = await getPool().query<{
    id: string;
    team_id: string;
    mode: "GUEST" | "TEAM";
    type: string;
    config: { allowed_http_methods?: string[]; custom_response?: IngestSource["customResponse"] };
    disabled_at: Date | null;
  }>(
    `SELECT s.id, s.team_id, t.mode, s.type, s.config, s.disabled_at
       FROM sources s JOIN teams t ON t.id = s.team_id WHERE s.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    teamId: row.team_id,
    teamMode: row.mode,
    type: row.type,
    allowedMethods: row.config.allowed_http_methods ?? ["POST", "PUT", "PATCH", "DELETE"],
    customResponse: row.config.custom_response ?? null,
    disabled: row.disabled_at !== null,
    // Connections arrive with the gateway API (issue 3); until then no source has one.
    connectionCount: 0,
  };
}

/**
 * The source with id `id` (with `src_`), or null when there is none. A found source is kept for
 * one second per process, so a burst to one source costs one read, and a change made by any process
 * (disable, allowed methods, custom response) applies within a second. Unknown ids are never cached,
 * so a source created a moment ago in another process is found at once. Concurrent misses share one read.
 */
export async function findIngestSource(id: string, now = Date.now()): Promise<IngestSource | null> {
  const hit = cache.get(id);
  if (hit && hit.expiresAt > now) return hit.source;
  let pending = inFlight.get(id);
  if (!pending) {
    pending = load(id).finally(() => inFlight.delete(id));
    inFlight.set(id, pending);
  }
  const source = await pending;
  if (source) {
    if (cache.size > 10_000) cache.clear();
    cache.set(id, { source, expiresAt: now + TTL_MS });
  } else {
    cache.delete(id);
  }
  return source;
}
