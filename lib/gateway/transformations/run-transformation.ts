/**
 * Runs a transformation: JavaScript that calls `addHandler("transform", (request, context) => request)`,
 * in a QuickJS sandbox (quickjs-emscripten). shared/reference/gateway-product.md §3 "Transformation runtime".
 *
 * - No IO: no `require`, `fetch`, timers, `import`; only the language's built-ins plus `console.*`
 *   (captured), `addHandler` and `process.env` (the transformation's env, strings).
 * - Limits per run: {@link TRANSFORMATION_TIMEOUT_MS} of wall-clock time (QuickJS interrupt handler,
 *   covering both the top-level code and the handler) and {@link TRANSFORMATION_MEMORY_BYTES} of
 *   runtime memory (QuickJS memory limit; the request given to the code counts against it).
 * - Framework-free: used by `PUT /transformations/run` and, per event, by the pipeline.
 *
 * One QuickJS WebAssembly module is loaded per process (getQuickJS()); every run gets a fresh runtime
 * and context, disposed afterwards, so runs share nothing.
 */
import { getQuickJS, newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule, shouldInterruptAfterDeadline } from "quickjs-emscripten";

/** The request a transformation sees and returns (the product's `request` object). */
export type TransformRequest = {
  headers: Record<string, string>;
  body: unknown;
  path: string;
  /** Raw query string without "?" ("" when none). */
  query: string;
  parsed_query: Record<string, unknown>;
};

export type ConsoleLine = { type: "log" | "info" | "warn" | "error" | "debug"; message: string };
export type LogLevel = "debug" | "info" | "warn" | "error" | "fatal";

export type TransformationResult =
  | { ok: true; request: TransformRequest; console: ConsoleLine[]; logLevel: Exclude<LogLevel, "fatal"> }
  | { ok: false; error: string; console: ConsoleLine[]; logLevel: "fatal" };

export type TransformationInput = {
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
};

/** Wall-clock limit of one run, ms. */
export const TRANSFORMATION_TIMEOUT_MS = 1000;
/** Memory limit of one run's QuickJS runtime, bytes. */
export const TRANSFORMATION_MEMORY_BYTES = 5 * 1024 * 1024;
/** Stack limit of one run, bytes: deep recursion ends in "InternalError: stack overflow" before the host's own stack runs out. */
const STACK_BYTES = 256 * 1024;
/** Console lines kept per run; later lines are dropped (one notice says so). */
export const MAX_CONSOLE_LINES = 100;
/** Characters kept of one console message. */
export const MAX_CONSOLE_MESSAGE_CHARS = 4096;

let quickjs: Promise<QuickJSWASMModule> | undefined;

/** Everything here runs inside the sandbox; it evaluates to the function that calls the handler. */
const PRELUDE = `(() => {
  const hostLog = globalThis.__hostLog;
  delete globalThis.__hostLog;
  const input = globalThis.__input;
  delete globalThis.__input;
  const format = (a) => {
    if (typeof a === "string") return a;
    if (a instanceof Error) return a.name + ": " + a.message;
    if (a === undefined || typeof a === "function" || typeof a === "symbol" || typeof a === "bigint") return String(a);
    try { return JSON.stringify(a); } catch { return String(a); }
  };
  const logger = (type) => (...args) => hostLog(type, args.map(format).join(" "));
  globalThis.console = { log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"), debug: logger("debug") };
  let handler = null;
  globalThis.addHandler = (name, fn) => {
    if (name !== "transform") throw new TypeError('addHandler: only the "transform" handler exists, got ' + String(name));
    if (typeof fn !== "function") throw new TypeError("addHandler: the handler must be a function");
    handler = fn;
  };
  const parsed = JSON.parse(input);
  globalThis.process = { env: parsed.env };
  return () => {
    if (!handler) throw new Error('The code never called addHandler("transform", (request, context) => …)');
    const result = handler(parsed.request, parsed.context);
    if (result && typeof result.then === "function") throw new TypeError("The transform handler must return a request object, not a Promise (async code is not supported)");
    return JSON.stringify(result === undefined ? {} : { result });
  };
})()`;

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
  const headers = result.headers === undefined ? input.headers : Object.fromEntries(Object.entries(result.headers).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return {
    headers,
    body: result.body === undefined ? input.body : result.body,
    path: (result.path as string | undefined) ?? input.path,
    query: (result.query as string | null | undefined) ?? (result.query === null ? "" : input.query),
    parsed_query: (result.parsed_query as Record<string, unknown> | undefined) ?? input.parsed_query,
  };
}

/** "Name: message\n stack" of an error thrown in the VM (or the thrown value as text). */
function describeError(vm: QuickJSContext, handle: QuickJSHandle): string {
  let raw: unknown;
  try {
    raw = vm.dump(handle);
  } catch {
    raw = null;
  }
  if (isObject(raw) && (typeof raw.message === "string" || typeof raw.name === "string")) {
    const head = `${raw.name ?? "Error"}: ${raw.message ?? ""}`;
    // At most 10 frames (a stack overflow has thousands).
    const stack = typeof raw.stack === "string" ? raw.stack.trimEnd().split("\n").slice(0, 10).join("\n") : "";
    return stack ? `${head}\n${stack}` : head;
  }
  if (raw === null || raw === undefined) return "InternalError: out of memory";
  return `Uncaught ${typeof raw === "string" ? raw : JSON.stringify(raw)}`;
}

/** The limit a VM error stands for, in the words the caller sees. */
function explain(message: string, timeoutMs: number, memoryBytes: number): string {
  if (/^InternalError: interrupted/.test(message)) return `Timeout: the transformation ran longer than ${timeoutMs} ms`;
  if (/^InternalError: out of memory/.test(message)) return `Out of memory: the transformation used more than ${memoryBytes} bytes`;
  return message;
}

/**
 * Runs `code` on `request` with `env` and `context`. Never throws for the code's own faults: a throw,
 * a syntax error, a falsy or non-object result, a Promise, no `addHandler("transform", …)` call, more
 * than `timeoutMs` (default 1000 ms) or more than `memoryBytes` (default 5 MiB) give
 * `{ok: false, logLevel: "fatal", error}` with the error also as the last console line (type "error").
 * A success has `logLevel` = the highest console level used (`log` counts as info; "info" when nothing
 * was logged). Console lines written before a failure are kept.
 */
export async function runTransformation(input: TransformationInput): Promise<TransformationResult> {
  const timeoutMs = input.timeoutMs ?? TRANSFORMATION_TIMEOUT_MS;
  const memoryBytes = input.memoryBytes ?? TRANSFORMATION_MEMORY_BYTES;
  const lines: ConsoleLine[] = [];
  const fail = (error: string): TransformationResult => ({ ok: false, error, console: [...lines, { type: "error", message: error }], logLevel: "fatal" });

  quickjs ??= getQuickJS();
  const module = await quickjs;
  let outcome: { result?: unknown } | { error: string };
  try {
    outcome = evaluate(module, input, lines, timeoutMs, memoryBytes);
  } catch (err) {
    // The WebAssembly module itself failed (an abort inside QuickJS): load a fresh one for later runs.
    quickjs = newQuickJSWASMModule();
    return fail(`InternalError: the sandbox failed (${(err as Error)?.message ?? String(err)})`);
  }
  if ("error" in outcome) return fail(explain(outcome.error, timeoutMs, memoryBytes));
  const request = toRequest("result" in outcome ? outcome.result : undefined, input.request);
  if (typeof request === "string") return fail(request);
  const logLevel = lines.reduce<Exclude<LogLevel, "fatal">>((max, line) => (LEVELS.indexOf(levelOf(line.type)) > LEVELS.indexOf(max) ? levelOf(line.type) : max), "info");
  return { ok: true, request, console: lines, logLevel };
}

/**
 * Bytes of the module's WebAssembly memory. QuickJS's own accounting (setMemoryLimit) only sees the size
 * of each single allocation in this build (no malloc_usable_size), so growth of the whole heap during
 * a run is watched as well. undefined when the module does not expose its heap.
 */
function heapBytes(module: QuickJSWASMModule): number | undefined {
  const heap = (module as unknown as { module?: { HEAPU8?: Uint8Array } }).module?.HEAPU8;
  return heap?.buffer.byteLength;
}

/** One run in a fresh runtime and context; every handle is disposed before returning. */
function evaluate(module: QuickJSWASMModule, input: TransformationInput, lines: ConsoleLine[], timeoutMs: number, memoryBytes: number): { result?: unknown } | { error: string } {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  const pastDeadline = shouldInterruptAfterDeadline(Date.now() + timeoutMs);
  const heapAtStart = heapBytes(module);
  let outOfMemory = false;
  runtime.setInterruptHandler((rt) => {
    if (heapAtStart !== undefined && (heapBytes(module) ?? 0) - heapAtStart > memoryBytes) outOfMemory = true;
    return outOfMemory || pastDeadline(rt);
  });
  const vm = runtime.newContext();
  const failure = (error: string) => ({ error: outOfMemory && /^InternalError: interrupted/.test(error) ? "InternalError: out of memory" : error });
  try {
    let dropped = false;
    const hostLog = vm.newFunction("__hostLog", (typeHandle, messageHandle) => {
      const type = vm.getString(typeHandle) as ConsoleLine["type"];
      const message = vm.getString(messageHandle);
      if (lines.length < MAX_CONSOLE_LINES) {
        lines.push({ type, message: message.length > MAX_CONSOLE_MESSAGE_CHARS ? `${message.slice(0, MAX_CONSOLE_MESSAGE_CHARS)}…` : message });
      } else if (!dropped) {
        dropped = true;
        lines[MAX_CONSOLE_LINES - 1] = { type: "warn", message: `Console output cut after ${MAX_CONSOLE_LINES - 1} lines` };
      }
    });
    vm.setProp(vm.global, "__hostLog", hostLog);
    hostLog.dispose();
    const inputJson = vm.newString(JSON.stringify({ env: input.env ?? {}, request: input.request, context: input.context ?? {} }));
    vm.setProp(vm.global, "__input", inputJson);
    inputJson.dispose();

    const prelude = vm.evalCode(PRELUDE, "prelude.js", { type: "global" });
    if (prelude.error) {
      const error = describeError(vm, prelude.error);
      prelude.error.dispose();
      return failure(error);
    }
    const runner = prelude.value;
    try {
      const user = vm.evalCode(input.code, "transformation.js", { type: "global" });
      if (user.error) {
        const error = describeError(vm, user.error);
        user.error.dispose();
        return failure(error);
      }
      user.value.dispose();
      const called = vm.callFunction(runner, vm.undefined);
      if (called.error) {
        const error = describeError(vm, called.error);
        called.error.dispose();
        return failure(error);
      }
      const json = vm.getString(called.value);
      called.value.dispose();
      return JSON.parse(json) as { result?: unknown };
    } finally {
      runner.dispose();
    }
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}
