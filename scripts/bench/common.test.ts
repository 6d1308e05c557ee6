/**
 * Smoke test of the benches' shared parts (seconds, no database): the sink's deliberate failures
 * (`/open/<lane>?fail=<n>`, used by npm run soak) fail a send's first delivery once only, even after its
 * arrivals were taken, and the /proc reading gives this process's memory and CPU.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Sink, startSink, usageByPart } from "./common";

let sink: Sink;
beforeAll(async () => {
  sink = await startSink();
});
afterAll(() => {
  sink.process.kill();
});

const deliver = async (seq: number) => (await fetch(`${sink.url}/open/lane?fail=2`, { method: "POST", body: JSON.stringify({ bench_id: `t:${seq}` }) })).status;

it("fails the first delivery of every n-th send once, records only the delivered ones, and keeps the failure across takes", async () => {
  expect([await deliver(0), await deliver(1), await deliver(0)]).toEqual([503, 200, 200]);
  const first = await sink.take("lane/t");
  expect([...first.seqs.keys()].sort()).toEqual([0, 1]);
  expect(first.failed).toBe(1);
  // A late duplicate after the take is delivered, not failed again.
  expect(await deliver(0)).toBe(200);
  const second = await sink.take("lane/t");
  expect([...second.seqs.keys()]).toEqual([0]);
  expect(second.failed).toBe(0);
});

it.runIf(process.platform === "linux")("reads this process's memory and CPU from /proc", () => {
  const self = usageByPart(new Map([[process.pid, "self"]])).get("self");
  expect(self?.processes).toBeGreaterThanOrEqual(1);
  expect(self!.rss).toBeGreaterThan(10 * 2 ** 20);
  expect(self!.largestRss).toBeLessThanOrEqual(self!.rss);
  expect(self!.cpuMs).toBeGreaterThan(0);
  expect(self!.runMs).toBeGreaterThan(0);
  expect(self!.waitMs).toBeGreaterThanOrEqual(0);
});
