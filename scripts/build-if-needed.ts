import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

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

/** Content hash of everything `next build` reads from the project. */
export function sourceHash(): string {
  const h = createHash("sha256");
  for (const input of INPUTS) {
    for (const f of files(input)) {
      h.update(f).update("\0").update(readFileSync(f)).update("\0");
    }
  }
  return h.digest("hex");
}

/**
 * Runs `prisma generate` when the client is missing and `next build` when there is no build of the
 * current sources (a content hash of app/, components/, lib/… is kept beside the build).
 * Throws when either fails.
 */
export function buildIfNeeded(log: (m: string) => void): void {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" };
  if (!existsSync("lib/generated/prisma/client.ts")) {
    const gen = spawnSync(process.execPath, ["scripts/prisma-generate.mjs"], { stdio: "inherit", env });
    if (gen.status !== 0) throw new Error("prisma generate failed");
  }
  const hash = sourceHash();
  if (existsSync(".next/BUILD_ID") && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash) return;
  log("building the web app (first start, or the sources changed)…");
  const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...env, NODE_ENV: "production" } });
  if (build.status !== 0) throw new Error("next build failed");
  writeFileSync(STAMP, hash);
}
