/**
 * Runs a transformation: JavaScript that calls `addHandler("transform", (request, context) => request)`,
 * in a QuickJS sandbox (quickjs-emscripten) on a worker thread (sandbox-pool.ts, sandbox-worker.mjs).
 * docs/gateway-api.md#transformation-runtime (off the request thread).
 *
 * - No IO: no `require`, `fetch`, timers, `import`; only the language's built-ins plus `console.*`
 *   (captured), `addHandler` and `process.env` (the transformation's env, strings).
 * - Limits per run: {@link TRANSFORMATION_TIMEOUT_MS} of wall-clock time (QuickJS interrupt handler,
 *   covering both the top-level code and the handler; the main thread terminates the thread if it has not
 *   answered shortly after) and {@link TRANSFORMATION_MEMORY_BYTES} of runtime memory (QuickJS memory
 *   limit and a capped WebAssembly heap; the request given to the code counts against it).
 * - Framework-free: used by `PUT /transformations/run` and, per event, by the pipeline.
 *
 * Every run gets a fresh QuickJS runtime and context, disposed afterwards, so runs share nothing.
 */
import { runInSandbox, type SandboxAnswer } from "@/lib/rules/sandbox-pool";

/** The request a transformation sees and returns (the product's `request` object). */
export type TransformRequest = {
  headers: Record<string, string>;
  body: unknown;
  path: string;
  /** Raw query string without "?" ("" when none). */
  query: string;
  parsed_query: Record<string, unknown>;
};

type ConsoleLine = { type: "log" | "info" | "warn" | "error" | "debug"; message: string };
type LogLevel = "debug" | "info" | "warn" | "error" | "fatal";

export type TransformationResult =
  | { ok: true; request: TransformRequest; console: ConsoleLine[]; logLevel: Exclude<LogLevel, "fatal"> }
  | { ok: false; error: string; console: ConsoleLine[]; logLevel: "fatal" };

type TransformationInput = {
  /** The transformation's JavaScript source. */
  code: string;
  /** `process.env` inside the sandbox. */
  env?: Record<string, string>;
  /** The request given to the handler (JSON-serialisable). */
  request: TransformRequest;
  /** The handler's second argument, e.g. `{connection}` (JSON-serialisable). */
  context?: unknown;
  /** Overrides {@link TRANSFORMATION_TIMEOUT_MS} (ms); for tests. */
  timeoutMs?: number;
  /** Overrides {@link TRANSFORMATION_MEMORY_BYTES} (bytes); for tests. */
  memoryBytes?: number;
  /**
   * When every sandbox thread is busy: "queue" (default, the pipeline) waits for one; "refuse" (the API)
   * waits only while the queue has room (TRANSFORMATION_QUEUE_MAX) and else throws a RATE_LIMITED AppError (transformationBusy).
   */
  whenBusy?: "queue" | "refuse";
};

/** Wall-clock limit of one run, ms. */
const TRANSFORMATION_TIMEOUT_MS = 1000;
/** Memory limit of one run's QuickJS runtime, bytes. */
export const TRANSFORMATION_MEMORY_BYTES = 5 * 1024 * 1024;
/** Stack limit of one run, bytes: deep recursion ends in "InternalError: stack overflow" before the host's own stack runs out. */
const STACK_BYTES = 256 * 1024;
/** Console lines kept per run; later lines are dropped (one notice says so). */
export const MAX_CONSOLE_LINES = 100;
/** Characters kept of one console message. */
const MAX_CONSOLE_MESSAGE_CHARS = 4096;

const LEVELS: Exclude<LogLevel, "fatal">[] = ["debug", "info", "warn", "error"];
const levelOf = (type: ConsoleLine["type"]): Exclude<LogLevel, "fatal"> => (type === "log" ? "info" : type);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The returned request, or a message saying why it is not one. Fields the code left out (undefined)
 * keep the input's value; header values that are not strings are JSON-encoded.
 */
function toRequest(result: unknown, input: TransformRequest): TransformRequest | string {
  if (!isObject(result)) {
    const shown = result === undefined ? "undefined" : JSON.stringify(result);
    return `The transform handler must return a request object; it returned ${shown}`;
  }
  if (result.headers !== undefined && !isObject(result.headers)) return "The returned request's headers must be an object";
  if (result.path !== undefined && typeof result.path !== "string") return "The returned request's path must be a string";
  if (result.query !== undefined && result.query !== null && typeof result.query !== "string") return "The returned request's query must be a string";
  if (result.parsed_query !== undefined && !isObject(result.parsed_query)) return "The returned request's parsed_query must be an object";
  const headers =
    result.headers === undefined
      ? input.headers
      : Object.fromEntries(Object.entries(result.headers).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return {
    headers,
    body: result.body === undefined ? input.body : result.body,
    path: result.path ?? input.path,
    query: result.query ?? (result.query === null ? "" : input.query),
    parsed_query: result.parsed_query ?? input.parsed_query,
  };
}

/** The limit a VM error stands for, in the words the caller sees. */
function explain(message: string, timeoutMs: number, memoryBytes: number): string {
  if (/^InternalError: interrupted/.test(message)) return `Timeout: the transformation ran longer than ${timeoutMs} ms`;
  if (/^InternalError: out of memory/.test(message)) return `Out of memory: the transformation used more than ${memoryBytes} bytes`;
  return message;
}

/**
 * Runs `code` on `request` with `env` and `context` on a sandbox thread. Never throws for the code's own
 * faults: a throw, a syntax error, a falsy or non-object result, a Promise, no `addHandler("transform", …)`
 * call, more than `timeoutMs` (default 1000 ms) or more than `memoryBytes` (default 5 MiB) give
 * `{ok: false, logLevel: "fatal", error}` with the error also as the last console line (type "error").
 * A success has `logLevel` = the highest console level used (`log` counts as info; "info" when nothing
 * was logged). Console lines written before a failure are kept.
 * Throws a RATE_LIMITED AppError (transformationBusy, sandbox-pool.ts) when `whenBusy` is "refuse" and the pool's queue is
 * full, and the pool's own errors (e.g. the worker file missing): neither is a fault of the code.
 */
export async function runTransformation(input: TransformationInput): Promise<TransformationResult> {
  const timeoutMs = input.timeoutMs ?? TRANSFORMATION_TIMEOUT_MS;
  const memoryBytes = input.memoryBytes ?? TRANSFORMATION_MEMORY_BYTES;
  const answer: SandboxAnswer = await runInSandbox(
    {
      code: input.code,
      inputJson: JSON.stringify({ env: input.env ?? {}, request: input.request, context: input.context ?? {} }),
      timeoutMs,
      memoryBytes,
      stackBytes: STACK_BYTES,
      maxConsoleLines: MAX_CONSOLE_LINES,
      maxConsoleChars: MAX_CONSOLE_MESSAGE_CHARS,
    },
    { whenBusy: input.whenBusy ?? "queue" },
  );
  const lines: ConsoleLine[] = answer.lines;
  const fail = (error: string): TransformationResult => ({ ok: false, error, console: [...lines, { type: "error", message: error }], logLevel: "fatal" });
  if ("killed" in answer)
    return fail(explain(answer.killed === "timeout" ? "InternalError: interrupted" : "InternalError: out of memory", timeoutMs, memoryBytes));
  if ("sandboxFailed" in answer) return fail(`InternalError: the sandbox failed (${answer.sandboxFailed})`);
  const { outcome } = answer;
  if ("error" in outcome) return fail(explain(outcome.error, timeoutMs, memoryBytes));
  const request = toRequest("result" in outcome ? outcome.result : undefined, input.request);
  if (typeof request === "string") return fail(request);
  const logLevel = lines.reduce<Exclude<LogLevel, "fatal">>(
    (max, line) => (LEVELS.indexOf(levelOf(line.type)) > LEVELS.indexOf(max) ? levelOf(line.type) : max),
    "info",
  );
  return { ok: true, request, console: lines, logLevel };
}
