/**
 * `npm test`: every suite against real parts. Builds the app if needed, starts a fresh migrated
 * database on an embedded PostgreSQL and two real servers (A trusts X-Forwarded-For so each test can
 * be its own client IP; B does not), runs vitest (unit + HTTP integration) and Playwright (browser),
 * and ends with the line `N passed, N failed`. Exits non-zero on any failure.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { startServer, startTestDatabase } from "../e2e/support/servers";
import { buildIfNeeded } from "./build-if-needed";

const log = (m: string) => console.log(`[test] ${m}`);
const only = process.argv.slice(2); // optional: "vitest" or "playwright", then their own arguments

buildIfNeeded(log);
const db = await startTestDatabase();
log(`database ready: ${db.url.replace(/:[^:@]*@/, ":***@")}`);
const serverA = await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "true" });
const serverB = await startServer({ DATABASE_URL: db.url, TRUST_PROXY: "false" });
log(`servers ready: ${serverA.url} (trust proxy), ${serverB.url}`);

const env = {
  ...process.env,
  DATABASE_URL: db.url,
  TEST_PG_ADMIN_URL: db.adminUrl,
  HOOKYARD_URL: serverA.url,
  HOOKYARD_URL_NO_PROXY: serverB.url,
};
let passed = 0;
let failed = 0;

function run(cmd: string, args: string[]) {
  return spawnSync(process.execPath, [cmd, ...args], { stdio: "inherit", env });
}

try {
  if (!only.length) {
    // Type errors anywhere (tests and scripts included) fail the suite; `next build` checks the app only.
    const r = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], { stdio: "inherit", env });
    log(`typecheck: ${r.status === 0 ? "ok" : "FAILED"}`);
    if (r.status === 0) passed += 1;
    else failed += 1;
  }
  if (!only.length || only[0] === "vitest") {
    rmSync(".data/vitest.json", { force: true });
    const extra = only[0] === "vitest" ? only.slice(1) : [];
    const r = run("node_modules/vitest/vitest.mjs", ["run", "--reporter=default", "--reporter=json", "--outputFile.json=.data/vitest.json", ...extra]);
    if (existsSync(".data/vitest.json")) {
      const report = JSON.parse(readFileSync(".data/vitest.json", "utf8"));
      passed += report.numPassedTests;
      failed += report.numFailedTests + (report.numTotalTestSuites && report.success === false && report.numFailedTests === 0 ? 1 : 0);
    } else if (r.status !== 0) failed += 1;
  }
  if (!only.length || only[0] === "playwright") {
    rmSync(".data/playwright.json", { force: true });
    const extra = only[0] === "playwright" ? only.slice(1) : [];
    const r = spawnSync(process.execPath, ["node_modules/@playwright/test/cli.js", "test", ...extra], {
      stdio: "inherit",
      env: { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: ".data/playwright.json" },
    });
    if (existsSync(".data/playwright.json")) {
      const stats = JSON.parse(readFileSync(".data/playwright.json", "utf8")).stats;
      passed += stats.expected + stats.flaky;
      failed += stats.unexpected;
    } else if (r.status !== 0) failed += 1;
  }
} finally {
  await serverA.stop();
  await serverB.stop();
  await db.pg.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
