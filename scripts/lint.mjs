// `npm run lint`: the type check, ESLint, Prettier and the layering rules, run at once (README "Tests"). ESLint
// takes longest (about 75 s on 2 cores) and the other three together about as long, so the whole takes about
// ESLint's time instead of the sum (docs/benchmarks.md "The test suite"). Each check's output is printed as
// it ends, under its name; exits 1 when any check failed, naming them.
import { spawn } from "node:child_process";

const CHECKS = [
  ["eslint", ["node_modules/eslint/bin/eslint.js", "."]],
  ["tsc", ["node_modules/typescript/bin/tsc", "--noEmit"]],
  ["prettier", ["node_modules/prettier/bin/prettier.cjs", "--check", "."]],
  [
    "depcruise",
    [
      "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs",
      "--config",
      ".dependency-cruiser.cjs",
      "lib",
      "app",
      "components",
      "scripts",
      "cli",
      "server.ts",
      "proxy.ts",
    ],
  ],
];

/** Runs `node args` and resolves its exit code and its output (stdout and stderr, interleaved). */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const failed = [];
await Promise.all(
  CHECKS.map(async ([name, args]) => {
    const started = Date.now();
    const { code, output } = await run(args);
    process.stdout.write(`[lint] ${name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    if (output.trim()) process.stdout.write(`${output.trimEnd()}\n`);
    if (code !== 0) failed.push(name);
  }),
);
if (failed.length) console.log(`[lint] failed: ${failed.join(", ")}`);
process.exit(failed.length ? 1 : 0);
