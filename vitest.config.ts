import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

/**
 * The files that take longest (vitest's recorded durations on a clean clone, docs/benchmarks.md "The test
 * suite": every file over 28 s in the run of 2026-11-27 14:47), longest first. A clean clone has no durations cached, so vitest would order by file size and
 * start the longest, mostly waiting, files last, where nothing else overlaps them; started first, the
 * short files fill the cores around them.
 */
const SLOW_FIRST = [
  "e2e/operations.test.ts",
  "scripts/start.test.ts",
  "e2e/gateway-bulk-crash.test.ts",
  "e2e/pipeline-crash.test.ts",
  "e2e/fuzz.test.ts",
  "e2e/pg-outage.test.ts",
  "e2e/chaos.test.ts",
  "e2e/dashboard-auth.test.ts",
  "e2e/gateway-backpressure.test.ts",
  "e2e/gateway-keys.test.ts",
  "e2e/outbound-ordered.test.ts",
  "e2e/outbound-crash.test.ts",
  "e2e/teams-cli.test.ts",
  "e2e/credentials.test.ts",
  "e2e/gateway-ordered.test.ts",
  "e2e/cli.test.ts",
  "e2e/archive.test.ts",
  "scripts/install.test.ts",
  "e2e/gateway-metrics-rollups.test.ts",
  "e2e/metrics.test.ts",
  "e2e/outbound-redrive.test.ts",
  "e2e/outbound-coverage.test.ts",
  "e2e/gateway-issues.test.ts",
  "e2e/fuzz-sockets.test.ts",
];

/** vitest's order (cached durations, else size), with SLOW_FIRST's files moved to the front in that order. */
class SlowFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((spec, i) => ({ spec, i, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((x) => x.spec);
  }
}

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "e2e/**/*.test.ts", "scripts/**/*.test.ts", "cli/**/*.test.ts"],
    exclude: ["node_modules/**", ".next/**", ".data/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
  },
});
