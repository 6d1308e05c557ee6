/**
 * Logs (docs/operations.md "Logs"): one pino logger per process, JSON lines by default (pretty on a
 * terminal, LOG_FORMAT), level LOG_LEVEL. Every line has `time` (ms since the epoch), `level`, `scope`, `msg`, and, when known,
 * `request_id` (the HTTP request's x-request-id) and `trace_id`. Secrets never reach the output: free-form
 * extras go through {@link scrub}, and pino's redaction covers the paths where headers are logged.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";
import { type SpanContext, trace } from "@opentelemetry/api";
import pino, { type DestinationStream, type Logger } from "pino";
import { prettyFactory } from "pino-pretty";
import { getConfig } from "@/lib/config";

/** What lines logged inside a request carry (server.ts sets it per HTTP request). */
export type LogContext = { request_id?: string; trace_id?: string };

const contextStore = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `context` added to every line it logs (synchronously or in its async continuations). */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return contextStore.run(context, fn);
}

/** The log context of the current HTTP request, if any (mutable: tracing adds the trace id once it is known). */
export function currentLogContext(): LogContext | undefined {
  return contextStore.getStore();
}

/**
 * Makes `context` the log context of the rest of the current call and its async continuations (the
 * request handler of server.ts calls it first, so every line it causes carries the request id).
 */
export function enterLogContext(context: LogContext): void {
  contextStore.enterWith(context);
}

const REDACTED = "[REDACTED]";

/**
 * Names (any case, `-` or `_`) whose values are secrets wherever they appear in a logged object: credentials,
 * cookies, tokens, webhook signatures (x-hookyard-signature, webhook-signature, stripe-signature,
 * x-hub-signature-256, x-gateway-signature…).
 */
const SECRET_KEY = /authorization|cookie|api[-_]?key|secret|passw(or)?d|token|signature|credential|private[-_]?key|^auth$|^x-[a-z-]*-key$/i;

/** Secrets inside free text: auth schemes, Hookyard's key formats, `name=value` / `name: value` pairs of secret names. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  [/\b(hky|hko|cli|whsec|sk_live|sk_test|rk_live|rk_test)_[A-Za-z0-9_-]{6,}/g, REDACTED],
  [
    /\b((?:[a-z0-9-]*[-_])?(?:api[-_]?key|secret|password|passwd|token|signature|authorization|cookie)(?:[-_][a-z0-9-]*)?)(["']?\s*[:=]\s*["']?)([^\s"';&]+)/gi,
    `$1$2${REDACTED}`,
  ],
];

/** `text` with the secrets {@link SECRET_TEXT} recognises replaced by "[REDACTED]". */
export function scrubText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `value` safe to log: values under secret names ({@link SECRET_KEY}) replaced by "[REDACTED]",
 * strings scrubbed ({@link scrubText}), Errors turned into `{type, message, stack, code?}`, Buffers into
 * their length; nesting beyond 6 levels and cycles are cut. Never throws.
 */
export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (seen.has(value) || depth > 6) return "[…]";
  seen.add(value);
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      type: value.name,
      message: scrubText(value.message),
      ...(value.stack ? { stack: scrubText(value.stack) } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(value.cause !== undefined ? { cause: scrub(value.cause, depth + 1, seen) } : {}),
    };
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen));
  if (value instanceof Map) return scrub(Object.fromEntries(value), depth, seen);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : scrub(v, depth + 1, seen);
  return out;
}

/** Header paths pino itself redacts (a second line of defence for objects logged without {@link scrub}). */
const REDACT_HEADERS = ["authorization", "cookie", '["set-cookie"]', '["x-api-key"]', '["proxy-authorization"]'];
const REDACT_PATHS = ["headers", "req.headers", "res.headers", "detail.headers"].flatMap((base) =>
  REDACT_HEADERS.map((h) => `${base}${h.startsWith("[") ? h : `.${h}`}`),
);

/** Keys of a line that an extra's own fields may not replace. */
const RESERVED = new Set(["time", "level", "scope", "msg", "pid", "request_id", "trace_id", "span_id"]);

export type LogFormat = "json" | "pretty";

/** The output format: `setting` (LOG_FORMAT), else pretty when stdout is a terminal and JSON otherwise. */
export function logFormat(setting: LogFormat | null = getConfig().logFormat, tty = Boolean(process.stdout.isTTY)): LogFormat {
  return setting ?? (tty ? "pretty" : "json");
}

/**
 * A synchronous pretty-printing destination: each JSON line is formatted in-process and written with one
 * `writeSync`, so a process that exits right after logging loses nothing (no worker thread, no buffer).
 */
function prettyDestination(fd: number, colorize: boolean): DestinationStream {
  const pretty = prettyFactory({ colorize, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,scope", messageFormat: "[{scope}] {msg}" });
  return { write: (line: string) => void writeSync(fd, pretty(line)) };
}

/**
 * JSON lines to stdout, batched per turn of the event loop: the lines of one turn are written together by
 * one synchronous write in a `setImmediate` (few system calls under load, no write ever in flight), and
 * whatever is left is written when the process exits, so nothing is lost or reordered by an exit.
 */
function stdoutBatched(): DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const chunk = pending;
    pending = "";
    out.write(chunk);
  };
  process.on("exit", flush);
  return {
    write: (line: string) => {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}

/**
 * Builds a root logger writing to `destination` (default: stdout; JSON lines batched per event-loop turn
 * and written synchronously, pretty lines one by one, synchronously). Exported for tests.
 */
export function createRootLogger(opts: { level: string; format: LogFormat; destination?: DestinationStream }): Logger {
  const destination = opts.destination ?? (opts.format === "pretty" ? prettyDestination(1, Boolean(process.stdout.isTTY)) : stdoutBatched());
  return pino(
    {
      level: opts.level,
      base: { pid: process.pid },
      // Milliseconds since the epoch (pino's default): an ISO string costs a Date per line (docs/benchmarks.md "Access log").
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // Errors are already serialised (and scrubbed) by fieldsOf.
      serializers: { err: (value: unknown) => value },
      mixin: contextFields,
    },
    destination,
  );
}

/** The active span's context; set by lib/tracing.ts once traces are on (off, lines skip the lookup). */
let activeSpanContext: (() => SpanContext | undefined) | null = null;

/** Makes log lines carry the trace and span ids of the active span (lib/tracing.ts calls it when it starts). */
export function logActiveSpans(on: boolean): void {
  activeSpanContext = on ? () => trace.getActiveSpan()?.spanContext() : null;
}

/** The request id of the current HTTP request and the trace id of the active span (or of the request). */
function contextFields(): Record<string, string> {
  const context = contextStore.getStore();
  const span = activeSpanContext?.();
  if (!context && !span) return {};
  const out: Record<string, string> = {};
  if (context?.request_id) out.request_id = context.request_id;
  const traceId = span?.traceId ?? context?.trace_id;
  if (traceId) out.trace_id = traceId;
  if (span) out.span_id = span.spanId;
  return out;
}

const globalForLog = globalThis as unknown as { __hookyardLogger?: Logger };

/** Makes `root` the process's root logger (tests capture lines with it); loggers already used keep their old one. */
export function replaceRootLogger(root: Logger): void {
  globalForLog.__hookyardLogger = root;
}

/** The process's root logger, built on first use from LOG_LEVEL and LOG_FORMAT. */
export function rootLogger(): Logger {
  globalForLog.__hookyardLogger ??= createRootLogger({ level: getConfig().logLevel, format: logFormat() });
  return globalForLog.__hookyardLogger;
}

/**
 * Writes `line` (one complete JSON log line, ending with a newline) to the root logger's destination as it is,
 * for a line on a hot path that is cheaper to build by hand than through pino (the access log,
 * docs/benchmarks.md "Access log"). Only for the JSON format ({@link logFormat}); the caller checks the level.
 */
export function writeJsonLine(line: string): void {
  (rootLogger() as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym].write(line);
}

type Level = "debug" | "info" | "warn" | "error";

/** The fields an extra adds to a line: an Error under `err`, a plain object's own fields, anything else under `detail`. */
function fieldsOf(extra: unknown): Record<string, unknown> {
  if (extra instanceof Error) return { err: scrub(extra) };
  const clean = scrub(extra);
  if (clean && typeof clean === "object" && !Array.isArray(clean)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(clean)) out[RESERVED.has(k) ? `extra_${k}` : k] = v;
    return out;
  }
  return { detail: clean };
}

/**
 * A logger for `scope` that honours LOG_LEVEL (debug, info, warn, error, silent) and LOG_FORMAT:
 * `log.info(message, extra?)`. `extra` may be an Error (logged under `err` with its stack), a plain object
 * (its fields join the line) or any other value (under `detail`); secrets in it are redacted ({@link scrub}).
 * The message is scrubbed too. docs/operations.md "Logs".
 */
export function logger(scope: string) {
  let child: Logger | undefined;
  const emit = (level: Level, message: string, extra?: unknown) => {
    child ??= rootLogger().child({ scope });
    if (!child.isLevelEnabled(level)) return;
    if (extra === undefined) child[level](scrubText(message));
    else child[level](fieldsOf(extra), scrubText(message));
  };
  return {
    debug: (m: string, extra?: unknown) => emit("debug", m, extra),
    info: (m: string, extra?: unknown) => emit("info", m, extra),
    warn: (m: string, extra?: unknown) => emit("warn", m, extra),
    error: (m: string, extra?: unknown) => emit("error", m, extra),
    /** Whether `level` is logged (to skip building an expensive line). */
    enabled: (level: Level) => (child ??= rootLogger().child({ scope })).isLevelEnabled(level),
    /** Logs `fields` as they are (no scrubbing: for lines whose fields the caller builds, such as the access log). */
    raw: (level: Level, fields: Record<string, unknown>, message: string) => {
      child ??= rootLogger().child({ scope });
      child[level](fields, message);
    },
  };
}
