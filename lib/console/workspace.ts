import { findSession, SESSION_COOKIE, sessionCliKey } from "@/lib/console/sessions";
import { readCookie } from "@/lib/http/cookies";
import { cmdHintFor, ingestUrlFor, inspectUrlFor } from "@/lib/urls";
import { getPool } from "@/lib/db/pool";
import { publicSourceId } from "@/lib/ids";

export type WorkspaceSource = {
  id: string;
  public_id: string;
  name: string;
  type: string;
  created_at: string;
  ingest_url: string;
  inspect_url: string;
  request_count: number;
};

export type Workspace = { team_id: string; cli_key: string; cmd_hint: string; sources: WorkspaceSource[] };

/**
 * The guest workspace of a console session cookie (raw `Cookie` header or the token itself), with its
 * sources newest first; null when there is no live session. Used by the console pages to list the
 * sources created with the same cookie and to show the CLI hint to their owner only.
 */
export async function getWorkspace(opts: { cookieHeader?: string | null; token?: string | null }): Promise<Workspace | null> {
  const session = await findSession(opts.token ?? readCookie(opts.cookieHeader, SESSION_COOKIE));
  if (!session) return null;
  const pool = getPool();
  const [cliKey, { rows: sources }] = await Promise.all([
    sessionCliKey(session),
    pool.query<{ id: string; name: string; type: string; created_at: Date; request_count: number }>(
      `SELECT s.id, s.name, s.type, s.created_at,
              (SELECT count(*) FROM requests r WHERE r.source_id = s.id)::int AS request_count
         FROM sources s WHERE s.team_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT 200`,
      [session.teamId],
    ),
  ]);
  return {
    team_id: session.teamId,
    cli_key: cliKey,
    cmd_hint: cmdHintFor(cliKey),
    sources: sources.map((s) => ({
      id: s.id,
      public_id: publicSourceId(s.id),
      name: s.name,
      type: s.type,
      created_at: s.created_at.toISOString(),
      ingest_url: ingestUrlFor(s.id),
      inspect_url: inspectUrlFor(s.id),
      request_count: s.request_count,
    })),
  };
}
