/**
 * Day archives (docs/operations.md "Archive") in both stores: a directory, and an S3 bucket on a real S3
 * emulator on loopback (fauxqs). Written, read back line for line, verified, and a tampered file caught.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveLines, readManifest, verifyArchiveFile, writeDayArchive } from "@/lib/archive/day-archive";
import { type ArchiveStore, directoryStore, s3Store } from "@/lib/archive/store";

let s3: FauxqsServer;
let dir: string;
beforeAll(async () => {
  s3 = await startFauxqs({ port: 0, host: "127.0.0.1", logger: false });
  s3.createBucket("archive");
  dir = await mkdtemp(path.join(tmpdir(), "hookyard-archive-test-"));
});
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

const stores: [string, () => ArchiveStore][] = [
  ["directory", () => directoryStore(dir)],
  [
    "S3 bucket",
    () =>
      s3Store({
        kind: "s3",
        bucket: "archive",
        prefix: "hookyard/test",
        endpoint: `http://127.0.0.1:${s3.port}`,
        region: "us-east-1",
        accessKeyId: "test",
        secretAccessKey: "test",
        forcePathStyle: true,
      }),
  ],
];

async function* lines(n: number) {
  await Promise.resolve();
  for (let i = 0; i < n; i++) yield JSON.stringify({ i, text: `line ${i} ${"x".repeat(i % 50)}` });
}

describe.each(stores)("day archive in a %s", (_name, make) => {
  it("writes files and a manifest, reads every line back in order, verifies, and catches a tampered file", async () => {
    const store = make();
    const manifest = await writeDayArchive(
      store,
      "2026-10-01",
      [
        { name: "requests", lines: lines(5000) },
        { name: "events", lines: lines(0) },
      ],
      () => ({ counts: { requests: 5000, events: 0 }, index: { note: "x" } }),
    );
    expect(manifest.files.requests.rows).toBe(5000);
    expect(manifest.files.events.rows).toBe(0);
    expect(manifest.files.requests.sha256).toMatch(/^[0-9a-f]{64}$/);
    // gzip compresses this repetitive NDJSON several times over
    expect(manifest.files.requests.bytes).toBeLessThan(manifest.files.requests.uncompressed_bytes / 3);
    expect(await readManifest(store, "2026-10-01")).toEqual(manifest);
    expect(await readManifest(store, "2026-10-02")).toBeNull();
    expect(await store.listPrefixes()).toContain("2026-10-01");
    let n = 0;
    for await (const line of archiveLines(store, "2026-10-01", "requests")) expect(JSON.parse(line).i).toBe(n++);
    expect(n).toBe(5000);
    for (const f of Object.values(manifest.files)) expect(await verifyArchiveFile(store, f)).toBeNull();

    // Another day's file put in its place: same name, other bytes.
    await writeDayArchive(store, "2026-10-03", [{ name: "requests", lines: lines(4999) }], () => ({ counts: {}, index: {} }));
    const other = await store.open("2026-10-03/requests.ndjson.gz");
    const tmp = path.join(dir, "swap.gz");
    await pipeline(other!, createWriteStream(tmp));
    await store.putFile("2026-10-01/requests.ndjson.gz", tmp);
    expect(await verifyArchiveFile(store, manifest.files.requests)).toMatch(/sha256/);
    expect(await verifyArchiveFile(store, { ...manifest.files.requests, key: "2026-10-09/requests.ndjson.gz" })).toMatch(/missing/);
  });
});
