/**
 * The scaled-out topology behind a transaction-mode pooler (docs/operations.md#pooler), short form of
 * `npm run topology`: PgBouncer (pool_mode = transaction) as DATABASE_URL and PostgreSQL 15 as
 * DIRECT_DATABASE_URL, two web-only processes and two workers, 200 requests/s for 20 s with one web
 * process and one worker killed with SIGKILL mid-load (e2e/support/topology.ts).
 *
 * Before pooler support, the worker's pool sent the startup option `-c synchronous_commit=off`, which
 * PgBouncer refuses, and named prepared statements broke as soon as a transaction ran on another server
 * connection: nothing was delivered.
 */
import { beforeAll, expect, it } from "vitest";
import { formatTopology, runTopology, topologyProblems, type TopologyReport } from "./support/topology";

let report: TopologyReport;

beforeAll(async () => {
  report = await runTopology({ rate: 200, durationMs: 20_000, settleMs: 60_000, log: (m) => console.log(`[topology] ${m}`) });
  console.log(formatTopology(report));
}, 240_000);

it("delivers every accepted gateway request and outbound publish at least once, through the kills of a web process and a worker", () => {
  // The load really ran through both products (a 2-core machine shared with the other tests accepts less).
  expect(report.accepted.gateway).toBeGreaterThan(report.offered.gateway * 0.3);
  expect(report.accepted.outbound).toBeGreaterThan(report.offered.outbound * 0.3);
  expect(report.delivered).toEqual(report.accepted);
  // Deliveries whose sender was gone before the answer (the killed worker's in flight, or a timed-out
  // attempt on a busy machine) were each made again.
  expect(report.cutRedelivered).toBe(report.cut);
  for (const k of report.kills) expect(k.caughtUpAfterMs, JSON.stringify(k)).not.toBeNull();
});

it("counts the console rate limit once across both web processes", () => {
  expect(report.rateLimit).toEqual({ limit: 10, allowed: 10, refused: 10, other: 0 });
});

it("shows a request ingested by one web process in a live view opened on the other", () => {
  expect(report.liveEventAfterMs).not.toBeNull();
  expect(topologyProblems(report)).toEqual([]);
});
