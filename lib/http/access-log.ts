/**
 * The access log (docs/operations.md "Logs"): one `info` line per HTTP request the web server answers,
 * written when the response ends (or the connection closes first): method, path (query string dropped,
 * capability ids shortened by the caller), status, duration in ms, request id and trace id. It also gives
 * every line logged while serving the request that request id (lib/log.ts). ACCESS_LOG=false turns the
 * line off; LOG_LEVEL above info too.
 */
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { getConfig } from "@/lib/config";
import { enterLogContext, type LogContext, logFormat, logger, writeJsonLine } from "@/lib/log";
import { traceIdOf } from "@/lib/tracing";

const log = logger("http");

/** An x-request-id we keep as it came: short, printable, no spaces or quotes (nothing that could forge a log line). */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request id of `header` (x-request-id) when it is acceptable, else a new random one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * Returns the function server.ts calls first for every request: it sets the request's log context and,
 * when the access log is on, logs the line once the response is over. `pathForLog` turns a path (without
 * query) into what the line shows.
 */
export function accessLogger(pathForLog: (pathname: string) => string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const on = getConfig().accessLog && log.enabled("info");
  const json = logFormat() === "json";
  return (req, res) => {
    const context: LogContext = { request_id: requestIdOf(req.headers["x-request-id"]) };
    enterLogContext(context);
    if (!on) return;
    const started = performance.now();
    // As received: the server may rewrite req.url (a gateway path without a version) before answering.
    const url = req.url ?? "/";
    res.once("close", () => {
      const q = url.indexOf("?");
      const path = pathForLog(q === -1 ? url : url.slice(0, q));
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const traceId = context.trace_id ?? traceIdOf(req.headers.traceparent as string | undefined);
      const msg = `${req.method} ${path} ${res.statusCode} ${ms} ms`;
      const aborted = !res.writableFinished;
      if (json) {
        // Built by hand: a fifth of the CPU of a pino line (docs/benchmarks.md "Access log"). Every string
        // from the request is escaped by JSON.stringify; the trace id is hex and the numbers are numbers.
        writeJsonLine(
          `{"level":"info","time":${Date.now()},"pid":${process.pid},"scope":"http","request_id":${JSON.stringify(context.request_id)}${traceId ? `,"trace_id":"${traceId}"` : ""},"method":${JSON.stringify(req.method)},"path":${JSON.stringify(path)},"status":${res.statusCode},"duration_ms":${ms}${aborted ? ',"aborted":true' : ""},"msg":${JSON.stringify(msg)}}\n`,
        );
        return;
      }
      const fields: Record<string, unknown> = { method: req.method, path, status: res.statusCode, duration_ms: ms, request_id: context.request_id };
      if (traceId) fields.trace_id = traceId;
      if (aborted) fields.aborted = true;
      log.raw("info", fields, msg);
    });
  };
}

/** `id` shortened for logs: its first 4 characters and "…" (a capability id is never logged whole). */
export function shortId(id: string): string {
  return id.length > 6 ? `${id.slice(0, 4)}…` : id;
}
