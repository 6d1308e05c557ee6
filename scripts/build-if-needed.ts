import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

const INPUTS = [
  "app",
  "components",
  "lib",
  "public",
  "proxy.ts",
  "next.config.mjs",
  "postcss.config.mjs",
  "tsconfig.json",
  "tsconfig.next.json",
  "package.json",
  "prisma/schema.prisma",
];
const STAMP = ".next/hookyard-build-hash";

function* files(p: string): Generator<string> {
  if (!existsSync(p)) return;
  if (statSync(p).isFile()) {
    yield p;
    return;
  }
  for (const entry of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    yield* files(path.join(p, entry.name));
  }
}

/** Content hash of everything `next build` reads from the project (or of `inputs`). */
export function sourceHash(inputs: readonly string[] = INPUTS): string {
  const h = createHash("sha256");
  for (const input of inputs) {
    for (const f of files(input)) {
      h.update(f).update("\0").update(readFileSync(f)).update("\0");
    }
  }
  return h.digest("hex");
}

/**
 * Runs `prisma generate` when the client is missing and `next build` when there is no build of the
 * current sources (a content hash of app/, components/, lib/… is kept beside the build), then bundles the
 * web and worker processes when their sources changed ({@link bundleProcessesIfNeeded}).
 * Throws when any of them fails.
 */
export function buildIfNeeded(log: (m: string) => void): void {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" };
  if (!existsSync("lib/generated/prisma/client.ts")) {
    const gen = spawnSync(process.execPath, ["scripts/prisma-generate.mjs"], { stdio: "inherit", env });
    if (gen.status !== 0) throw new Error("prisma generate failed");
  }
  const hash = sourceHash();
  if (!existsSync(".next/BUILD_ID") || !existsSync(STAMP) || readFileSync(STAMP, "utf8") !== hash) {
    log("building the web app (first start, or the sources changed)…");
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...env, NODE_ENV: "production" } });
    if (build.status !== 0) throw new Error("next build failed");
    writeFileSync(STAMP, hash);
  }
  bundleProcessesIfNeeded();
}

/** The scripts `npm start` runs as child processes, which {@link bundleProcessesIfNeeded} bundles. */
export const PROCESS_SCRIPTS = ["scripts/web.ts", "scripts/worker.ts"] as const;
export type ProcessScript = (typeof PROCESS_SCRIPTS)[number];
/**
 * `npm start`'s own script, the supervisor, bundled beside its children: the test harness starts it from its
 * bundle (e2e/support/servers.ts), once per server it needs, instead of compiling it through tsx each time.
 */
export const SUPERVISOR_SCRIPT = "scripts/start.ts";
/** What a bundle is run with (`node --import <this> <bundle>`): source maps for our code only (the file says why). */
export const SOURCE_MAPS_PRELOAD = path.resolve("scripts/source-maps.mjs");
/** Where the bundles are written, with the hash of the sources they were made from. */
const BUNDLE_DIR = ".next/hookyard-processes";
const BUNDLE_STAMP = `${BUNDLE_DIR}/sources-hash`;
/** Everything the bundles are made from: our code (packages stay in node_modules). */
const BUNDLE_INPUTS = [
  "lib",
  "server.ts",
  ...PROCESS_SCRIPTS,
  SUPERVISOR_SCRIPT,
  "scripts/build-if-needed.ts",
  "scripts/require-node.ts",
  "tsconfig.json",
  "package.json",
];

/**
 * Bundles the web and worker processes' scripts and the supervisor's with esbuild unless the bundles of the
 * current sources exist: one ES module per script (`.next/hookyard-processes/web.mjs`, `worker.mjs`, `start.mjs`,
 * with shared chunks and source maps), our TypeScript compiled and inlined, every package imported from node_modules as it is.
 * A (re)start of a process then loads a few files instead of compiling hundreds
 * (docs/architecture.md#processes). Takes about a second; throws esbuild's error when the sources do not compile.
 */
export function bundleProcessesIfNeeded(): void {
  const hash = sourceHash(BUNDLE_INPUTS);
  if (existsSync(BUNDLE_STAMP) && readFileSync(BUNDLE_STAMP, "utf8") === hash) return;
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  buildSync({
    entryPoints: [...PROCESS_SCRIPTS, SUPERVISOR_SCRIPT],
    outdir: BUNDLE_DIR,
    bundle: true,
    // A dynamic import stays one: web.ts starts tracing before it loads the server (docs/operations.md "Traces").
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    tsconfig: "tsconfig.json",
    sourcemap: "linked",
    outExtension: { ".js": ".mjs" },
    logLevel: "silent",
  });
  // An alias that did not resolve (a generated file missing) would be left as a package import and fail at start.
  for (const file of readdirSync(BUNDLE_DIR).filter((f) => f.endsWith(".mjs"))) {
    const unresolved = /(?:from |import\()"(@\/[^"]+)"/.exec(readFileSync(path.join(BUNDLE_DIR, file), "utf8"));
    if (unresolved) throw new Error(`bundling the processes: ${unresolved[1]} not found`);
  }
  writeFileSync(BUNDLE_STAMP, hash);
}

/**
 * The bundle of `script` made from the current sources ({@link bundleProcessesIfNeeded}), or null when there
 * is none (never built, or the sources changed since: run the script through tsx then).
 */
export function processBundle(script: ProcessScript | typeof SUPERVISOR_SCRIPT): string | null {
  if (!existsSync(BUNDLE_STAMP) || readFileSync(BUNDLE_STAMP, "utf8") !== sourceHash(BUNDLE_INPUTS)) return null;
  const bundle = path.join(BUNDLE_DIR, `${path.basename(script, ".ts")}.mjs`);
  return existsSync(bundle) ? bundle : null;
}
