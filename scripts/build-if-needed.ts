import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";
import { ADMIN_COMMANDS, BUNDLE_DIR, BUNDLE_INPUTS, BUNDLE_STAMP, hashSources } from "./source-hash.mjs";

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

/** Content hash of everything `next build` reads from the project (or of `inputs`). */
export function sourceHash(inputs: readonly string[] = INPUTS): string {
  return hashSources(inputs);
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
/**
 * Bundles the web and worker processes' scripts, the supervisor's and the operator commands' (ADMIN_COMMANDS,
 * run by scripts/admin.mjs) with esbuild unless the bundles of the current sources exist: one ES module per
 * script (`.next/hookyard-processes/web.mjs`, `worker.mjs`, `start.mjs`, `teams.mjs`…, with shared chunks and
 * source maps), our TypeScript compiled and inlined, every package imported from node_modules as it is.
 * A (re)start of a process, or a command, then loads a few files instead of compiling hundreds
 * (docs/architecture.md#processes). Takes about a second; throws esbuild's error when the sources do not compile.
 */
export function bundleProcessesIfNeeded(): void {
  const hash = sourceHash(BUNDLE_INPUTS);
  if (existsSync(BUNDLE_STAMP) && readFileSync(BUNDLE_STAMP, "utf8") === hash) return;
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  buildSync({
    entryPoints: [...PROCESS_SCRIPTS, SUPERVISOR_SCRIPT, ...ADMIN_COMMANDS.map((name) => `scripts/${name}.ts`)],
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
