/**
 * The transformation sandbox off the request thread (docs/gateway-api.md#transformation-runtime): the caller's event loop stays free
 * during a run, the main thread's wall-clock limit ends a run the sandbox does not stop, concurrency is
 * bounded (the API is refused beyond the queue, the pipeline waits), and memory bombs neither grow the
 * process nor keep threads alive.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// One thread and a queue of one, so the bounds are reached with three runs; idle threads exit fast.
process.env.TRANSFORMATION_THREADS = "1";
process.env.TRANSFORMATION_QUEUE_MAX = "1";
process.env.TRANSFORMATION_THREAD_IDLE_MS = "300";

type RunModule = typeof import("@/lib/rules/run-transformation");
type PoolModule = typeof import("@/lib/rules/sandbox-pool");
let run: RunModule;
let pool: PoolModule;
beforeAll(async () => {
  run = await import("@/lib/rules/run-transformation");
  pool = await import("@/lib/rules/sandbox-pool");
});
afterAll(async () => {
  await pool.closeSandboxPool?.();
});

const request = { headers: {}, body: { a: 1 }, path: "/", query: "", parsed_query: {} };
const LOOP = `addHandler("transform", (r) => { while (true) {} })`;
const IDENTITY = `addHandler("transform", (r) => r)`;
const TIMEOUT = "Timeout: the transformation ran longer than 1000 ms";

/** Largest delay of a 20 ms timer on this thread while `work` runs, ms. */
async function eventLoopLag(work: Promise<unknown>): Promise<number> {
  let worst = 0;
  let done = false;
  void work.finally(() => (done = true));
  while (!done) {
    const asked = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    worst = Math.max(worst, Date.now() - asked - 20);
  }
  return worst;
}

describe("transformation sandbox pool", () => {
  it("an endless loop does not block the caller's event loop; it ends with the timeout result", async () => {
    const result = run.runTransformation({ code: LOOP, request });
    // The old in-process sandbox held this thread for the whole second.
    expect(await eventLoopLag(result)).toBeLessThan(500);
    const r = await result;
    expect(r).toMatchObject({ ok: false, logLevel: "fatal", error: TIMEOUT });
  });

  it("the main thread ends a run the sandbox does not stop (outside wall-clock limit), and the pool goes on", async () => {
    const task = {
      code: LOOP,
      inputJson: JSON.stringify({ env: {}, request, context: {} }),
      memoryBytes: 5 << 20,
      stackBytes: 256 << 10,
      maxConsoleLines: 100,
      maxConsoleChars: 4096,
    };
    const started = Date.now();
    // QuickJS's own interrupt would fire only after 60 s: the 1 s limit is the main thread's.
    const answer = await pool.runInSandbox({ ...task, timeoutMs: 60_000 }, { whenBusy: "queue", hardLimitMs: 1000 });
    expect(answer).toEqual({ killed: "timeout", lines: [] });
    expect(Date.now() - started).toBeLessThan(10_000);
    const after = await run.runTransformation({ code: IDENTITY, request });
    expect(after).toMatchObject({ ok: true, request });
  });

  it("beyond the threads and the queue the API's runs are refused at once; the pipeline's wait", async () => {
    const refused = [0, 1, 2].map(() =>
      run.runTransformation({ code: LOOP, request, whenBusy: "refuse" }).then(
        (r) => r,
        (e: unknown) => e,
      ),
    );
    const third = await Promise.race([refused[2], new Promise((r) => setTimeout(() => r("still waiting"), 800))]);
    const message = "The transformation runtime is busy: 1 runs in progress and 1 waiting; try again shortly";
    expect(third).toMatchObject({ code: "RATE_LIMITED", message, details: { data: { message, running: 1, queued: 1, retry_after: 1 }, retryAfterSeconds: 1 } });
    expect(await refused[0]).toMatchObject({ ok: false, error: TIMEOUT });
    expect(await refused[1]).toMatchObject({ ok: false, error: TIMEOUT });

    const queued = await Promise.all([0, 1, 2].map(() => run.runTransformation({ code: LOOP, request, timeoutMs: 200 })));
    expect(queued.map((r) => r.ok || r.error)).toEqual(Array(3).fill("Timeout: the transformation ran longer than 200 ms"));
    expect(pool.sandboxLoad()).toMatchObject({ running: 0, queued: 0, threads: 1 });
  });

  it("allocation-heavy runs end as out of memory without growing the process; idle threads exit", async () => {
    await run.runTransformation({ code: IDENTITY, request });
    const before = process.memoryUsage().rss;
    const results = [];
    for (let i = 0; i < 6; i++) {
      results.push(
        await run.runTransformation({ code: `addHandler("transform", (r) => { const a = []; while (true) a.push("x".repeat(1e5) + a.length); })`, request }),
      );
    }
    // The old in-process sandbox grew by about 700 MB here (its WebAssembly heap never shrinks); now 16 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    for (const r of results) expect(r).toMatchObject({ ok: false, error: `Out of memory: the transformation used more than ${5 * 1024 * 1024} bytes` });
    const deadline = Date.now() + 10_000;
    while (pool.sandboxLoad().alive > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(pool.sandboxLoad().alive).toBe(0);
  });
});
