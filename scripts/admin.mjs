// `npm run keys | users | teams | archive | db:migrate` (docs/operations.md "Teams and users"): runs the
// command's bundle when `npm run build` made it from the current sources (scripts/build-if-needed.ts), else
// scripts/<name>.ts through tsx. A bundle starts in a fraction of a second; tsx compiles a few hundred
// modules first, about 2.5 CPU-seconds (docs/benchmarks.md "The test suite").
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ADMIN_COMMANDS, BUNDLE_DIR, BUNDLE_INPUTS, BUNDLE_STAMP, hashSources } from "./source-hash.mjs";

const name = process.argv[2];
if (!ADMIN_COMMANDS.includes(name)) {
  console.error(`usage: node scripts/admin.mjs ${ADMIN_COMMANDS.join(" | ")} [arguments]`);
  process.exit(2);
}
// The command reads its own arguments from process.argv.slice(2), as when it is run itself.
process.argv.splice(2, 1);
const bundle = path.resolve(BUNDLE_DIR, `${name}.mjs`);
const fresh = existsSync(bundle) && existsSync(BUNDLE_STAMP) && readFileSync(BUNDLE_STAMP, "utf8") === hashSources(BUNDLE_INPUTS);
if (fresh) {
  await import("./source-maps.mjs");
  await import(pathToFileURL(bundle).href);
} else {
  const run = spawnSync(process.execPath, ["--import", "tsx", `scripts/${name}.ts`, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
