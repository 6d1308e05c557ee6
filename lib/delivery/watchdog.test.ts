/**
 * The progress watchdog's decisions (lib/delivery/watchdog.ts): a stall is due work older than the
 * threshold while the engine, with free places, ran none; it is recovered once, then given up on. The
 * engines here are plain objects whose answers the test sets; the database is not involved (an engine
 * reads it through its own `oldestDueMs`).
 */
import { afterEach, expect, it } from "vitest";
import { startWatchdog, type WatchedEngine } from "@/lib/delivery/watchdog";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

type Knobs = { due: number | null; lastActivityAt: number; busy: boolean; dbDown: boolean; recovered: string[] };

function engine(knobs: Knobs, recover = true): WatchedEngine {
  return {
    name: "jobs",
    oldestDueMs: () => (knobs.dbDown ? Promise.reject(new Error("connect ECONNREFUSED")) : Promise.resolve(knobs.due)),
    lastActivityAt: () => knobs.lastActivityAt,
    busy: () => knobs.busy,
    ...(recover
      ? {
          recover: (why: string) => {
            knobs.recovered.push(why);
            knobs.lastActivityAt = Date.now(); // a new runner took the work
            knobs.due = null;
            return Promise.resolve();
          },
        }
      : {}),
  };
}

function watch(engines: WatchedEngine[]) {
  const conditions: (string | null)[] = [];
  const gaveUp: string[] = [];
  stop = startWatchdog({
    engines,
    db: { query: () => Promise.resolve({}) } as never,
    stallMs: 200,
    checkMs: 20,
    onCondition: (w) => conditions.push(w),
    onGiveUp: (w) => gaveUp.push(w),
  });
  return { conditions, gaveUp };
}

it("recovers an engine whose due work waits while it runs none, and says so until it runs again", async () => {
  const knobs: Knobs = { due: 5000, lastActivityAt: Date.now() - 1000, busy: false, dbDown: false, recovered: [] };
  const { conditions, gaveUp } = watch([engine(knobs)]);
  await sleep(150);
  expect(knobs.recovered).toHaveLength(1);
  expect(knobs.recovered[0]).toMatch(/^jobs: due work has waited 5 s while this worker ran none for 1 s$/);
  expect(conditions[0]).toBe(knobs.recovered[0]);
  await sleep(300);
  expect(conditions.at(-1)).toBeNull();
  expect(gaveUp).toEqual([]);
});

it("is not a stall while the engine is busy, ran something recently, has no old due work, or the database is down", async () => {
  const knobs: Knobs = { due: 5000, lastActivityAt: Date.now() - 1000, busy: true, dbDown: false, recovered: [] };
  const { conditions, gaveUp } = watch([engine(knobs)]);
  await sleep(120);
  knobs.busy = false;
  knobs.lastActivityAt = Date.now() + 10_000; // activity "now" for the rest of this phase
  await sleep(120);
  knobs.lastActivityAt = Date.now() - 1000;
  knobs.due = 100; // younger than the threshold
  await sleep(120);
  knobs.due = 5000;
  knobs.dbDown = true;
  await sleep(120);
  expect(knobs.recovered).toEqual([]);
  expect(conditions).toEqual([]);
  expect(gaveUp).toEqual([]);
});

it("gives up on a stall that its recovery did not end, and at once on an engine without a recovery of its own", async () => {
  const stuck: Knobs = { due: 5000, lastActivityAt: Date.now() - 1000, busy: false, dbDown: false, recovered: [] };
  const e = engine(stuck);
  // A recovery that does not help.
  e.recover = (why) => {
    stuck.recovered.push(why);
    return Promise.resolve();
  };
  const first = watch([e]);
  await sleep(500);
  expect(stuck.recovered).toHaveLength(1);
  expect(first.gaveUp).toHaveLength(1);
  expect(first.gaveUp[0]).toMatch(/^jobs: due work has waited/);
  await stop!();

  const plain: Knobs = { due: 5000, lastActivityAt: Date.now() - 1000, busy: false, dbDown: false, recovered: [] };
  const second = watch([engine(plain, false)]);
  await sleep(100);
  expect(second.gaveUp).toHaveLength(1);
  expect(second.conditions).toEqual([second.gaveUp[0]]);
});
