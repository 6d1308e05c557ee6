/**
 * Which sources the console serves, and who may change them (docs/console-api.md#who-may-read-and-change-a-test-url).
 * A console test URL is a source of a GUEST workspace; a gateway team's source is never
 * reachable through a console route, and answers exactly as an unknown id does, so its existence is not
 * revealed. Reads of a test URL need only its id (the id is the capability: 128 random bits);
 * every state-changing route needs the session cookie of the workspace that owns it.
 */
import type { ConsoleSession } from "@/lib/console/sessions";
import { getPool } from "@/lib/db/pool";
import { AppError } from "@/lib/http/errors";
import { sourceIdFromPublic } from "@/lib/ids";

/** A console test URL: a source of a guest workspace. `id` has its `src_` prefix. */
export type ConsoleSource = { id: string; team_id: string; name: string; type: string };

/** The one 404 of every console route for an id that is not a test URL (unknown, malformed, or a team's). */
export function testUrlNotFound(publicId: string): AppError {
  return new AppError("NOT_FOUND", "No test URL with that id", { messages: [`No test URL with id "${publicId}"`] });
}

/**
 * The test URL `publicId` (a source id without `src_`) when it is a source of a guest workspace, else
 * null: unknown ids, malformed ids and gateway teams' sources alike. One indexed read.
 */
export async function findConsoleSource(publicId: string): Promise<ConsoleSource | null> {
  const sourceId = sourceIdFromPublic(publicId);
  if (!sourceId) return null;
  const { rows } = await getPool().query<ConsoleSource>(
    `SELECT s.id, s.team_id, s.name, s.type FROM sources s JOIN teams t ON t.id = s.team_id
      WHERE s.id = $1 AND t.mode = 'GUEST'`,
    [sourceId],
  );
  return rows[0] ?? null;
}

/** As {@link findConsoleSource}; throws AppError NOT_FOUND ({@link testUrlNotFound}) instead of null. */
export async function requireConsoleSource(publicId: string): Promise<ConsoleSource> {
  const source = await findConsoleSource(publicId);
  if (!source) throw testUrlNotFound(publicId);
  return source;
}

/**
 * The test URL `publicId` when `session` (the caller's live console session, from its cookie) belongs to
 * the workspace that owns it: the check of every state-changing console route.
 * Throws AppError NOT_FOUND when it is not a test URL (as for reads), FORBIDDEN (403) when the cookie is
 * missing, unknown, expired or another workspace's.
 */
export async function requireOwnedConsoleSource(publicId: string, session: ConsoleSession | null): Promise<ConsoleSource> {
  const source = await requireConsoleSource(publicId);
  if (!session || session.teamId !== source.team_id) {
    throw new AppError("FORBIDDEN", "Not the owner of this test URL", {
      messages: ["Only the workspace that created this test URL can change it: send its hookyard_session cookie (open it in the browser that created it)."],
    });
  }
  return source;
}
