/**
 * The transformation sandbox's thread pool (docs/gateway-api.md#transformation-runtime): one
 * piscina pool per process (web and worker), created on first use, runs sandbox-worker.mjs.
 *
 * - Off the request thread: a run never blocks the process's event loop, so ingestion and other API
 *   calls answer while transformations loop.
 * - Bounded concurrency: at most {@link Config.transformationThreads} runs at once; callers that may be
 *   refused (the API) wait in a queue of at most {@link Config.transformationQueueMax} and beyond it get
 *   {@link TransformationBusyError}; the pipeline waits for a thread instead (its fan-out runs one
 *   transformation at a time per drain, so its queue stays short).
 * - Wall-clock limit from outside: QuickJS's interrupt handler stops the code at `timeoutMs` inside the
 *   thread; if the thread has not answered {@link HARD_LIMIT_GRACE_MS} later (host-side hang, code that
 *   escaped the interrupt), the main thread aborts the task and piscina terminates the thread.
 * - Memory: each thread's QuickJS heap is capped (16 MiB + the run's memory limit, sandbox-worker.mjs),
 *   each thread's V8 heap by `resourceLimits`, and threads idle for
 *   {@link Config.transformationThreadIdleMs} exit, which returns their memory to the system.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import Piscina from "piscina";
import { AppError } from "@/lib/http/errors";
import { getConfig } from "@/lib/config";

/** Time the main thread allows beyond a run's own `timeoutMs` (thread start, answer) before it kills the thread, ms. */
const HARD_LIMIT_GRACE_MS = 2000;
/**
 * Time the main thread also allows a run that has to wait for a new thread to start (and load QuickJS) before
 * it kills the thread, ms: a cold start measured 3.3 s on a loaded 2-core machine, past the grace alone, so
 * the first run on every new thread was killed as a timeout. The code's own limit is unchanged (QuickJS's
 * interrupt counts from the start of the run).
 */
const THREAD_START_GRACE_MS = 15_000;
/** V8 old-generation limit of one sandbox thread, MiB (the inputs and answers pass through it). */
const THREAD_OLD_GENERATION_MB = 64;

/** The task sandbox-worker.mjs takes (see its docstring). */
type SandboxTask = {
  code: string;
  /** JSON of `{env, request, context}`. */
  inputJson: string;
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxConsoleLines: number;
  maxConsoleChars: number;
};

type SandboxLine = { type: "log" | "info" | "warn" | "error" | "debug"; message: string };

/** What a sandbox run answered (console lines written before it ended); `killed` when the main thread or V8 ended the thread. */
export type SandboxAnswer =
  | { outcome: { result?: unknown } | { error: string }; lines: SandboxLine[] }
  | { sandboxFailed: string; lines: SandboxLine[] }
  | { killed: "timeout" | "memory"; lines: [] };

/**
 * The API's run was refused: every thread is busy and the queue is full. Not a fault of the code: a
 * RATE_LIMITED AppError (retry after 1 s) whose `data` holds the message and the pool's `running` and
 * `queued` counts, as the gateway answers it (docs/gateway-api.md "Transformation runtime").
 */
export function transformationBusy(running: number, queued: number): AppError {
  const message = `The transformation runtime is busy: ${running} runs in progress and ${queued} waiting; try again shortly`;
  return new AppError("RATE_LIMITED", message, { data: { message, running, queued, retry_after: 1 }, retryAfterSeconds: 1 });
}

type PoolState = { pool: Piscina; threads: number; queueMax: number; running: number; waiting: (() => void)[] };

/** One pool per process, also when Next.js bundles this module into several chunks. */
const GLOBAL_KEY = Symbol.for("hookyard.transformationPool");
const globals = globalThis as unknown as Record<symbol, PoolState | undefined>;

/**
 * sandbox-worker.mjs by absolute path. From process.cwd() (the checkout, where `npm start`, the tests
 * and Next.js run): under Next.js this module is bundled and its own location says nothing about the
 * source tree.
 */
function sandboxWorkerFile(): string {
  const file = path.join(process.cwd(), "lib", "rules", "sandbox-worker.mjs");
  if (!existsSync(file)) throw new Error(`The transformation sandbox's worker file is missing: ${file} (start Hookyard from its checkout)`);
  return file;
}

function state(): PoolState {
  let s = globals[GLOBAL_KEY];
  if (!s) {
    const config = getConfig();
    const threads = config.transformationThreads;
    s = {
      pool: new Piscina({
        filename: sandboxWorkerFile(),
        minThreads: 0,
        maxThreads: threads,
        idleTimeout: config.transformationThreadIdleMs,
        concurrentTasksPerWorker: 1,
        resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      }),
      threads,
      queueMax: config.transformationQueueMax,
      running: 0,
      waiting: [],
    };
    globals[GLOBAL_KEY] = s;
  }
  return s;
}

/** This process's pool: runs in progress, runs waiting, the thread limit, and threads alive now (0 before first use). */
export function sandboxLoad(): { running: number; queued: number; threads: number; alive: number } {
  const s = globals[GLOBAL_KEY];
  return {
    running: s?.running ?? 0,
    queued: s?.waiting.length ?? 0,
    threads: s?.threads ?? getConfig().transformationThreads,
    alive: s?.pool.threads.length ?? 0,
  };
}

/** Takes a thread slot, waiting if all are taken; `refuse` throws {@link transformationBusy} when the queue is full. */
async function acquire(s: PoolState, refuse: boolean): Promise<void> {
  if (s.running < s.threads) {
    s.running++;
    return;
  }
  if (refuse && s.waiting.length >= s.queueMax) throw transformationBusy(s.running, s.waiting.length);
  // release() hands its slot over (running stays counted).
  await new Promise<void>((resolve) => s.waiting.push(resolve));
}

function release(s: PoolState): void {
  const next = s.waiting.shift();
  if (next) next();
  else s.running--;
}

/**
 * Runs `task` on a sandbox thread. `whenBusy`: "queue" waits for a thread however long the queue
 * (the pipeline); "refuse" throws {@link TransformationBusyError} when the queue is full (the API).
 * `hardLimitMs` (default `task.timeoutMs` + {@link HARD_LIMIT_GRACE_MS}, plus {@link THREAD_START_GRACE_MS}
 * when no started thread is free for the run) counts from the moment a thread slot is taken; past it the
 * thread is terminated and the answer is `{killed: "timeout"}`. A thread that
 * exceeds its V8 heap limit answers `{killed: "memory"}`. Other failures of the pool itself throw.
 */
export async function runInSandbox(task: SandboxTask, options: { whenBusy: "queue" | "refuse"; hardLimitMs?: number }): Promise<SandboxAnswer> {
  const s = state();
  await acquire(s, options.whenBusy === "refuse");
  const abort = new AbortController();
  // Fewer threads alive than runs holding a slot (this one included): this run waits for a thread to start.
  const starting = s.pool.threads.length < s.running;
  const timer = setTimeout(() => abort.abort(), options.hardLimitMs ?? task.timeoutMs + HARD_LIMIT_GRACE_MS + (starting ? THREAD_START_GRACE_MS : 0));
  try {
    return (await s.pool.run(task, { signal: abort.signal })) as SandboxAnswer;
  } catch (err) {
    if (abort.signal.aborted) return { killed: "timeout", lines: [] };
    if ((err as { code?: string })?.code === "ERR_WORKER_OUT_OF_MEMORY") return { killed: "memory", lines: [] };
    throw err;
  } finally {
    clearTimeout(timer);
    release(s);
  }
}

/** Ends the pool's threads (tests, shutdown); the next run creates a new pool. */
export async function closeSandboxPool(): Promise<void> {
  const s = globals[GLOBAL_KEY];
  globals[GLOBAL_KEY] = undefined;
  await s?.pool.destroy();
}
