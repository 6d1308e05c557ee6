/**
 * `npm test`: every suite against real parts. Builds the app if needed, starts a fresh migrated
 * database on an embedded PostgreSQL and two real servers (A trusts X-Forwarded-For so each test can
 * be its own client IP; B does not), runs vitest (unit + HTTP integration) and Playwright (browser);
 * then the compatibility pass: the files of {@link COMPAT_FILES} again, on the oldest PostgreSQL the
 * README promises that is installed (docs/scaling.md "Database"), with a database and servers of its
 * own (two servers, as in the main pass, so two workers compete for deliveries). Ends with the line `N passed, N failed` (both passes counted). Exits non-zero on any failure.
 *
 * Arguments: none (everything), or `vitest …` / `playwright …` (the main pass only, with their own
 * arguments), or `compat …` (the compatibility pass only; vitest arguments, default {@link COMPAT_FILES}).
 * Environment: `TEST_PG_URL` (an admin URL) or `TEST_PG_VERSION` (a system package's major version) moves
 * the main pass off the embedded PostgreSQL; `TEST_COMPAT_PG_URL` or `TEST_COMPAT_PG_VERSION` choose the
 * compatibility pass's PostgreSQL; `TEST_COMPAT_PG=off` skips that pass; `TEST_TYPECHECK=off` skips the
 * type check (CI, after `npm run lint`).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
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
 * The compatibility pass: what records delivery results, dispatches outbound events, runs bulk
 * operations and retention, i.e. the statements most likely to use SQL newer than PostgreSQL 14.
 * Chosen to keep the pass short (about a minute with its database and servers on a busy 2-core machine).
 */
const COMPAT_FILES = [
  "lib/gateway/delivery/claim.test.ts",
  "e2e/gateway-pipeline.test.ts",
  "e2e/gateway-delivery.test.ts",
  "e2e/outbound-delivery.test.ts",
  "e2e/gateway-bulk.test.ts",
  "e2e/retention.test.ts",
];
/** PostgreSQL majors the README promises that are older than the embedded one, oldest first. */
const COMPAT_MAJORS = [14, 15, 16, 17];

let passed = 0;
let failed = 0;
function count(r: { passed: number; failed: number }) {
  passed += r.passed;
  failed += r.failed;
}

/** A fresh database on `on` and `servers` Hookyard servers over it; `fn` gets the environment the tests read. */
async function withStack(label: string, on: TestPostgres, servers: number, fn: (env: NodeJS.ProcessEnv) => void): Promise<void> {
  const db = await startTestDatabase(on);
  log(`${label}: PostgreSQL ${db.version}, database ready: ${db.url.replace(/:[^:@]*@/, ":***@")}`);
  const started: RunningServer[] = [];
  try {
    started.push(await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "true" }));
    if (servers > 1) started.push(await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "false" }));
    log(`${label}: servers ready: ${started.map((s) => s.url).join(", ")}`);
    fn({
      ...process.env,
      DATABASE_URL: db.url,
      TEST_PG_ADMIN_URL: db.adminUrl,
      HOOKYARD_URL: started[0].url,
      ...(started[1] ? { HOOKYARD_URL_NO_PROXY: started[1].url } : {}),
    });
  } finally {
    for (const s of started) await s.stop();
    await db.pg.stop();
  }
}

/** Runs vitest with `args` in `env`; its passed and failed tests (a file that fails to load counts as one failure). */
function vitest(env: NodeJS.ProcessEnv, args: string[]) {
  rmSync(".data/vitest.json", { force: true });
  const r = spawnSync(
    process.execPath,
    ["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", "--outputFile.json=.data/vitest.json", ...args],
    { stdio: "inherit", env },
  );
  if (!existsSync(".data/vitest.json")) return { passed: 0, failed: r.status !== 0 ? 1 : 0 };
  const report = JSON.parse(readFileSync(".data/vitest.json", "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTestSuites: number;
    success: boolean;
  };
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + (report.numTotalTestSuites && report.success === false && report.numFailedTests === 0 ? 1 : 0),
  };
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

buildIfNeeded(log);
if (only[0] !== "compat") {
  await withStack("main", testPostgresFromEnv(), 2, (env) => {
    if (!only.length && process.env.TEST_TYPECHECK !== "off") {
      // Type errors anywhere (tests and scripts included) fail the suite; `next build` checks the app only.
      // CI sets TEST_TYPECHECK=off: `npm run lint` ran the same check just before.
      const r = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], { stdio: "inherit", env });
      log(`typecheck: ${r.status === 0 ? "ok" : "FAILED"}`);
      count(r.status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
    }
    if (!only.length || only[0] === "vitest") count(vitest(env, only[0] === "vitest" ? only.slice(1) : []));
    if (!only.length || only[0] === "playwright") {
      rmSync(".data/playwright.json", { force: true });
      const extra = only[0] === "playwright" ? only.slice(1) : [];
      const r = spawnSync(process.execPath, ["node_modules/@playwright/test/cli.js", "test", ...extra], {
        stdio: "inherit",
        env: { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: ".data/playwright.json" },
      });
      if (existsSync(".data/playwright.json")) {
        const { stats } = JSON.parse(readFileSync(".data/playwright.json", "utf8")) as { stats: { expected: number; flaky: number; unexpected: number } };
        count({ passed: stats.expected + stats.flaky, failed: stats.unexpected });
      } else if (r.status !== 0) count({ passed: 0, failed: 1 });
    }
  });
}
if ((!only.length && process.env.TEST_COMPAT_PG !== "off") || only[0] === "compat") {
  const on = compatPostgres();
  if (!on) count({ passed: 0, failed: 1 });
  else {
    const args = only[0] === "compat" && only.length > 1 ? only.slice(1) : COMPAT_FILES;
    const before = { passed, failed };
    await withStack("compat", on, 2, (env) => count(vitest(env, args)));
    log(`compat pass: ${passed - before.passed} passed, ${failed - before.failed} failed`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
