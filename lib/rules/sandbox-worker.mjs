/**
 * The transformation sandbox's worker thread (piscina task, docs/gateway-api.md#transformation-runtime):
 * evaluates one transformation in a fresh QuickJS runtime and context and answers what the code
 * returned or threw, with its console lines. lib/rules/sandbox-pool.ts runs it;
 * run-transformation.ts turns the answer into a TransformationResult.
 *
 * Plain JavaScript on purpose: the pool loads it by absolute path both under tsx and from Next.js's
 * server bundle, where a TypeScript file could not be imported.
 *
 * Task:   {code, inputJson: JSON of {env, request, context}, timeoutMs, memoryBytes, stackBytes,
 *          maxConsoleLines, maxConsoleChars}
 * Answer: {outcome: {result?} | {error}, lines: [{type, message}]} or {sandboxFailed: message} when the
 *         WebAssembly module itself failed.
 */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, shouldInterruptAfterDeadline } from "quickjs-emscripten";

/** WebAssembly page size, bytes. */
const PAGE = 64 * 1024;
/** Pages the QuickJS module starts with (its declared minimum, 16 MiB; mostly free heap). */
const INITIAL_PAGES = 256;

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

/**
 * The thread's QuickJS module and the per-run memory limit it was made for. Its WebAssembly memory has a
 * fixed maximum: 16 MiB plus the memory limit. QuickJS's own accounting (setMemoryLimit) only sees the size
 * of each single allocation in this build (no malloc_usable_size), and its interrupt handler runs too
 * rarely to catch a loop of large allocations (`a.push("x".repeat(1e5))` grew an uncapped heap to 740 MB
 * before the first check); with the cap, malloc fails and the code gets "InternalError: out of memory"
 * at once. A new module (a fresh memory) replaces it after a failure of the module itself.
 */
let quickjs;
let quickjsFor;

/** The thread's module for runs limited to `memoryBytes`. */
function moduleFor(memoryBytes) {
  if (!quickjs || quickjsFor !== memoryBytes) {
    const wasmMemory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: INITIAL_PAGES + Math.ceil(memoryBytes / PAGE) });
    quickjs = newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory }));
    quickjsFor = memoryBytes;
  }
  return quickjs;
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** "Name: message\n stack" of an error thrown in the VM (or the thrown value as text). */
function describeError(vm, handle) {
  let raw;
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

/** One run in a fresh runtime and context; every handle is disposed before returning. */
function evaluate(module, task, lines) {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(task.memoryBytes);
  runtime.setMaxStackSize(task.stackBytes);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + task.timeoutMs));
  const vm = runtime.newContext();
  try {
    let dropped = false;
    const hostLog = vm.newFunction("__hostLog", (typeHandle, messageHandle) => {
      const type = vm.getString(typeHandle);
      const message = vm.getString(messageHandle);
      if (lines.length < task.maxConsoleLines) {
        lines.push({ type, message: message.length > task.maxConsoleChars ? `${message.slice(0, task.maxConsoleChars)}…` : message });
      } else if (!dropped) {
        dropped = true;
        lines[task.maxConsoleLines - 1] = { type: "warn", message: `Console output cut after ${task.maxConsoleLines - 1} lines` };
      }
    });
    vm.setProp(vm.global, "__hostLog", hostLog);
    hostLog.dispose();
    const inputJson = vm.newString(task.inputJson);
    vm.setProp(vm.global, "__input", inputJson);
    inputJson.dispose();

    const prelude = vm.evalCode(PRELUDE, "prelude.js", { type: "global" });
    if (prelude.error) {
      const error = describeError(vm, prelude.error);
      prelude.error.dispose();
      return { error };
    }
    const runner = prelude.value;
    try {
      const user = vm.evalCode(task.code, "transformation.js", { type: "global" });
      if (user.error) {
        const error = describeError(vm, user.error);
        user.error.dispose();
        return { error };
      }
      user.value.dispose();
      const called = vm.callFunction(runner, vm.undefined);
      if (called.error) {
        const error = describeError(vm, called.error);
        called.error.dispose();
        return { error };
      }
      const json = vm.getString(called.value);
      called.value.dispose();
      return JSON.parse(json);
    } finally {
      runner.dispose();
    }
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}

/** The piscina task: runs one transformation (see the file's docstring for the task and answer shapes). */
export default async function runInSandbox(task) {
  const module = await moduleFor(task.memoryBytes);
  const lines = [];
  try {
    return { outcome: evaluate(module, task, lines), lines };
  } catch (err) {
    // The WebAssembly module itself failed (an abort inside QuickJS): a fresh one for later runs.
    quickjs = undefined;
    return { sandboxFailed: err?.message ?? String(err), lines };
  }
}

// Loaded before the thread reports ready (piscina imports this file first), so a run with the default
// limit (run-transformation.ts TRANSFORMATION_MEMORY_BYTES, 5 MiB) does not pay for it.
await moduleFor(5 * 1024 * 1024);
