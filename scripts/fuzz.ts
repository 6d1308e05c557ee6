/**
 * `npm run fuzz [-- --runs N] [--seed S] [--concurrency C]`: the long fuzz of every endpoint of every
 * surface (docs/gateway-api.md "Input limits", docs/outbound.md; the short one with a fixed seed is e2e/fuzz.test.ts in `npm test`): the console,
 * ingestion, the CLI channel, the gateway API with its metrics, the outbound API (both forms), the portal
 * and the dashboard with its API. Every JSON 4xx must be in the body of the surface addressed. Builds the
 * app if needed, starts a fresh embedded PostgreSQL and a real server (rate limits raised so requests
 * reach validation), sends N generated requests (default 5,000; e2e/support/fuzz.ts), prints the counts
 * by status and every 5xx or hang with its request, then checks that ordinary requests still behave
 * (a create with valid fields, a fresh team's list, a console test URL, an ingest).
 * The seed is printed; FUZZ_SEED or --seed replays a run. Exits 1 on any 5xx, hang or broken service.
 */
import fc from "fast-check";
import { startServer, startTestDatabase } from "../e2e/support/servers";
import { describeRequest, type FuzzRequest, outboundFuzzContext, requestArb, send, shapeProblem } from "../e2e/support/fuzz";
import { buildIfNeeded } from "./build-if-needed";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const runs = Number(arg("runs") ?? process.env.FUZZ_RUNS ?? 5000);
const seed = Number(arg("seed") ?? process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const concurrency = Number(arg("concurrency") ?? 4);
const log = (m: string) => console.log(`[fuzz] ${m}`);

buildIfNeeded(log);
const db = await startTestDatabase();
process.env.DATABASE_URL = db.url;
const server = await startServer({
  DATABASE_URL: db.url,
  TRUST_PROXY: "true",
  GATEWAY_API_RATE_LIMIT: "1000000",
  CONSOLE_CREATE_RATE_LIMIT: "1000000",
  CONSOLE_NEW_RATE_LIMIT: "1000000",
  OUTBOUND_RATE_LIMIT: "1000000",
});
const { createTeam } = await import("@/lib/teams/bootstrap");
const { createApiKey } = await import("@/lib/teams/api-keys");
const { closePool } = await import("@/lib/db/pool");

const json = (apiKey: string) => ({ authorization: `Bearer ${apiKey}`, "content-type": "application/json" });
/** The fields of a created resource (test URL or connection) that the fuzz run reads. */
type Created = { id: string; inspect_url: string; source: { id: string }; destination: { id: string } };
async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: unknown }> {
  const a = await send(server.url, {
    method,
    path,
    headers: { "x-forwarded-for": "10.250.0.1", ...headers },
    ...(body !== undefined ? { body: Buffer.from(JSON.stringify(body)) } : {}),
  });
  return {
    status: a.status,
    json: (() => {
      try {
        return JSON.parse(a.body) as unknown;
      } catch {
        return a.body;
      }
    })(),
  };
}
async function newTeam(name: string) {
  const { teamId, cliKey } = await createTeam(name);
  const { key } = await createApiKey(teamId, "fuzz");
  return { teamId, apiKey: key, cliKey };
}

let failures = 0;
try {
  log(`seed ${seed} (replay: npm run fuzz -- --seed ${seed} --runs ${runs}), ${runs} requests, concurrency ${concurrency}, server ${server.url}`);
  const teams = await Promise.all([1, 2, 3].map((i) => newTeam(`fuzz ${i}`)));
  const ids: string[] = [];
  const created = await call("POST", "/", { "content-type": "application/json" }, {});
  ids.push(new URL((created.json as Created).inspect_url).pathname.slice(1));
  for (const t of teams) {
    const c = await call("POST", "/api/2025-07-01/connections", json(t.apiKey), {
      name: "fz",
      source: { name: "fz-src" },
      destination: { name: "fz-dst", config: { url: "http://127.0.0.1:9/" } },
      rules: [{ type: "filter", body: { a: 1 } }],
    });
    const connection = c.json as Created;
    ids.push(connection.id, connection.source.id, connection.destination.id);
  }
  const outbound = await outboundFuzzContext(server.url, teams[0].teamId);
  const requests = fc.sample(requestArb({ apiKeys: teams.map((t) => t.apiKey), cliKeys: teams.map((t) => t.cliKey), ids, ...outbound }), {
    seed,
    numRuns: runs,
  });
  const counts = new Map<string, number>();
  const bad: string[] = [];
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < requests.length) {
      const r: FuzzRequest = requests[next++];
      let key: string;
      try {
        const a = await send(server.url, r);
        key = String(a.status);
        if (a.status >= 500) bad.push(`${describeRequest(r)} → ${a.status} ${a.body.slice(0, 200)}`);
        const wrongShape = shapeProblem(r, a);
        if (wrongShape) bad.push(`${describeRequest(r)} → ${a.status} ${wrongShape}: ${a.body.slice(0, 200)}`);
      } catch (err) {
        key = (err as NodeJS.ErrnoException).code ?? "no answer";
        bad.push(`${describeRequest(r)} → ${(err as Error).message}`);
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (next % 1000 === 0) log(`${next}/${requests.length}…`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  log(
    `${requests.length} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; by status: ${[...counts]
      .sort()
      .map(([s, n]) => `${s}×${n}`)
      .join("  ")}`,
  );
  for (const b of bad.slice(0, 50)) log(`FAIL ${b}`);
  if (bad.length) log(`server log (end):\n${server.output().slice(-4000)}`);
  failures += bad.length;

  // The service still answers normally; a polluted Object.prototype would show as "Unrecognized key".
  const fresh = await newTeam("after fuzz");
  const checks: [string, number, () => Promise<{ status: number; json: unknown }>][] = [
    ["create a source with valid fields", 200, () => call("POST", "/api/2025-07-01/sources", json(fresh.apiKey), { name: "after-fuzz" })],
    ["update it", 200, () => call("PUT", "/api/2025-07-01/sources", json(fresh.apiKey), { name: "after-fuzz", description: "d" })],
    ["a fresh team's list", 200, async () => call("GET", "/api/2025-07-01/destinations", json((await newTeam("fresh")).apiKey))],
    ["create a console test URL", 201, () => call("POST", "/", { "content-type": "application/json" }, {})],
    ["ingest into it", 200, async () => call("POST", `/e/${ids[0]}`, { "content-type": "application/json" }, { ok: true })],
  ];
  for (const [what, expected, run] of checks) {
    const r = await run();
    const ok = r.status === expected;
    if (!ok) failures++;
    log(`${ok ? "ok  " : "FAIL"} ${what}: ${r.status}${ok ? "" : ` ${JSON.stringify(r.json).slice(0, 300)}`}`);
  }
} finally {
  await server.stop();
  await closePool();
  await db.pg.stop();
}
log(failures ? `${failures} failure(s); replay with --seed ${seed}` : "no 5xx, no hang, service normal afterwards");
process.exit(failures ? 1 : 0);
