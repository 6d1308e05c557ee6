/**
 * Day archives (docs/operations.md "Archive"): one UTC day of data as gzip-compressed NDJSON files (one
 * JSON object per line) plus `manifest.json`, under the day's key prefix `YYYY-MM-DD/`. Product-free: the
 * caller names the files and hands their lines as async iterables; this module streams them through gzip
 * to a temporary file (never a whole file in memory), uploads it, reads it back from the store to verify
 * its sha256 and line count, and writes the manifest last: a day with a manifest is archived and verified.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import type { ArchiveStore } from "@/lib/archive/store";

/** One archived file in a manifest: its key, rows (lines), compressed and uncompressed sizes, sha256 (hex) of the stored bytes. */
export type ArchiveFile = { key: string; rows: number; bytes: number; uncompressed_bytes: number; sha256: string };

/** A day's manifest (`YYYY-MM-DD/manifest.json`). */
export type DayManifest = {
  format: "hookyard-archive/1";
  day: string;
  created_at: string;
  verified_at: string;
  /** Rows of each table the day held when archived (the counts retention checks before dropping). */
  counts: Record<string, number>;
  files: Record<string, ArchiveFile>;
  /** What the caller adds to find records without reading files (e.g. requests per source). */
  index: Record<string, unknown>;
};

/** A file to write: its name (`requests` → `requests.ndjson.gz`) and its lines (without newlines), or `keep` to carry an earlier entry over unchanged. */
export type ArchiveInput = { name: string; lines: AsyncIterable<string> } | { name: string; keep: ArchiveFile };

export const manifestKey = (day: string) => `${day}/manifest.json`;
const fileKey = (day: string, name: string) => `${day}/${name}.ndjson.gz`;

/** `day`'s manifest, or null when the day has none (not archived, or its archive never finished). Throws on I/O errors or a malformed manifest. */
export async function readManifest(store: ArchiveStore, day: string): Promise<DayManifest | null> {
  const text = await store.getText(manifestKey(day));
  if (text === null) return null;
  const m = JSON.parse(text) as DayManifest;
  if (m.format !== "hookyard-archive/1" || m.day !== day) throw new Error(`${store.describe}/${manifestKey(day)}: not a manifest of ${day}`);
  return m;
}

/** Counts bytes and hashes what passes through. */
function meter() {
  const hash = createHash("sha256");
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest("hex") }) };
}

/** Lines of `lines` as newline-terminated text, counted. */
function ndjson(lines: AsyncIterable<string>) {
  let rows = 0;
  let uncompressed = 0;
  const stream = Readable.from(
    (async function* () {
      for await (const line of lines) {
        const text = `${line}\n`;
        rows += 1;
        uncompressed += Buffer.byteLength(text);
        yield text;
      }
    })(),
  );
  return { stream, result: () => ({ rows, uncompressed_bytes: uncompressed }) };
}

/**
 * Reads `file.key` back from `store` and checks its sha256, size and line count. Returns null when it
 * matches, else what differs (one sentence). Throws on I/O errors other than a missing object.
 */
export async function verifyArchiveFile(store: ArchiveStore, file: ArchiveFile): Promise<string | null> {
  const body = await store.open(file.key);
  if (!body) return `${file.key}: missing`;
  const m = meter();
  let rows = 0;
  try {
    const lines = createInterface({ input: body.pipe(m.stream).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const _ of lines) rows += 1;
  } catch (err) {
    return `${file.key}: unreadable (${(err as Error).message})`;
  }
  const { bytes, sha256 } = m.result();
  if (sha256 !== file.sha256) return `${file.key}: sha256 ${sha256}, manifest says ${file.sha256}`;
  if (bytes !== file.bytes) return `${file.key}: ${bytes} bytes, manifest says ${file.bytes}`;
  if (rows !== file.rows) return `${file.key}: ${rows} rows, manifest says ${file.rows}`;
  return null;
}

/**
 * Writes `day`'s archive to `store`: each input streamed through gzip to a temporary file, uploaded,
 * read back and verified (verifyArchiveFile), then the manifest with `counts` and `index`. Throws when
 * a file does not verify (no manifest is written then: the day stays unarchived) or on I/O errors.
 * Returns the manifest. `counts` may be computed while the lines are read (it is read after them).
 */
export async function writeDayArchive(
  store: ArchiveStore,
  day: string,
  inputs: ArchiveInput[],
  summary: () => { counts: Record<string, number>; index: Record<string, unknown> },
): Promise<DayManifest> {
  const dir = await mkdtemp(path.join(tmpdir(), "hookyard-archive-"));
  const files: Record<string, ArchiveFile> = {};
  try {
    for (const input of inputs) {
      if ("keep" in input) {
        files[input.name] = input.keep;
        continue;
      }
      const tmp = path.join(dir, `${input.name}.ndjson.gz`);
      const lines = ndjson(input.lines);
      const m = meter();
      await pipeline(lines.stream, createGzip({ level: 6 }), m.stream, createWriteStream(tmp));
      const key = fileKey(day, input.name);
      await store.putFile(key, tmp);
      files[input.name] = { key, ...lines.result(), ...m.result() };
      await rm(tmp, { force: true });
    }
    for (const file of Object.values(files)) {
      const problem = await verifyArchiveFile(store, file);
      if (problem) throw new Error(`archive of ${day} did not verify: ${problem}`);
    }
    const now = new Date().toISOString();
    const manifest: DayManifest = { format: "hookyard-archive/1", day, created_at: now, verified_at: now, ...summary(), files };
    await store.putText(manifestKey(day), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The lines of `day`'s file `name`, streamed from `store` and decompressed (an empty sequence when the
 * day or file is not archived). Throws on I/O errors while iterating.
 */
export async function* archiveLines(store: ArchiveStore, day: string, name: string): AsyncGenerator<string> {
  const body = await store.open(fileKey(day, name));
  if (!body) return;
  const lines = createInterface({ input: body.pipe(createGunzip()), crlfDelay: Infinity });
  try {
    for await (const line of lines) if (line) yield line;
  } finally {
    lines.close();
    body.destroy();
  }
}

/** An open read position in an operation's archive: the day, the lines of it read, the stream. */
type Reader = { cursor: string | null; days: string[]; day: number; line: number; lines: AsyncGenerator<string> | null };

/** One open reader per operation this process is running (dropped when the saved cursor no longer matches it). */
const readers = new Map<string, Reader>();

/** The next line of file `name` of `r`, across days; null at the end. */
async function nextLine(store: ArchiveStore, name: string, r: Reader): Promise<string | null> {
  while (r.day < r.days.length) {
    r.lines ??= archiveLines(store, r.days[r.day], name);
    const n = await r.lines.next();
    if (!n.done) {
      r.line += 1;
      return n.value;
    }
    r.day += 1;
    r.line = 0;
    r.lines = null;
  }
  return null;
}

/**
 * The next batch of a replay from the archive (a bulk runner's `pick`): up to `batchSize` records of file
 * `name` of `days` (oldest first) that `match` keeps (`parse` makes a record of a line), after `cursor`
 * (`YYYY-MM-DD:<lines read>`, null: the start), reading at most `scanLimit` lines; the cursor after them,
 * and whether the files are read to their end. A reader stays open per operation `opId` between batches
 * (reopened and skipped to the cursor otherwise, e.g. after a crash). Throws on I/O errors and for a
 * malformed line (the batch is tried again).
 */
export async function pickArchiveLines<T>(
  store: ArchiveStore,
  opId: string,
  spec: { name: string; days: string[]; cursor: string | null; batchSize: number; scanLimit: number; parse: (line: string) => T; match: (rec: T) => boolean },
): Promise<{ records: T[]; cursor: string | null; last: boolean }> {
  let r = readers.get(opId);
  if (!r || r.cursor !== spec.cursor) {
    await r?.lines?.return(undefined);
    r = { cursor: spec.cursor, days: spec.days, day: 0, line: 0, lines: null };
    if (spec.cursor) {
      const [day, lines] = spec.cursor.split(":");
      r.day = Math.max(0, spec.days.indexOf(day));
      for (let i = 0; i < Number(lines); i++) if ((await nextLine(store, spec.name, r)) === null) break;
    }
  }
  readers.delete(opId);
  const records: T[] = [];
  let last = false;
  for (let scanned = 0; records.length < spec.batchSize && scanned < spec.scanLimit; scanned++) {
    const line = await nextLine(store, spec.name, r);
    if (line === null) {
      last = true;
      break;
    }
    const rec = spec.parse(line);
    if (spec.match(rec)) records.push(rec);
  }
  r.cursor = r.day < r.days.length ? `${r.days[r.day]}:${r.line}` : `${r.days.at(-1)}:end`;
  if (!last) readers.set(opId, r);
  return { records, cursor: r.cursor, last };
}

/** The UTC days (`YYYY-MM-DD`) the time range [`from`, `to`) (ms) touches, oldest first. */
export function archiveDaysOf(from: number, to: number): string[] {
  const DAY_MS = 86_400_000;
  const out: string[] = [];
  for (let d = Math.floor(from / DAY_MS) * DAY_MS; d < to; d += DAY_MS) out.push(new Date(d).toISOString().slice(0, 10));
  return out;
}
