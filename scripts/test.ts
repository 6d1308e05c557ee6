/**
 * `npm test`: every suite against real parts, each test once. Builds the app if needed, then, one after the
 * other (on a 2-core machine, two CPU-bound steps side by side starved each other's timing-bound tests:
 * docs/benchmarks.md "The test suite"):
 * - vitest (unit + HTTP integration) on the oldest PostgreSQL the README promises that is installed as a
 *   system package (15 in CI; docs/scaling.md "Database"), where a statement that a newer version accepts is
 *   likeliest to break; the embedded one (18) when none is installed. A fresh migrated database and two real
 *   servers of its own (A trusts X-Forwarded-For so each test can be its own client IP; B does not; two
 *   workers compete for deliveries);
 * - Playwright on the embedded PostgreSQL, the one `npm start` runs by default, with two servers of its own;
 * - the topology test (`npm run topology`: two web processes and two workers behind PgBouncer on PostgreSQL
 *   15, 200 requests/s for 60 s with a kill -9 of each kind; docs/operations.md "The topology test"),
 *   counted as one test; `TEST_TOPOLOGY=off` skips it.
 * Ends with the line `N passed, N failed` (everything counted). Exits non-zero on any failure.
 *
 * `npm run test:compat` (`npm test -- compat`) is the other version's pass: every server-side vitest file
 * (all but {@link NOT_SERVER_SIDE}) on the embedded PostgreSQL when vitest's pass ran on a system package,
 * so every statement can be run on both versions before a release.
 *
 * Arguments: none (everything), or `vitest …` / `playwright …` (that step only, with their own arguments),
 * or `compat …` (the other version's pass only; vitest arguments, default every server-side file).
 * Environment: `TEST_PG_URL` (an admin URL) or `TEST_PG_VERSION` (a system package's major version) chooses
 * vitest's PostgreSQL; `TEST_COMPAT_PG_URL` or `TEST_COMPAT_PG_VERSION` the compat pass's (default: the
 * embedded one); `TEST_TYPECHECK=off` skips the type check (CI, after `npm run lint`).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
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
 * one, or Debian's 15 behind PgBouncer) or none, so the compat pass leaves them out.
 */
const NOT_SERVER_SIDE = ["scripts/start.test.ts", "scripts/install.test.ts", "lib/db/embedded.test.ts"];
/** PostgreSQL majors the README promises that are older than the embedded one, oldest first: vitest runs on the oldest installed. */
const COMPAT_MAJORS = [14, 15, 16, 17];

let passed = 0;
let failed = 0;
/**
 * One line per failed test (file, name, the first line of its error), printed again just above the last
 * line: a CI log that keeps only its end still says what failed.
 */
const failures: string[] = [];
/** `message`'s first non-empty line, at most 300 characters, without terminal colours. */
const firstLine = (message = "") =>
  (
    stripVTControlCharacters(message)
      .split("\n")
      .find((l) => l.trim()) ?? ""
  )
    .trim()
    .slice(0, 300);
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
  if (!existsSync(reportPath)) {
    if (status !== 0) failures.push(`vitest: ended with status ${status} and no report`);
    return { passed: 0, failed: status !== 0 ? 1 : 0 };
  }
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTestSuites: number;
    success: boolean;
    testResults: { name: string; message?: string; status?: string; assertionResults: { status: string; fullName: string; failureMessages?: string[] }[] }[];
  };
  for (const file of report.testResults) {
    const name = path.relative(process.cwd(), file.name);
    for (const t of file.assertionResults)
      if (t.status === "failed") {
        log(`FAILED ${name} > ${t.fullName}`);
        failures.push(`vitest ${name} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
      }
    if (file.status === "failed" && !file.assertionResults.some((t) => t.status === "failed")) failures.push(`vitest ${name}: ${firstLine(file.message)}`);
  }
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + (report.numTotalTestSuites && report.success === false && report.numFailedTests === 0 ? 1 : 0),
  };
}

/** Runs vitest with `args` in `env`, its JSON report at `.data/vitest-{label}.json`; resolves with its passed and failed tests. */
function vitest(label: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Counts> {
  const reportPath = `.data/vitest-${label}.json`;
  rmSync(reportPath, { force: true });
  const child = spawn(
    process.execPath,
    ["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`, ...args],
    { stdio: "inherit", env },
  );
  return new Promise((resolve) => child.on("close", (status) => resolve(vitestCounts(reportPath, status))));
}

/**
 * vitest's PostgreSQL: the environment's choice (TEST_PG_URL, TEST_PG_VERSION), else the oldest system
 * package of {@link COMPAT_MAJORS} installed, else (logged) the embedded one.
 */
function vitestPostgres(): TestPostgres {
  if (process.env.TEST_PG_URL || process.env.TEST_PG_VERSION) return testPostgresFromEnv();
  for (const major of COMPAT_MAJORS) {
    const found = systemPostgres(major);
    if (found) return found;
  }
  log(`vitest: no PostgreSQL ${COMPAT_MAJORS.join(", ")} under /usr/lib/postgresql (apt-get install postgresql-15): on the embedded one`);
  return {};
}

/** The compat pass's PostgreSQL: TEST_COMPAT_PG_URL, TEST_COMPAT_PG_VERSION (throws when not installed), else the embedded one. */
function compatPostgres(): TestPostgres {
  if (process.env.TEST_COMPAT_PG_URL) return { adminUrl: process.env.TEST_COMPAT_PG_URL };
  return testPostgresFromEnv({ ...process.env, TEST_PG_URL: "", TEST_PG_VERSION: process.env.TEST_COMPAT_PG_VERSION ?? "" });
}

/** Runs `argv` (after node) in `env` with the terminal's output; resolves with its exit status. */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  const child = spawn(process.execPath, argv, { stdio: "inherit", env });
  return new Promise((resolve) => child.on("close", resolve));
}

/**
 * vitest's shared servers (and the compat pass's) run with circuit breakers on (off by default: docs/pipeline.md
 * "Receiver-driven limits"), so every server-side test also runs beside them; Playwright's servers keep the defaults.
 */
const BREAKERS = { DELIVERY_BREAKER_ENABLED: "true" };

/** Typecheck, vitest and Playwright, one after the other, as `only` selects. */
async function mainPass(): Promise<Counts> {
  const counts = { passed: 0, failed: 0 };
  const add = (r: Counts) => ((counts.passed += r.passed), (counts.failed += r.failed));
  if (only[0] !== "playwright")
    await withStack(
      "vitest",
      vitestPostgres(),
      2,
      async (env) => {
        if (!only.length && process.env.TEST_TYPECHECK !== "off") {
          // Type errors anywhere (tests and scripts included) fail the suite; `next build` checks the app only.
          // CI sets TEST_TYPECHECK=off: `npm run lint` ran the same check just before.
          const status = await run(["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], env);
          log(`typecheck: ${status === 0 ? "ok" : "FAILED"}`);
          if (status !== 0) failures.push("typecheck: see tsc's lines above");
          add(status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
        }
        if (!only.length || only[0] === "vitest") add(await vitest("main", env, only[0] === "vitest" ? only.slice(1) : []));
      },
      BREAKERS,
    );
  if (!only.length || only[0] === "playwright")
    await withStack("browser", testPostgresFromEnv(), 2, async (env) => {
      rmSync(".data/playwright.json", { force: true });
      const extra = only[0] === "playwright" ? only.slice(1) : [];
      const status = await run(["node_modules/@playwright/test/cli.js", "test", ...extra], { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: ".data/playwright.json" });
      if (existsSync(".data/playwright.json")) {
        const report = JSON.parse(readFileSync(".data/playwright.json", "utf8")) as PlaywrightReport;
        const { stats } = report;
        for (const title of flakyTests(report)) log(`browser: FLAKY (failed, then passed on its retry): ${title}`);
        for (const title of failedTests(report)) failures.push(`browser ${title}`);
        add({ passed: stats.expected + stats.flaky, failed: stats.unexpected });
      } else if (status !== 0) {
        failures.push(`browser: ended with status ${status} and no report`);
        add({ passed: 0, failed: 1 });
      }
    });
  return counts;
}

/** What scripts/test.ts reads of Playwright's JSON report. */
type PlaywrightSuite = {
  file?: string;
  specs?: { title: string; tests: { status: string; results?: { error?: { message?: string } }[] }[] }[];
  suites?: PlaywrightSuite[];
};
type PlaywrightReport = { stats: { expected: number; flaky: number; unexpected: number }; suites: PlaywrightSuite[] };

/** Every spec of `suites` (and their nested suites) with the file it is in. */
function specsOf(suites: PlaywrightSuite[], file = ""): { file: string; spec: NonNullable<PlaywrightSuite["specs"]>[number] }[] {
  return suites.flatMap((s) => [...(s.specs ?? []).map((spec) => ({ file: s.file ?? file, spec })), ...specsOf(s.suites ?? [], s.file ?? file)]);
}

/** `file › title` of every test of `report` that passed only on a retry. */
function flakyTests(report: PlaywrightReport): string[] {
  return specsOf(report.suites)
    .filter(({ spec }) => spec.tests.some((t) => t.status === "flaky"))
    .map(({ file, spec }) => `${file} › ${spec.title}`);
}

/** `file › title: first error line` of every test of `report` that failed on every try. */
function failedTests(report: PlaywrightReport): string[] {
  return specsOf(report.suites).flatMap(({ file, spec }) =>
    spec.tests.filter((t) => t.status === "unexpected").map((t) => `${file} › ${spec.title}: ${firstLine(t.results?.at(-1)?.error?.message)}`),
  );
}

/** The compat pass: every server-side vitest file (or `only`'s files) on {@link compatPostgres}. */
async function compatPass(): Promise<Counts> {
  const args = only.length > 1 ? only.slice(1) : NOT_SERVER_SIDE.map((f) => `--exclude=${f}`);
  let counts: Counts = { passed: 0, failed: 1 };
  await withStack("compat", compatPostgres(), 2, async (env) => void (counts = await vitest("compat", env, args)), BREAKERS);
  log(`compat pass: ${counts.passed} passed, ${counts.failed} failed`);
  return counts;
}

buildIfNeeded(log);
if (only[0] === "compat") count(await compatPass());
else count(await mainPass());
if (!only.length && process.env.TEST_TOPOLOGY !== "off") {
  // The short form (30 s of load: both kills and their recoveries still land inside it); `npm run topology` runs 60 s.
  const status = await run(["node_modules/tsx/dist/cli.mjs", "scripts/topology.ts"], { TOPOLOGY_SECONDS: "30", ...process.env });
  log(`topology: ${status === 0 ? "passed" : "FAILED"}`);
  count(status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
  if (status !== 0) failures.push("topology: see its [topology] lines above");
}
if (failures.length) for (const f of ["failed:", ...failures]) log(f);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
