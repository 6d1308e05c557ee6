/**
 * The CLI forwarding channel, `/cli/…`, served by server.ts (docs/cli.md#protocol: authenticated by the
 * workspace's `cli_key` as `Authorization: Bearer <cli_key>`, never by an API key):
 *   POST /cli/sessions               {source_name, connection_name?, path?} → {id, source, connections, signing_secret}
 *                                    (signing_secret: the CLI forwarding secret, never the team's own; docs/cli.md)
 *   GET  /cli/sessions/{id}/stream   server-sent events: `ready`, then one `attempt` per delivery
 *   POST /cli/attempts/{attempt_id}  {event_id, session_id?, status?, body?, error?, latency_ms?} → {ok: true}
 * Errors are `{error, message}` with 401, 404, 409, 413 or 422 (every AppError by its code: docs/errors.md "CLI channel").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { getCliFeed } from "@/lib/cli-channel/feed";
import {
  closeCliSession,
  createCliSession,
  findCliSession,
  loadCliDelivery,
  recordCliAttempt,
  requeueUnavailable,
  touchCliSession,
  ZCliAttemptResult,
  ZCliSessionCreate,
} from "@/lib/cli-channel/sessions";
import { teamOfCliKey } from "@/lib/teams/cli-key";
import { APP_ERROR_NAME, AppError } from "@/lib/http/errors";
import { parseJsonInput } from "@/lib/http/json-input";
import { readNodeRequest } from "@/lib/http/node";
import { logger } from "@/lib/log";

const log = logger("cli");
const PING_MS = 10_000;
const TOUCH_MS = 5_000;

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}
/** The CLI channel's one error-body writer: an AppError as its status and `{error: APP_ERROR_NAME[code], message}`. */
export const cliErrorBody = (e: AppError) => ({ error: APP_ERROR_NAME[e.code], message: e.message });
const fail = (res: ServerResponse, e: AppError) => send(res, e.status, cliErrorBody(e));

async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const r = await readNodeRequest(req, { maxBodyBytes: 1024 * 1024, trustProxy: getConfig().trustProxy });
  if (r.bodyTooLarge) throw new AppError("PAYLOAD_TOO_LARGE", "The body exceeds 1 MiB");
  let raw: unknown;
  try {
    raw = r.body.length ? parseJsonInput(r.body.toString("utf8")) : {};
  } catch (err) {
    throw new AppError("VALIDATION", err instanceof AppError ? err.message : "The body is not valid JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new AppError("VALIDATION", `${i.path.join(".") || "body"}: ${i.message}`);
  }
  return parsed.data;
}

async function stream(req: IncomingMessage, res: ServerResponse, teamId: string, sessionId: string) {
  const session = await findCliSession(teamId, sessionId);
  if (!session) throw new AppError("NOT_FOUND", `No open session ${sessionId}; create a new one`);
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  const ping = setInterval(() => res.write(": ping\n\n"), PING_MS);
  const touch = setInterval(() => void touchCliSession(sessionId).catch(() => {}), TOUCH_MS);
  const done = () => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    clearInterval(touch);
    unsubscribe?.();
    void closeCliSession(sessionId).catch(() => {});
  };
  req.on("close", done);
  res.on("error", done);
  unsubscribe = await getCliFeed().subscribe(sessionId, (n) => {
    void loadCliDelivery(n.attempt_id, n.event_id).then(
      (d) =>
        d &&
        !closed &&
        res.write(`event: attempt\ndata: ${JSON.stringify({ ...d, request: { ...d.request, timeout_ms: getConfig().deliveryTimeoutMs } })}\n\n`),
      (err) => log.warn("could not load a CLI delivery", err instanceof Error ? err.message : err),
    );
  });
  if (closed) return unsubscribe();
  await touchCliSession(sessionId);
  res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ session_id: sessionId })}\n\n`);
  const requeued = await requeueUnavailable(session.webhook_ids);
  if (requeued) log.info(`queued ${requeued} events that waited for a CLI`);
}

/** Serves one `/cli/…` request (`pathname` without query). Never throws. */
export async function serveCli(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  try {
    const header = req.headers.authorization ?? "";
    const teamId = await teamOfCliKey(header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : null);
    if (!teamId) throw new AppError("UNAUTHORIZED", "A valid cli_key is required: Authorization: Bearer <cli_key>");
    const parts = pathname.split("/").filter(Boolean); // ["cli", …]
    if (req.method === "POST" && parts.length === 2 && parts[1] === "sessions") {
      return send(res, 200, await createCliSession(teamId, await readJson(req, ZCliSessionCreate)));
    }
    if (req.method === "GET" && parts.length === 4 && parts[1] === "sessions" && parts[3] === "stream") {
      return await stream(req, res, teamId, decodeURIComponent(parts[2]));
    }
    if (req.method === "POST" && parts.length === 3 && parts[1] === "attempts") {
      await recordCliAttempt(teamId, decodeURIComponent(parts[2]), await readJson(req, ZCliAttemptResult));
      return send(res, 200, { ok: true });
    }
    throw new AppError("NOT_FOUND", `No endpoint ${req.method} ${pathname}`);
  } catch (err) {
    if (err instanceof AppError) return res.headersSent ? void res.end() : fail(res, err);
    log.error("CLI channel error", err);
    if (!res.headersSent) send(res, 500, { error: "INTERNAL", message: "Internal error" });
    else res.end();
  }
}
