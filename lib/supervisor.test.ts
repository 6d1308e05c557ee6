/**
 * The supervisor's restart policy (docs/architecture.md#processes, lib/supervisor.ts) with real child processes: a part that
 * dies is started again after a backoff, its restarts are counted and shown, and one that keeps dying
 * spends its budget and makes the supervisor give up.
 */
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { Part, RESTART_BUDGET, type RunningPart } from "@/lib/supervisor";

/** A child that lives `ms` milliseconds (then exits with code 3), as a RunningPart. */
function child(ms: number): Promise<RunningPart> {
  const c = spawn(process.execPath, ["-e", `setTimeout(() => process.exit(3), ${ms})`]);
  const exited = new Promise<string>((r) => c.once("exit", (code, signal) => r(signal ? `was killed (${signal})` : `exited with code ${code}`)));
  return Promise.resolve({ pid: c.pid!, exited, stop: async () => void (c.kill("SIGTERM"), await exited) });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("restarts a part killed with SIGKILL, logs why, and counts the restart", async () => {
  const lines: string[] = [];
  let gaveUp = false;
  const part = new Part("worker", () => child(60_000), { log: (m) => lines.push(m), onGiveUp: () => (gaveUp = true) });
  await part.start();
  const first = part.health().pid!;
  process.kill(first, "SIGKILL");
  for (let i = 0; i < 100 && part.health().restarts === 0; i++) await sleep(50);
  const h = part.health();
  expect(h).toMatchObject({ state: "up", restarts: 1, last_exit: "was killed (SIGKILL)" });
  expect(h.pid).not.toBe(first);
  expect(lines[0]).toBe("worker was killed (SIGKILL); restarting it in 0.5 s");
  expect(gaveUp).toBe(false);
  await part.stop();
  expect(part.health().state).toBe("stopped");
});

it("backs off more after each crash and gives up once the restart budget is spent", async () => {
  const lines: string[] = [];
  let gaveUp: string | null = null;
  let launches = 0;
  // Dies at once, every time; the budget's backoff would take minutes, so the clock is not waited on:
  // each launch after the first fails, which counts the same as a crash.
  const part = new Part("web", async () => (launches++ === 0 ? child(10) : Promise.reject(new Error("port taken"))), {
    log: (m) => lines.push(m),
    onGiveUp: (why) => (gaveUp = why),
  });
  const realSetTimeout = globalThis.setTimeout;
  // Backoffs of 0.5 s, 1 s, 2 s… pass instantly here.
  globalThis.setTimeout = ((fn: () => void) => realSetTimeout(fn, 1)) as typeof setTimeout;
  try {
    await part.start();
    for (let i = 0; i < 200 && gaveUp === null; i++) await new Promise((r) => realSetTimeout(r, 20));
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  expect(gaveUp).toMatch(new RegExp(`restarted ${RESTART_BUDGET} times in 5 minutes, giving up$`));
  expect(launches).toBe(RESTART_BUDGET + 1);
  expect(lines.map((l) => l.match(/in ([\d.]+) s$/)?.[1])).toEqual(["0.5", "1.0", "2.0", "4.0", "8.0", "15.0", "15.0", "15.0", "15.0", "15.0"]);
  expect(lines[1]).toBe("web could not restart (port taken); restarting it in 1.0 s");
  expect(part.health().state).toBe("down");
});
