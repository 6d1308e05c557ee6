import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";

/**
 * Debian's headless shell (package chromium-headless-shell) when installed, else its Chromium: the same engine
 * as Playwright's own default for headless runs, without the full browser's window machinery. Each page load
 * cost the browser process 40 % less CPU there (docs/benchmarks.md "The test suite").
 */
function chromium(): string {
  const shell = "/usr/lib/chromium/chromium-headless-shell";
  return existsSync(shell) ? shell : "/usr/bin/chromium";
}

// Servers are started by scripts/test.ts (`npm test`), which passes HOOKYARD_URL.
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // A whole test's bound: axe in two schemes and full-page screenshots take several seconds of a test on a
  // quiet CI machine and more on a busy one.
  timeout: 90_000,
  // An expectation's bound where a test names none: on a slow, busy 2-core machine, a
  // page's first render and its live stream's connection took more than Playwright's default 5 s. Bounds
  // that are the product's promise (a capture on screen within LIVE_MS) are written in the tests.
  expect: { timeout: 10_000 },
  // Two browsers: on a 2-core machine with the headless shell, the step took 6.0 min against 7.6 with one
  // (docs/benchmarks.md "The test suite"; with the full Chromium, a second browser was slower and made
  // timing-bound steps miss their bounds). PLAYWRIGHT_WORKERS sets another number (every test has a team,
  // tenant and client address of its own).
  workers: Number(process.env.PLAYWRIGHT_WORKERS ?? 2),
  // A browser test that fails is run once more (PLAYWRIGHT_RETRIES); one that then passes is reported as
  // flaky, by name, in npm test's output, and a test that fails twice fails the run.
  retries: Number(process.env.PLAYWRIGHT_RETRIES ?? 1),
  reporter: [["list"], ["json"]],
  use: {
    baseURL: process.env.HOOKYARD_URL ?? "http://127.0.0.1:3000",
    // Each browser test is its own client for the rate limits (the test server trusts X-Forwarded-For).
    extraHTTPHeaders: { "x-forwarded-for": `10.250.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? chromium(),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
    trace: "off",
    // The visitor asks for reduced motion (app/globals.css stops the live dot's ping, spinners and the new
    // row's flash). Without a GPU, Chromium draws every frame of an endless animation in software: an open
    // inspect page took half a core while idle (docs/benchmarks.md "The test suite"). The console's "live
    // updates" tests run with motion, so both ways are tested.
    reducedMotion: "reduce",
  },
});
