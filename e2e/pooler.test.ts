/**
 * The database layer behind a transaction-mode pooler (docs/operations.md#pooler): a PgBouncer with
 * `pool_mode = transaction` and only 2 server connections in front of a database of its own on the test
 * PostgreSQL, DATABASE_URL = PgBouncer and DIRECT_DATABASE_URL = PostgreSQL for this test process.
 *
 * Before pooler support, the background pool's startup option was refused by PgBouncer, a named statement
 * failed once its transaction landed on another server connection ("prepared statement … does not
 * exist"), and LISTEN through the pooler lost its notifications.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPgBouncer } from "./support/pgbouncer";

const adminUrl = process.env.TEST_PG_ADMIN_URL!;
const name = `hookyard_pooler_${Date.now()}_${process.pid}`;
const directUrl = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;
// Imported once the environment names the pooler: settings are read once per process.
let db: typeof import("@/lib/db/pool");
let tx: typeof import("@/lib/db/transaction");
let listen: typeof import("@/lib/db/listen");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  bouncer = await startPgBouncer(directUrl, 2);
  process.env.DATABASE_URL = bouncer.url;
  process.env.DIRECT_DATABASE_URL = directUrl;
  process.env.DB_POOL_SIZE = "8";
  db = await import("@/lib/db/pool");
  tx = await import("@/lib/db/transaction");
  listen = await import("@/lib/db/listen");
});

afterAll(async () => {
  await db?.closePool();
  await bouncer?.stop();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

it("knows it is behind a pooler, and which URL is direct", () => {
  expect(db.behindPooler()).toBe(true);
  expect(db.databaseUrl()).toBe(bouncer.url);
  expect(db.directDatabaseUrl()).toBe(directUrl);
  // A script's own database is used as given.
  expect(db.directDatabaseUrl("postgresql://x@elsewhere/other")).toBe("postgresql://x@elsewhere/other");
});

it("runs named statements on whatever server connection each transaction gets", async () => {
  // 8 client connections over 2 server connections: a statement prepared by name on one is not on the other.
  const rounds = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      Promise.all([
        db.getPool().query<{ n: number }>({ name: "hookyard-pooler-test", text: "SELECT $1::int AS n", values: [i] }),
        db.getBackgroundPool().query<{ n: number }>({ name: "hookyard-pooler-test", text: "SELECT $1::int + 1000 AS n", values: [i] }),
      ]),
    ),
  );
  expect(rounds.map(([a, b]) => [a.rows[0].n, b.rows[0].n])).toEqual(Array.from({ length: 40 }, (_, i) => [i, i + 1000]));
});

it("opens the background pool without startup options, and its transactions still commit asynchronously", async () => {
  const { rows: plain } = await db.getBackgroundPool().query<{ synchronous_commit: string }>("SHOW synchronous_commit");
  expect(plain[0].synchronous_commit).toBe("on");
  const inside = await tx.inTransaction(
    async (c) => (await c.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0].synchronous_commit,
    db.getBackgroundPool(),
  );
  expect(inside).toBe("off");
  const from = await tx.inTransactionFrom<{ v: string }, string>(
    "SELECT current_setting('synchronous_commit') AS v",
    (_c, rows) => Promise.resolve(rows[0].v),
    db.getBackgroundPool(),
  );
  expect(from).toBe("off");
  // The durable pool keeps PostgreSQL's default.
  expect(await tx.inTransaction(async (c) => (await c.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0].synchronous_commit)).toBe("on");
});

it("serialises callers of withAdvisoryLock across connections", async () => {
  const spans: [number, number][] = [];
  await Promise.all(
    [0, 1, 2].map(() =>
      tx.withAdvisoryLock(727274099, async () => {
        const start = Date.now();
        await sleep(200);
        spans.push([start, Date.now()]);
      }),
    ),
  );
  spans.sort((a, b) => a[0] - b[0]);
  expect(spans).toHaveLength(3);
  for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
});

it("LISTENs on the direct connection: a NOTIFY sent through the pooler arrives", async () => {
  const got: string[] = [];
  const listener = await listen.listenTo("pooler test", ["hookyard_pooler_test"], (_channel, payload) => got.push(payload));
  try {
    // Keep the pooler's 2 server connections busy with other clients' transactions meanwhile.
    await Promise.all(Array.from({ length: 20 }, () => db.getPool().query("SELECT pg_sleep(0.01)")));
    for (const n of [1, 2, 3]) await db.getPool().query("SELECT pg_notify('hookyard_pooler_test', $1)", [String(n)]);
    for (const end = Date.now() + 5000; got.length < 3 && Date.now() < end;) await sleep(50);
    expect(got).toEqual(["1", "2", "3"]);
  } finally {
    await listener.stop();
  }
});
