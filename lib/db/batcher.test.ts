import { describe, expect, it } from "vitest";
import { Batcher } from "@/lib/db/batcher";

/** A batch run the test finishes by hand: each call is recorded with its items and a way to end it. */
function manualRun<I, O>(result: (item: I) => O | Error) {
  const calls: { items: I[]; finish: () => void; fail: (err: Error) => void }[] = [];
  const run = (items: I[]) =>
    new Promise<O[]>((resolve, reject) => {
      calls.push({
        items,
        finish: () => {
          const out = items.map(result);
          const bad = out.find((o) => o instanceof Error);
          if (bad) reject(bad);
          else resolve(out as O[]);
        },
        fail: reject,
      });
    });
  return { calls, run };
}

const settle = () => new Promise((r) => setImmediate(r));

describe("Batcher: the one group-commit mechanism (lib/db/batcher.ts)", () => {
  it("runs an item at once when idle: no fixed wait, the run starts in the submitting tick", async () => {
    const { calls, run } = manualRun<number, number>((n) => n * 10);
    const batcher = new Batcher(run, 100, 1);
    const answer = batcher.submit(7);
    // Synchronously after submit: the batch of one is already running, no timer was involved.
    expect(calls.map((c) => c.items)).toEqual([[7]]);
    calls[0].finish();
    await expect(answer).resolves.toBe(70);
  });

  it("gathers what arrives while a batch is in flight into the next batch, each caller getting its own result", async () => {
    const { calls, run } = manualRun<number, string>((n) => `r${n}`);
    const batcher = new Batcher(run, 100, 1);
    const first = batcher.submit(1);
    const rest = [2, 3, 4, 5].map((n) => batcher.submit(n));
    // One batch in flight at most: 2..5 wait for it.
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0].finish();
    await expect(first).resolves.toBe("r1");
    await settle();
    // Flushed as soon as the previous batch committed, as one batch.
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4, 5]]);
    calls[1].finish();
    await expect(Promise.all(rest)).resolves.toEqual(["r2", "r3", "r4", "r5"]);
    expect(calls).toHaveLength(2);
  });

  it("cuts batches at maxBatch items", async () => {
    const { calls, run } = manualRun<number, number>((n) => n);
    const batcher = new Batcher(run, 3, 1);
    const answers = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => batcher.submit(n));
    for (let i = 0; i < 4; i++) {
      await settle();
      calls[i]?.finish();
    }
    await expect(Promise.all(answers)).resolves.toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
  });

  it("runs up to maxInFlight batches at once", async () => {
    const { calls, run } = manualRun<number, number>((n) => n);
    const batcher = new Batcher(run, 100, 2);
    const answers = [1, 2, 3].map((n) => batcher.submit(n));
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    calls[1].finish();
    await settle();
    expect(calls.map((c) => c.items)).toEqual([[1], [2], [3]]);
    calls[0].finish();
    calls[2].finish();
    await expect(Promise.all(answers)).resolves.toEqual([1, 2, 3]);
  });

  it("isolates a bad item: a failed batch is retried item by item and only the bad one fails", async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        if (items.includes(3)) throw new Error(`bad item in [${items.join(",")}]`);
        return items.map((n) => n * 2);
      },
      100,
      1,
    );
    const answers = [1, 2, 3, 4].map((n) =>
      batcher.submit(n).then(
        (v) => ({ ok: v }),
        (e: Error) => ({ err: e.message }),
      ),
    );
    expect(await Promise.all(answers)).toEqual([{ ok: 2 }, { ok: 4 }, { err: "bad item in [3]" }, { ok: 8 }]);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
    // The batcher keeps serving after a failure.
    await expect(batcher.submit(5)).resolves.toBe(10);
  });

  it("tells its load observer when it is busy and how many items each batch took (not the one-by-one retries)", async () => {
    const events: string[] = [];
    const load = { busy: () => events.push("busy"), wrote: (n: number) => events.push(`wrote ${n}`), idle: () => events.push("idle") };
    const batcher = new Batcher<number, number>(
      async (items) => {
        await new Promise((r) => setTimeout(r, 2));
        if (items.includes(-1)) throw new Error("bad");
        return items;
      },
      100,
      1,
      load,
    );
    const answers = [1, 2, -1, 3].map((n) => batcher.submit(n).catch(() => null));
    expect(await Promise.all(answers)).toEqual([1, 2, null, 3]);
    expect(events).toEqual(["busy", "wrote 1", "wrote 3", "idle"]);
  });
});
