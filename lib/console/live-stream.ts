import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestFeed } from "@/lib/console/live";
import { findConsoleSource, testUrlNotFound } from "@/lib/console/console-source";
import { consoleErrorResponse } from "@/lib/console/http";
import { capturedRequestsByIds } from "@/lib/console/preview";
import { logger } from "@/lib/log";

const HEARTBEAT_MS = 15_000;
const log = logger("live");

/**
 * `GET /{id}/live`: a server-sent-events stream that emits `event: request` each time a request for that source
 * is committed, by any process: data `{"source_id", "request"}` with the request in the source preview's shape
 * (docs/console-api.md "Live updates"), one event per request, oldest first; or `{"source_id"}` alone when
 * the requests are not known (many at once, or after the stream's database connection came back): then read the list again.
 * Starts with `event: ready`;
 * a comment line every 15 s keeps proxies from closing it. 404 JSON for unknown ids and for gateway
 * teams' sources alike (the console serves guest workspaces' test URLs only: docs/console-api.md#who-may-read-and-change-a-test-url).
 */
export async function streamSourceRequests(publicId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const source = await findConsoleSource(publicId);
  if (!source) {
    const notFound = consoleErrorResponse(testUrlNotFound(publicId));
    res.writeHead(notFound.status, notFound.headers);
    res.end(notFound.body);
    return;
  }
  const sourceId = source.id;
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
  // Rows are read one notification at a time, in order; ids named meanwhile wait for the next read.
  let reading: Promise<void> = Promise.resolve();
  const announce = (requestIds: string[] | null) => {
    reading = reading.then(async () => {
      if (closed) return;
      const rows = requestIds ? await capturedRequestsByIds(sourceId, requestIds).catch((err: unknown) => (log.warn("live rows", err), null)) : null;
      if (closed) return;
      if (!rows) res.write(`event: request\ndata: ${JSON.stringify({ source_id: sourceId })}\n\n`);
      else for (const request of rows) res.write(`event: request\ndata: ${JSON.stringify({ source_id: sourceId, request })}\n\n`);
    });
  };
  unsubscribe = await getRequestFeed().subscribe(sourceId, announce);
  if (closed) {
    unsubscribe();
    return;
  }
  res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ source_id: sourceId })}\n\n`);
}
