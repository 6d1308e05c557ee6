/**
 * `tsx scripts/bench/api-queries.ts`: the data layer of the API's plain CRUD alone, in one process, with
 * no HTTP server (docs/benchmarks.md "API latency"): the query of the API key check, GET one and POST
 * create of a source, once as hand-written SQL over `pg` and once through Prisma Client
 * (lib/db/prisma.ts), on the same pool and database. Rounds alternate the two, so
 * a busy machine slows both alike. Prints the mean and p50/p99 (µs) per query, sequential (one at a time)
 * and with BENCH_CONCURRENCY (default 20) at once.
 * Env: BENCH_ITERATIONS (per round and side, default 400), BENCH_ROUNDS (default 4), BENCH_CONCURRENCY.
 */
import os from "node:os";
import { startTestDatabase } from "../../e2e/support/servers";
import { log, percentile } from "./common";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 400);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 20);

// A data directory of its own: the HTTP benchmarks and the tests use .data/test-pg.
const db = await startTestDatabase({ dataDir: ".data/bench-queries-pg" });
process.env.DATABASE_URL = db.url;
const { getPool, closePool } = await import("@/lib/db/pool");
const { getPrisma } = await import("@/lib/db/prisma");
const { createTeam } = await import("@/lib/teams/bootstrap");
const { createApiKey, hashApiKey } = await import("@/lib/teams/api-keys");
const { createSource } = await import("@/lib/gateway/sources/source-store");
const { encryptJson } = await import("@/lib/crypto/secrets");
const { createId } = await import("@/lib/ids");

const { teamId } = await createTeam("bench");
const { key } = await createApiKey(teamId, "bench");
const seeded = await createSource(teamId, { name: "seed" }, "2025-07-01");
await getPrisma().$connect();

const pool = getPool();
const OLD_COLUMNS = "s.id, s.team_id, s.name, s.description, s.type, s.config, s.auth_encrypted, s.disabled_at, s.created_at, s.updated_at";
let n = 0;
/** Each query: as the SQL it replaced, and as it is now. */
const cases: { name: string; sql: () => Promise<unknown>; prisma: () => Promise<unknown> }[] = [
  {
    name: "API key check",
    sql: () =>
      pool.query(
        "SELECT k.id, k.team_id, k.last_used_at FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND t.mode = 'TEAM'",
        [hashApiKey(key)],
      ),
    // What the check would be through Prisma (it stays SQL: lib/teams/api-keys.ts authenticateApiKey).
    prisma: () =>
      getPrisma().apiKey.findFirst({
        where: { keyHash: hashApiKey(key), revokedAt: null, team: { mode: "TEAM" } },
        select: { id: true, teamId: true, lastUsedAt: true },
      }),
  },
  {
    name: "GET source by id",
    sql: () => pool.query(`SELECT ${OLD_COLUMNS} FROM sources s WHERE s.id = $1 AND s.team_id = $2`, [seeded.id, teamId]),
    // What the read would be through Prisma (outside transactions it stays SQL: lib/gateway/team-resources.ts findTeamModel).
    prisma: () => getPrisma().source.findFirst({ where: { id: seeded.id, teamId } }),
  },
  {
    name: "create source",
    sql: () =>
      pool.query(
        `INSERT INTO sources AS s (id, team_id, name, description, type, config, auth_encrypted, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now()) ON CONFLICT (team_id, name) DO NOTHING RETURNING ${OLD_COLUMNS}`,
        [createId("source"), teamId, `sql-${n++}`, null, "WEBHOOK", JSON.stringify({ allowed_http_methods: ["POST"] }), encryptJson(undefined)],
      ),
    // What the create would be through Prisma (outside transactions it stays SQL: lib/gateway/team-resources.ts createTeamModel).
    prisma: () =>
      getPrisma().source.create({
        data: {
          id: createId("source"),
          teamId,
          name: `prisma-${n++}`,
          type: "WEBHOOK",
          config: { allowed_http_methods: ["POST"] },
          authEncrypted: encryptJson(undefined),
        },
      }),
  },
];

/** Runs `fn` `iterations` times, `parallel` at a time; returns each call's time (µs). */
async function time(fn: () => Promise<unknown>, parallel: number): Promise<number[]> {
  const times: number[] = [];
  let left = iterations;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (left-- > 0) {
        const t0 = performance.now();
        await fn();
        times.push((performance.now() - t0) * 1000);
      }
    }),
  );
  return times;
}

log(
  `${os.cpus().length} cores, ${os.cpus()[0]?.model}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; ${rounds} rounds × ${iterations} calls per side`,
);
// Warm-up: Prisma compiles each query shape once.
for (const c of cases) for (let i = 0; i < 50; i++) await Promise.all([c.sql(), c.prisma()]);

console.log(`\n| query | at once | SQL mean µs | SQL p50 | SQL p99 | Prisma mean µs | Prisma p50 | Prisma p99 | Prisma / SQL (mean) |`);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const c of cases) {
  for (const parallel of [1, concurrency]) {
    const all = { sql: [] as number[], prisma: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      // Alternate which side goes first.
      for (const side of r % 2 ? (["prisma", "sql"] as const) : (["sql", "prisma"] as const)) all[side].push(...(await time(c[side], parallel)));
    }
    const stats = (t: number[]) => {
      const s = [...t].sort((a, b) => a - b);
      return { mean: s.reduce((a, b) => a + b, 0) / s.length, p50: percentile(s, 50), p99: percentile(s, 99) };
    };
    const [s, p] = [stats(all.sql), stats(all.prisma)];
    const r = (x: number) => Math.round(x);
    console.log(
      `| ${c.name} | ${parallel} | ${r(s.mean)} | ${r(s.p50)} | ${r(s.p99)} | ${r(p.mean)} | ${r(p.p50)} | ${r(p.p99)} | ${(p.mean / s.mean).toFixed(2)} |`,
    );
  }
}

await getPrisma().$disconnect();
await closePool();
await db.pg.stop();
process.exit(0);
