/**
 * `npm run archive -- <options>`: day archives (docs/operations.md "Archive"), to ARCHIVE_DIR or ARCHIVE_S3_*.
 *   --day YYYY-MM-DD            archives the day now from the database (its partitions are kept: retention drops them)
 *   --day YYYY-MM-DD --verify   reads the day's archive back and checks every file's sha256, size and rows against its manifest
 *   --list                      the archived days, with their rows and compressed size
 * Exit 0 on success, 1 when an archive does not verify (or on an error), 2 on a usage error or without archive settings.
 * Archiving uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running; --verify and --list need no database.
 */
import { parseArgs } from "node:util";
import { readManifest } from "@/lib/archive/day-archive";
import { archiveStoreOf } from "@/lib/archive/store";
import { getConfig } from "@/lib/config";
import { getPool } from "@/lib/db/pool";
import { archiveDay, verifyDay } from "@/lib/worker/archive";
import { runAdminCommand } from "./admin-command";

const USAGE = "usage: npm run archive -- --day YYYY-MM-DD [--verify] | --list";
let values: { day?: string; verify?: boolean; list?: boolean };
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2),
    options: { day: { type: "string" }, verify: { type: "boolean" }, list: { type: "boolean" } },
  }));
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
const store = archiveStoreOf(getConfig().archive);
if (!store) {
  console.error('archiving is off: set ARCHIVE_DIR or ARCHIVE_S3_BUCKET (docs/operations.md "Archive")');
  process.exit(2);
}
if (!values.list && (!values.day || !/^\d{4}-\d{2}-\d{2}$/.test(values.day))) {
  console.error(USAGE);
  process.exit(2);
}
const day = values.day!;
const mib = (n: number) => `${(n / 1048576).toFixed(2)} MiB`;
const summary = (m: { counts: Record<string, number>; files: Record<string, { bytes: number; uncompressed_bytes: number }> }) => {
  const files = Object.values(m.files);
  const counts = Object.entries(m.counts)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
  return `${counts}; ${mib(files.reduce((s, f) => s + f.bytes, 0))} compressed (${mib(files.reduce((s, f) => s + f.uncompressed_bytes, 0))} NDJSON)`;
};

if (values.list) {
  for (const d of await store.listPrefixes()) {
    const m = await readManifest(store, d).catch(() => null);
    console.log(m ? `${d}  ${summary(m)}` : `${d}  (no manifest: not archived)`);
  }
  process.exit(0);
}
if (values.verify) {
  const { manifest, problems } = await verifyDay(store, day);
  for (const p of problems) console.error(p);
  if (manifest && !problems.length) console.log(`${day} verifies: ${summary(manifest)} at ${store.describe}`);
  process.exit(problems.length ? 1 : 0);
}
await runAdminCommand(async () => {
  const manifest = await archiveDay(getPool(), store, day, await readManifest(store, day));
  console.log(`${day} archived and verified at ${store.describe}: ${summary(manifest)}`);
  return 0;
});
