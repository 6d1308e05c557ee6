/**
 * The shared-process projects of vitest.config.ts ("unit", "e2e": `isolate: false`) hold only files that
 * leave nothing behind for the next file in the same process: none sets the environment, mocks a module or
 * a global, or starts a process, server or database of its own. Such a file belongs in ISOLATED or
 * E2E_ISOLATED (docs/benchmarks.md "The test suite").
 */
import { globSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { E2E_ISOLATED, ISOLATED } from "../vitest.config";

const MARKERS: [RegExp, string][] = [
  [/process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env|Object\.assign\(process\.env/, "sets the environment"],
  [/\bvi\.(mock|doMock|stubEnv|stubGlobal|spyOn|useFakeTimers)\(/, "mocks a module, a function, a global or the clock"],
  [/\b(spawn|spawnSync|execFile|execFileSync|fork)\(|\b(startServer|privateDatabase|startTestDatabase)\(/, "starts a process, a server or a database"],
  [/setGlobalDispatcher\(|globalThis\.\w+\s*=(?!=)/, "changes a global"],
];

it("no file in a shared-process project sets the environment, mocks, starts a process or changes a global", () => {
  const shared = [...globSync(["lib/**/*.test.ts", "cli/**/*.test.ts"], { exclude: ISOLATED }), ...globSync("e2e/**/*.test.ts", { exclude: E2E_ISOLATED })];
  expect(shared.length).toBeGreaterThan(80);
  const found = shared.flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return MARKERS.filter(([re]) => re.test(text)).map(([, what]) => `${file} ${what}`);
  });
  expect(found).toEqual([]);
});

it("every file named in the isolated lists exists", () => {
  for (const pattern of [...ISOLATED, ...E2E_ISOLATED]) expect(globSync(pattern), pattern).not.toEqual([]);
});
