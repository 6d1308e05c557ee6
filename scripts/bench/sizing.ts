/**
 * `npx tsx scripts/bench/sizing.ts`: bytes on disk per request, event and attempt
 * (docs/scaling.md#retention-and-sizing). Sends BENCH_REQUESTS (default 10000) POSTs of 1 KiB JSON through a
 * console test URL (real ingestion: requests + request_raw_data), then writes one event and one attempt per
 * request with SQL shaped like the pipeline's rows (event with no transformed data, attempt with a 64-byte
 * response body), and prints pg_total_relation_size (heap + TOAST + indexes, all partitions) per row.
 */
import autocannon from "autocannon";
import pg from "pg";
import { startServer, startTestDatabase } from "../../e2e/support/servers";
import { createId } from "@/lib/ids";
import { buildIfNeeded } from "../build-if-needed";

const amount = Number(process.env.BENCH_REQUESTS ?? 10_000);
// Valid JSON of exactly 1 KiB (a team source answers 400 UNPARSABLE_JSON to a truncated one).
const jsonOf = (pad: number) => JSON.stringify({ type: "invoice.paid", data: { id: "in_1", amount: 4200, customer: "cus_1", pad: "x".repeat(pad) } });
const body = jsonOf(1024 - jsonOf(0).length);

buildIfNeeded((m) => console.log(`[sizing] ${m}`));
const db = await startTestDatabase();
const hookyard = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", WORKER_ENABLED: "false" });
try {
  const create = await fetch(`${hookyard.url}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const { ingest_url: url } = (await create.json()) as { ingest_url: string };
  await new Promise<void>((resolve, reject) =>
    autocannon({ url, method: "POST", connections: 10, amount, headers: { "content-type": "application/json" }, body }, (err: Error | null) =>
      err ? reject(err) : resolve(),
    ),
  );
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows: reqs } = await client.query<{ id: string; team_id: string; source_id: string }>("SELECT id, team_id, source_id FROM requests");
  for (let i = 0; i < reqs.length; i += 1000) {
    const batch = reqs.slice(i, i + 1000);
    const events = batch.map(() => createId("event"));
    await client.query(
      `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, last_attempt_at, response_status, successful_at)
       SELECT e, r.team_id, 'web_0352oEI76LqpCnrDwvJskg', r.source_id, 'des_0352oEI76LqpCnrDwvJskg', r.id, 'SUCCESSFUL', 1, now(), 200, now()
         FROM unnest($1::text[], $2::text[]) AS x(e, rid) JOIN requests r ON r.id = x.rid`,
      [events, batch.map((r) => r.id)],
    );
    await client.query(
      `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, body, requested_url, http_method,
                             successful_at, delivered_at, responded_at, delivery_latency, response_latency)
       SELECT a, $3, e, 'des_0352oEI76LqpCnrDwvJskg', 1, 'INITIAL', 'SUCCESSFUL', 200, repeat('r', 64), 'https://example.com/webhooks/hookyard', 'POST',
              now(), now(), now(), 42, 40 FROM unnest($1::text[], $2::text[]) AS x(a, e)`,
      [events.map(() => createId("attempt")), events, batch[0].team_id],
    );
  }
  await client.query("VACUUM ANALYZE");
  const size = async (table: string) =>
    Number((await client.query<{ n: string }>(`SELECT sum(pg_total_relation_size(relid))::bigint AS n FROM pg_partition_tree($1)`, [table])).rows[0].n);
  const n = reqs.length;
  const r = (await size("requests")) + (await size("request_raw_data"));
  const e = await size("events");
  const a = await size("attempts");
  console.log(`[sizing] ${n} requests of ${body.length} bytes through ${url}`);
  console.log(`| row | bytes per row (pg_total_relation_size, all partitions, indexes included) |`);
  console.log(`|---|---|`);
  console.log(`| request (requests + request_raw_data) | ${Math.round(r / n)} |`);
  console.log(`| event | ${Math.round(e / n)} |`);
  console.log(`| attempt (64-byte response body) | ${Math.round(a / n)} |`);
  await client.end();
} finally {
  await hookyard.stop();
  await db.pg.stop();
}
