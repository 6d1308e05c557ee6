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

/**
 * Unit tests that may share a worker process (`isolate: false`, the "unit" project): they start no
 * process or server, set no environment variable and mock no module, so nothing of one file can reach the
 * next. Each file run in a fresh process cost about 1.4 CPU-s to start (docs/benchmarks.md "The test
 * suite"), more than most of these files take. Every other lib/ and cli/ test file is listed in
 * ISOLATED below and keeps a process of its own, as do e2e/ and scripts/; a new unit test file that
 * touches process.env, spawns a process or uses vi.mock belongs in ISOLATED.
 */
const UNIT = ["lib/**/*.test.ts", "cli/**/*.test.ts"];
export const ISOLATED = [
  "lib/db/binary-params.test.ts",
  "lib/db/embedded.test.ts",
  "lib/db/migrations.test.ts",
  "lib/db/prisma.test.ts",
  "lib/delivery/job-runner.test.ts",
  "lib/delivery/worker-presence.test.ts",
  "lib/gateway/delivery/claim.test.ts",
  "lib/gateway/team-resources.test.ts",
  "lib/http/security-headers.test.ts",
  "lib/ingest/request-notifier.test.ts",
  "lib/ingest/request-writer.test.ts",
  "lib/log.test.ts",
  "lib/outbound/destination-types/*.test.ts",
  "lib/rules/run-transformation.test.ts",
  "lib/rules/sandbox-pool.test.ts",
  "lib/socket-relay.test.ts",
  "lib/supervisor.test.ts",
  "lib/teams/auth-secret.test.ts",
  "lib/tracing.test.ts",
];
/**
 * HTTP integration files that start servers, databases or commands of their own, set the environment, mock
 * modules or change globals: a process each (the "isolated" project). The other files under e2e/ talk to
 * the shared test servers only and share worker processes (the "e2e" project, `isolate: false`), which
 * saves a process start and the evaluation of e2e/support/ per file (docs/benchmarks.md "The test suite").
 * A new e2e file that does any of these belongs here; scripts/vitest-projects.test.ts checks it.
 */
export const E2E_ISOLATED = [
  "e2e/archive.test.ts",
  "e2e/chaos.test.ts",
  "e2e/cli.test.ts",
  "e2e/console-isolation.test.ts",
  "e2e/credentials.test.ts",
  "e2e/delivery-breaker.test.ts",
  "e2e/fuzz-sockets.test.ts",
  "e2e/gateway-bulk-crash.test.ts",
  "e2e/gateway-gaps.test.ts",
  "e2e/gateway-keys.test.ts",
  "e2e/gateway-ordered.test.ts",
  "e2e/metrics.test.ts",
  "e2e/operations.test.ts",
  "e2e/outbound-api.test.ts",
  "e2e/outbound-coverage.test.ts",
  "e2e/outbound-crash.test.ts",
  "e2e/outbound-delivery.test.ts",
  "e2e/outbound-guard.test.ts",
  "e2e/outbound-ordered.test.ts",
  "e2e/outbound-redrive.test.ts",
  "e2e/pipeline-crash.test.ts",
  "e2e/pipeline-poison.test.ts",
  "e2e/pooler.test.ts",
  "e2e/security-headers.test.ts",
  "e2e/teams-cli.test.ts",
  "e2e/tracing.test.ts",
];
const EXCLUDE = ["node_modules/**", ".next/**", ".data/**"];

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
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, exclude: [...EXCLUDE, ...ISOLATED], isolate: false } },
      { extends: true, test: { name: "e2e", include: ["e2e/**/*.test.ts"], exclude: [...EXCLUDE, ...E2E_ISOLATED], isolate: false } },
      { extends: true, test: { name: "isolated", include: [...E2E_ISOLATED, "scripts/**/*.test.ts", ...ISOLATED], exclude: EXCLUDE } },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
  },
});
