/**
 * Runs a transformation: JavaScript that calls `addHandler("transform", (request, context) => request)`,
 * in a QuickJS sandbox (quickjs-emscripten): no IO, no `require`, no network; `process.env` holds the
 * transformation's env; `console.*` is captured. Used by `PUT /transformations/run` and, per event,
 * by the pipeline. shared/reference/gateway-product.md §3 "Transformation runtime".
 */
import { getQuickJS, type QuickJSWASMModule, shouldInterruptAfterDeadline } from "quickjs-emscripten";

/** The request a transformation sees and returns. */
export type TransformRequest = {
  headers: Record<string, string>;
  body: unknown;
  path: string;
  query: string;
  parsed_query: Record<string, unknown>;
};

export type ConsoleLine = { type: "log" | "info" | "warn" | "error" | "debug"; message: string };
export type LogLevel = "debug" | "info" | "warn" | "error" | "fatal";

export type TransformationResult =
  | { ok: true; request: TransformRequest; console: ConsoleLine[]; logLevel: LogLevel }
  | { ok: false; error: string; console: ConsoleLine[]; logLevel: "fatal" };

/** Wall-clock limit of one run, ms. */
export const TRANSFORMATION_TIMEOUT_MS = 1000;
/** Memory limit of one run's runtime, bytes. */
export const TRANSFORMATION_MEMORY_BYTES = 5 * 1024 * 1024;
const MAX_CONSOLE_LINES = 100;

let quickjs: Promise<QuickJSWASMModule> | undefined;

// Everything below runs inside the sandbox. User code is evaluated by indirect eval so that a throw
// is caught and the console lines written before it are kept.
const PRELUDE = `
const __out = { console: [] };
const __fmt = (a) => typeof a === "string" ? a : (() => { try { return JSON.stringify(a); } catch { return String(a); } })();
const __log = (type) => (...args) => { if (__out.console.length < ${MAX_CONSOLE_LINES}) __out.console.push({ type, message: args.map(__fmt).join(" ") }); };
globalThis.console = { log: __log("log"), info: __log("info"), warn: __log("warn"), error: __log("error"), debug: __log("debug") };
let __handler = null;
globalThis.addHandler = (name, fn) => { if (name === "transform" && typeof fn === "function") __handler = fn; };
`;

function program(code: string, env: Record<string, string>, request: TransformRequest, context: unknown): string {
  return `${PRELUDE}
globalThis.process = { env: ${JSON.stringify(env)} };
try {
  (0, eval)(${JSON.stringify(code)});
  if (!__handler) throw new Error('The code never called addHandler("transform", (request, context) => …)');
  __out.result = __handler(${JSON.stringify(request)}, ${JSON.stringify(context ?? {})});
} catch (e) {
  __out.error = e instanceof Error ? (e.name + ": " + e.message + (e.stack ? "\\n" + e.stack : "")) : String(e);
}
JSON.stringify(__out)`;
}

const LEVELS: LogLevel[] = ["debug", "info", "warn", "error"];
const levelOf = (type: ConsoleLine["type"]): LogLevel => (type === "log" ? "info" : type);

function normalise(result: unknown): TransformRequest | string {
  if (!result || typeof result !== "object" || Array.isArray(result)) return `The transform handler must return a request object; it returned ${result === undefined ? "undefined" : JSON.stringify(result)}`;
  const r = result as Record<string, unknown>;
  if (r.headers !== undefined && (typeof r.headers !== "object" || r.headers === null || Array.isArray(r.headers))) return "request.headers must be an object";
  const headers = Object.fromEntries(Object.entries((r.headers as Record<string, unknown>) ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  const query = typeof r.query === "string" ? r.query : "";
  return {
    headers,
    body: r.body ?? null,
    path: typeof r.path === "string" ? r.path : "/",
    query,
    parsed_query: r.parsed_query && typeof r.parsed_query === "object" ? (r.parsed_query as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(query)),
  };
}

/**
 * Runs `code` on `request` with `env` (strings) and `context` (JSON). Never throws for the code's own
 * faults: a throw, a falsy or non-object result, no handler, more than 1000 ms or more than 5 MiB give
 * `{ok: false, logLevel: "fatal", error}`. `logLevel` of a success is the highest console level used
 * (`log` counts as info; info when nothing was logged).
 */
export async function runTransformation(input: { code: string; env?: Record<string, string>; request: TransformRequest; context?: unknown }): Promise<TransformationResult> {
  quickjs ??= getQuickJS();
  const runtime = (await quickjs).newRuntime();
  runtime.setMemoryLimit(TRANSFORMATION_MEMORY_BYTES);
  runtime.setMaxStackSize(512 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + TRANSFORMATION_TIMEOUT_MS));
  const vm = runtime.newContext();
  try {
    const evaluated = vm.evalCode(program(input.code, input.env ?? {}, input.request, input.context));
    if (evaluated.error) {
      const raw = vm.dump(evaluated.error) as { name?: string; message?: string } | string;
      evaluated.error.dispose();
      const message = typeof raw === "string" ? raw : `${raw?.name ?? "Error"}: ${raw?.message ?? ""}`;
      const error = /interrupted/i.test(message)
        ? `Timeout: the transformation ran longer than ${TRANSFORMATION_TIMEOUT_MS} ms`
        : /out of memory/i.test(message)
          ? `Out of memory: the transformation used more than ${TRANSFORMATION_MEMORY_BYTES} bytes`
          : message;
      return { ok: false, error, console: [{ type: "error", message: error }], logLevel: "fatal" };
    }
    const out = JSON.parse(vm.getString(evaluated.value)) as { console: ConsoleLine[]; result?: unknown; error?: string };
    evaluated.value.dispose();
    if (out.error) return { ok: false, error: out.error, console: [...out.console, { type: "error", message: out.error }], logLevel: "fatal" };
    const request = normalise(out.result);
    if (typeof request === "string") return { ok: false, error: request, console: [...out.console, { type: "error", message: request }], logLevel: "fatal" };
    const level = out.console.reduce<LogLevel>((max, line) => (LEVELS.indexOf(levelOf(line.type)) > LEVELS.indexOf(max) ? levelOf(line.type) : max), "info");
    return { ok: true, request, console: out.console, logLevel: out.console.length ? level : "info" };
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}
