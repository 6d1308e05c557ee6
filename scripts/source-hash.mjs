// Content hash of the project's sources, shared by the build (scripts/build-if-needed.ts) and the launcher of
// the operator commands (scripts/admin.mjs), which runs without a TypeScript loader.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** @param {string} p a file or a directory; yields its files (not node_modules or dot entries), in name order. */
function* files(p) {
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

/**
 * SHA-256 (hex) of the paths and contents of every file under `inputs` (files or directories, relative to
 * the working directory).
 * @param {readonly string[]} inputs
 * @returns {string}
 */
export function hashSources(inputs) {
  const h = createHash("sha256");
  for (const input of inputs) {
    for (const f of files(input)) h.update(f).update("\0").update(readFileSync(f)).update("\0");
  }
  return h.digest("hex");
}

/** Where `npm run build` writes the bundles of the processes and commands, with the hash of their sources. */
export const BUNDLE_DIR = ".next/hookyard-processes";
export const BUNDLE_STAMP = `${BUNDLE_DIR}/sources-hash`;
/** The operator commands bundled beside the processes (`npm run <name>` runs scripts/<name>.ts: scripts/admin.mjs). */
export const ADMIN_COMMANDS = ["keys", "users", "teams", "archive", "migrate"];
/** Everything the bundles are made from: our code (packages stay in node_modules). */
export const BUNDLE_INPUTS = [
  "lib",
  "server.ts",
  "scripts/web.ts",
  "scripts/worker.ts",
  "scripts/start.ts",
  ...ADMIN_COMMANDS.map((name) => `scripts/${name}.ts`),
  "scripts/admin-command.ts",
  "scripts/keys-command.ts",
  "scripts/build-if-needed.ts",
  "scripts/source-hash.mjs",
  "scripts/require-node.ts",
  "tsconfig.json",
  "package.json",
];
