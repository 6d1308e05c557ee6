import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestFeed } from "@/lib/console/live";
import { getPool } from "@/lib/db/pool";
import { sourceIdFromPublic } from "@/lib/ids";

const HEARTBEAT_MS = 15_000;

/**
 * `GET /{id}/live`: a server-sent-events stream that emits `event: request` (data `{"source_id"}`)
 * each time a request for that source is committed, by any process. Starts with `event: ready`;
 * a comment line every 15 s keeps proxies from closing it. 404 JSON for unknown sources.
 */
export async function streamSourceRequests(publicId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sourceId = sourceIdFromPublic(publicId);
  const { rowCount } = sourceId ? await getPool().query("SELECT 1 FROM sources WHERE id = $1", [sourceId]) : { rowCount: 0 };
  if (!sourceId || !rowCount) {
    res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ code: "NOT_FOUND", status: 404, data: [`No test URL with id "${publicId}"`] }));
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
  const done = () => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe?.();
  };
  req.on("close", done);
  res.on("error", done);
  // Subscribe before announcing `ready`: a client that sends a request as soon as it sees `ready` must
  // get its `request` event (the first subscription of a process waits for its LISTEN connection).
  unsubscribe = await getRequestFeed().subscribe(sourceId, () => {
    res.write(`event: request\ndata: ${JSON.stringify({ source_id: sourceId })}\n\n`);
  });
  if (closed) {
    unsubscribe();
    return;
  }
  res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ source_id: sourceId })}\n\n`);
}
