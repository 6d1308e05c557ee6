import { afterEach, describe, expect, it } from "vitest";
import { WriterLoad } from "@/lib/ingest/ingest-pressure";

/** One window of 250 ms from `start`: writes of `rows` rows taking `ms` each, `gap` ms apart. */
function window(load: WriterLoad, start: number, rows: number, ms: number, gap: number) {
  for (let t = start; t + ms <= start + 250; t += ms + gap) {
    load.busy(t);
    load.wrote(rows);
    load.idle(t + ms);
  }
  return load.close(start + 250);
}

describe("WriterLoad: when the ingestion writer counts as saturated", () => {
  const loads: WriterLoad[] = [];
  const track = (announced: number[]) => {
    const load = new WriterLoad((share) => announced.push(share));
    loads.push(load);
    return load;
  };
  afterEach(() => {
    // A window with no write stops the measuring timer.
    for (const l of loads.splice(0)) l.close(Number.MAX_SAFE_INTEGER);
  });

  it("announces from the second window in a row that is busy with requests queueing (a burst)", () => {
    const announced: number[] = [];
    const load = track(announced);
    load.busy(0);
    load.idle(0);
    expect(window(load, 0, 24, 5, 0)).toEqual({ share: 1, rowsPerWrite: 24 });
    expect(announced).toEqual([]);
    window(load, 250, 24, 5, 0);
    window(load, 500, 24, 5, 0);
    expect(announced).toEqual([1, 1]);
  });

  it("stays quiet for steady traffic: small writes with the writer idle in between", () => {
    const announced: number[] = [];
    const load = track(announced);
    for (let w = 0; w < 8; w++) {
      const { share, rowsPerWrite } = window(load, w * 250, 10, 3, 6);
      expect(share).toBeLessThan(0.5);
      expect(rowsPerWrite).toBe(10);
    }
    expect(announced).toEqual([]);
  });

  it("stays quiet when the writer is always busy with single rows (no queue behind it)", () => {
    const announced: number[] = [];
    const load = track(announced);
    for (let w = 0; w < 4; w++) window(load, w * 250, 1, 1, 0);
    expect(announced).toEqual([]);
  });

  it("a single slow window is not a burst", () => {
    const announced: number[] = [];
    const load = track(announced);
    window(load, 0, 30, 50, 0);
    window(load, 250, 5, 3, 10);
    window(load, 500, 30, 50, 0);
    expect(announced).toEqual([]);
  });

  it("counts overlapping writes once and carries a write still in flight into the next window", () => {
    const load = track([]);
    load.busy(0);
    load.busy(50);
    load.idle(200);
    expect(load.close(250).share).toBeCloseTo(1, 5); // one write still in flight since 0
    load.idle(300);
    expect(load.close(500).share).toBeCloseTo(50 / 250, 5);
  });
});
