/**
 * `npm test`: every suite against real parts. Builds the app if needed, then two passes, each with a
 * fresh migrated database and two real servers of its own (A trusts X-Forwarded-For so each test can be
 * its own client IP; B does not; two workers compete for deliveries):
 * - the main pass, on the embedded PostgreSQL (18): vitest (unit + HTTP integration), then Playwright;
 * - the compatibility pass, on the oldest PostgreSQL the README promises that is installed as a system
 *   package (15 in CI; docs/scaling.md "Database"): every server-side vitest file again (all but
 *   {@link NOT_SERVER_SIDE}), so every statement runs on both versions.
 * The compatibility pass runs beside the main pass's Playwright, one test file at a time (its output goes to `.data/test-compat.log`
 * and its failures are printed at the end) unless `TEST_COMPAT_SERIAL=on`. Then, alone on the machine, the
 * topology test (`npm run topology`: two web processes and two workers behind PgBouncer on PostgreSQL 15,
 * 200 requests/s for 60 s with a kill -9 of each kind; docs/operations.md "The topology test"), counted as
 * one test; `TEST_TOPOLOGY=off` skips it. Ends with the line `N passed, N failed` (everything counted).
 * Exits non-zero on any failure.
 *
 * Arguments: none (everything), or `vitest …` / `playwright …` (the main pass only, with their own
 * arguments), or `compat …` (the compatibility pass only; vitest arguments, default every server-side file).
 * Environment: `TEST_PG_URL` (an admin URL) or `TEST_PG_VERSION` (a system package's major version) moves
 * the main pass off the embedded PostgreSQL; `TEST_COMPAT_PG_URL` or `TEST_COMPAT_PG_VERSION` choose the
 * compatibility pass's PostgreSQL; `TEST_COMPAT_PG=off` skips that pass (and the topology test, which needs
 * that PostgreSQL too); `TEST_TYPECHECK=off` skips the
 * type check (CI, after `npm run lint`).
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import {
  type RunningServer,
  startServer,
  startTestDatabase,
  systemPostgres,
  TEST_SECRET_KEY,
  type TestPostgres,
  testPostgresFromEnv,
} from "../e2e/support/servers";
import { buildIfNeeded } from "./build-if-needed";

// The servers and the tests (which write secrets themselves, and start processes of their own) share one key (docs/operations.md "One key").
process.env.SECRET_KEY ??= TEST_SECRET_KEY;

const log = (m: string) => console.log(`[test] ${m}`);
const only = process.argv.slice(2); // optional: "vitest", "playwright" or "compat", then their own arguments

/**
 * Vitest files that never touch the test database: they start a PostgreSQL of their own (the embedded
 * one, or Debian's 15 behind PgBouncer) or none, so the compatibility pass leaves them out.
 */
const NOT_SERVER_SIDE = ["scripts/start.test.ts", "scripts/install.test.ts", "lib/db/embedded.test.ts"];
/** PostgreSQL majors the README promises that are older than the embedded one, oldest first. */
const COMPAT_MAJORS = [14, 15, 16, 17];

let passed = 0;
let failed = 0;
function count(r: { passed: number; failed: number }) {
  passed += r.passed;
  failed += r.failed;
}

/** A fresh database on `on` and `servers` Hookyard servers over it; `fn` gets the environment the tests read. */
async function withStack(
  label: string,
  on: TestPostgres,
  servers: number,
  fn: (env: NodeJS.ProcessEnv) => Promise<void>,
  serverEnv: Record<string, string> = {},
): Promise<void> {
  const db = await startTestDatabase(on);
  log(`${label}: PostgreSQL ${db.version}, database ready: ${db.url.replace(/:[^:@]*@/, ":***@")}`);
  const started: RunningServer[] = [];
  try {
    started.push(await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "true", ...serverEnv }));
    if (servers > 1) started.push(await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "false", ...serverEnv }));
    log(`${label}: servers ready: ${started.map((s) => s.url).join(", ")}`);
    await fn({
      ...process.env,
      DATABASE_URL: db.url,
      TEST_PG_ADMIN_URL: db.adminUrl,
      TEST_PG_TEMPLATE: db.template,
      HOOKYARD_URL: started[0].url,
      ...(started[1] ? { HOOKYARD_URL_NO_PROXY: started[1].url } : {}),
    });
  } finally {
    for (const s of started) await s.stop();
    await db.pg.stop();
  }
}

type Counts = { passed: number; failed: number };

/** Passed and failed tests of a vitest JSON report (a file that fails to load counts as one failure). */
function vitestCounts(reportPath: string, status: number | null): Counts {
  if (!existsSync(reportPath)) return { passed: 0, failed: status !== 0 ? 1 : 0 };
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTestSuites: number;
    success: boolean;
    testResults: { name: string; assertionResults: { status: string; fullName: string }[] }[];
  };
  for (const file of report.testResults)
    for (const t of file.assertionResults) if (t.status === "failed") log(`FAILED ${path.relative(process.cwd(), file.name)} > ${t.fullName}`);
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + (report.numTotalTestSuites && report.success === false && report.numFailedTests === 0 ? 1 : 0),
  };
}

/**
 * Runs vitest with `args` in `env`, its JSON report at `.data/vitest-{label}.json`; output to the terminal,
 * or to `logFile` when given (a pass running beside another). Resolves with its passed and failed tests.
 */
function vitest(label: string, env: NodeJS.ProcessEnv, args: string[], logFile?: string): Promise<Counts> {
  const reportPath = `.data/vitest-${label}.json`;
  rmSync(reportPath, { force: true });
  const child = spawn(
    process.execPath,
    ["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`, ...args],
    { stdio: logFile ? ["ignore", "pipe", "pipe"] : "inherit", env },
  );
  if (logFile) {
    const out = createWriteStream(logFile);
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  return new Promise((resolve) => child.on("close", (status) => resolve(vitestCounts(reportPath, status))));
}

/** The compatibility pass's PostgreSQL, or null (with the reason logged) when none is there. */
function compatPostgres(): TestPostgres | null {
  if (process.env.TEST_COMPAT_PG_URL) return { adminUrl: process.env.TEST_COMPAT_PG_URL };
  const majors = process.env.TEST_COMPAT_PG_VERSION ? [Number(process.env.TEST_COMPAT_PG_VERSION)] : COMPAT_MAJORS;
  for (const major of majors) {
    const found = systemPostgres(major);
    if (found) return found;
  }
  log(
    `compat: no PostgreSQL ${majors.join(" or ")} under /usr/lib/postgresql: install one (apt-get install postgresql-${process.env.TEST_COMPAT_PG_VERSION ?? 15}), set TEST_COMPAT_PG_URL, or skip the pass with TEST_COMPAT_PG=off`,
  );
  return null;
}

/** Runs `argv` (after node) in `env` with the terminal's output; resolves with its exit status. */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  const child = spawn(process.execPath, argv, { stdio: "inherit", env });
  return new Promise((resolve) => child.on("close", resolve));
}

/**
 * vitest's shared servers (both passes) run with circuit breakers on (off by default: docs/pipeline.md
 * "Receiver-driven limits"), so every server-side test also runs beside them; Playwright's servers keep the defaults.
 */
const BREAKERS = { DELIVERY_BREAKER_ENABLED: "true" };

/**
 * The main pass: typecheck, vitest and Playwright on the main PostgreSQL, as `only` selects.
 * `afterVitest` starts what may run beside Playwright (the compatibility pass: vitest is CPU-bound and
 * Playwright's one browser worker mostly waits, so they share the machine with little harm).
 */
async function mainPass(afterVitest: () => void): Promise<Counts> {
  const counts = { passed: 0, failed: 0 };
  const add = (r: Counts) => ((counts.passed += r.passed), (counts.failed += r.failed));
  if (only[0] !== "playwright")
    await withStack(
      "main",
      testPostgresFromEnv(),
      2,
      async (env) => {
        if (!only.length && process.env.TEST_TYPECHECK !== "off") {
          // Type errors anywhere (tests and scripts included) fail the suite; `next build` checks the app only.
          // CI sets TEST_TYPECHECK=off: `npm run lint` ran the same check just before.
          const status = await run(["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], env);
          log(`typecheck: ${status === 0 ? "ok" : "FAILED"}`);
          add(status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
        }
        if (!only.length || only[0] === "vitest") add(await vitest("main", env, only[0] === "vitest" ? only.slice(1) : []));
      },
      BREAKERS,
    );
  afterVitest();
  if (!only.length || only[0] === "playwright")
    await withStack("browser", testPostgresFromEnv(), 2, async (env) => {
      rmSync(".data/playwright.json", { force: true });
      const extra = only[0] === "playwright" ? only.slice(1) : [];
      const status = await run(["node_modules/@playwright/test/cli.js", "test", ...extra], { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: ".data/playwright.json" });
      if (existsSync(".data/playwright.json")) {
        const report = JSON.parse(readFileSync(".data/playwright.json", "utf8")) as PlaywrightReport;
        const { stats } = report;
        for (const title of flakyTests(report)) log(`browser: FLAKY (failed, then passed on its retry): ${title}`);
        add({ passed: stats.expected + stats.flaky, failed: stats.unexpected });
      } else if (status !== 0) add({ passed: 0, failed: 1 });
    });
  return counts;
}

/** What scripts/test.ts reads of Playwright's JSON report. */
type PlaywrightSuite = {
  file?: string;
  specs?: { title: string; tests: { status: string }[] }[];
  suites?: PlaywrightSuite[];
};
type PlaywrightReport = { stats: { expected: number; flaky: number; unexpected: number }; suites: PlaywrightSuite[] };

/** `file › title` of every test of `report` that passed only on a retry. */
function flakyTests(report: PlaywrightReport, suites = report.suites, file = ""): string[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).filter((sp) => sp.tests.some((t) => t.status === "flaky")).map((sp) => `${s.file ?? file} › ${sp.title}`),
    ...flakyTests(report, s.suites ?? [], s.file ?? file),
  ]);
}

/** The compatibility pass (every server-side vitest file on the oldest installed PostgreSQL); `logFile` when beside the main pass. */
async function compatPass(logFile?: string): Promise<Counts> {
  const on = compatPostgres();
  if (!on) return { passed: 0, failed: 1 };
  const args = only[0] === "compat" && only.length > 1 ? only.slice(1) : NOT_SERVER_SIDE.map((f) => `--exclude=${f}`);
  let counts: Counts = { passed: 0, failed: 1 };
  await withStack(
    "compat",
    on,
    2,
    async (env) => {
      // Beside Playwright, one test file at a time: with more, both starved for CPU on a slow 2-core machine and
      // timing-bound tests missed their bounds (docs/benchmarks.md "The test suite").
      counts = await vitest("compat", env, logFile ? ["--maxWorkers=1", ...args] : args, logFile);
    },
    BREAKERS,
  );
  log(`compat pass: ${counts.passed} passed, ${counts.failed} failed${logFile ? ` (output: ${logFile})` : ""}`);
  return counts;
}

buildIfNeeded(log);
const runCompat = (!only.length && process.env.TEST_COMPAT_PG !== "off") || only[0] === "compat";
const beside = runCompat && only[0] !== "compat" && process.env.TEST_COMPAT_SERIAL !== "on";
const side: { compat?: Promise<Counts> } = {};
if (only[0] !== "compat") count(await mainPass(() => void (beside && (side.compat = compatPass(".data/test-compat.log")))));
if (side.compat) count(await side.compat);
else if (runCompat) count(await compatPass());
if (!only.length && process.env.TEST_COMPAT_PG !== "off" && process.env.TEST_TOPOLOGY !== "off") {
  // The short form (30 s of load: both kills and their recoveries still land inside it); `npm run topology` runs 60 s.
  const status = await run(["node_modules/tsx/dist/cli.mjs", "scripts/topology.ts"], { TOPOLOGY_SECONDS: "30", ...process.env });
  log(`topology: ${status === 0 ? "passed" : "FAILED"}`);
  count(status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
