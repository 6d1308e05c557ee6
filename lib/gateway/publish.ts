/**
 * The gateway publish endpoint `POST {INGEST_URL}/v1/publish` (docs/pipeline.md#publishing-from-your-own-code):
 * a team's own code sends an event with its API key, into a source
 * of that team named by `x-gateway-source-name` or identified by `x-gateway-source-id`; it then takes
 * the same pipeline as any request to the source's URL. The API key authenticates it (the request is
 * `verified`), and the `authorization` header is never stored.
 */
import { authenticateApiKey } from "@/lib/teams/api-keys";
import { getPool } from "@/lib/db/pool";
import { apiKeyFromAuthorization } from "@/lib/gateway/http";
import { json, type HttpRequest, type HttpResponse } from "@/lib/http/types";
import { publicSourceId } from "@/lib/ids";
import { CORS_HEADERS, ingest } from "@/lib/ingest/ingest";

const fail = (status: number, code: string, message: string): HttpResponse => json(status, { message, code }, CORS_HEADERS);

/**
 * Answers a publish request: 405 for a method other than POST, 401 `UNAUTHORIZED` without a valid API
 * key, 400 `MISSING_PARAMETER` without a source header, 404 `NOT_FOUND` for a source the team does not
 * have; otherwise what ingestion answers for that source. Rejects only when the database fails.
 */
export async function publish(req: HttpRequest): Promise<HttpResponse> {
  if (req.method === "OPTIONS")
    return { status: 204, headers: { ...CORS_HEADERS, "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*" } };
  if (req.method !== "POST")
    return {
      ...fail(405, "METHOD_NOT_ALLOWED", "Publish with POST"),
      headers: { ...CORS_HEADERS, allow: "POST, OPTIONS", "content-type": "application/json; charset=utf-8" },
    };
  const key = apiKeyFromAuthorization(req.headers.authorization);
  if (!key) return fail(401, "UNAUTHORIZED", "No API key was provided through Basic Auth or Bearer Token");
  const auth = await authenticateApiKey(key);
  if (!auth) return fail(401, "UNAUTHORIZED", "The API key is not valid");
  const sourceId = req.headers["x-gateway-source-id"];
  const sourceName = req.headers["x-gateway-source-name"];
  if (!sourceId && !sourceName) return fail(400, "MISSING_PARAMETER", "Missing x-gateway-source-id or x-gateway-source-name header");
  const { rows } = await getPool().query<{ id: string }>(
    sourceId ? "SELECT id FROM sources WHERE team_id = $1 AND id = $2" : "SELECT id FROM sources WHERE team_id = $1 AND name = $2",
    [auth.teamId, sourceId ?? sourceName],
  );
  if (!rows[0]) return fail(404, "NOT_FOUND", `No source ${sourceId ? `with id ${sourceId}` : `named ${sourceName}`} in this project`);
  const headers = { ...req.headers };
  delete headers.authorization;
  return ingest(publicSourceId(rows[0].id), { ...req, headers, pathname: "/" }, { published: true });
}
