import { decryptJson } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { configGeneration } from "@/lib/db/config-generation";

/** What ingestion needs to know about a source. */
export type IngestSource = {
  id: string;
  teamId: string;
  teamMode: "GUEST" | "TEAM";
  type: string;
  allowedMethods: string[];
  customResponse: { content_type: "json" | "text" | "xml"; body: string } | null;
  disabled: boolean;
  /** Active (not disabled) connections fed by this source; 0 gives NO_CONNECTION. */
  connectionCount: number;
  /** `config.auth_type` and the decrypted `config.auth`, for verification. */
  authType: string | null;
  auth: Record<string, unknown> | null;
};

/** How long a found source is reused without reading it again, ms. */
const TTL_MS = 1000;
const cache = new Map<string, { source: IngestSource; expiresAt: number; generation: number }>();
const inFlight = new Map<string, Promise<IngestSource | null>>();

async function load(id: string): Promise<IngestSource | null> {
  const { rows } = await getPool().query<{
    id: string;
    team_id: string;
    mode: "GUEST" | "TEAM";
    type: string;
    config: { allowed_http_methods?: string[]; custom_response?: IngestSource["customResponse"]; auth_type?: string | null };
    disabled_at: Date | null;
    auth_encrypted: string | null;
    connection_count: number;
  }>(
    `SELECT s.id, s.team_id, t.mode, s.type, s.config, s.disabled_at, s.auth_encrypted,
            (SELECT count(*) FROM connections w WHERE w.source_id = s.id AND w.disabled_at IS NULL)::int AS connection_count
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
    connectionCount: row.connection_count,
    authType: row.config.auth_type ?? null,
    auth: decryptJson<Record<string, unknown>>(row.auth_encrypted),
  };
}

/** Drops `id`'s cached entry (its row was found gone: docs/console-api.md "Renaming and deleting a test URL"). */
export function forgetIngestSource(id: string): void {
  cache.delete(id);
}

/**
 * The source with id `id` (with `src_`), or null when there is none. A found source is kept for
 * one second per process, so a burst to one source costs one read, and a change made by any process
 * (disable, allowed methods, custom response) applies within a second. Unknown ids are never cached,
 * so a source created a moment ago in another process is found at once. Concurrent misses share one read.
 */
export async function findIngestSource(id: string, now = Date.now()): Promise<IngestSource | null> {
  const generation = configGeneration();
  const hit = cache.get(id);
  if (hit && hit.expiresAt > now && hit.generation === generation) return hit.source;
  let pending = inFlight.get(id);
  if (!pending) {
    pending = load(id).finally(() => inFlight.delete(id));
    inFlight.set(id, pending);
  }
  const source = await pending;
  if (source) {
    if (cache.size > 10_000) cache.clear();
    cache.set(id, { source, expiresAt: now + TTL_MS, generation });
  } else {
    cache.delete(id);
  }
  return source;
}
