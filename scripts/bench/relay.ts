/**
 * The reference relay of the open-loop steps (docs/benchmarks.md "Open-loop steps"): a minimal durable
 * webhook relay in plain Node and `pg` on the same PostgreSQL as Hookyard, the floor Hookyard must reach.
 * - Receive: one INSERT per request (its own transaction); 200 only after the commit.
 * - Deliver: RELAY_LOOPS loops, each claiming up to 100 due rows with `FOR UPDATE SKIP LOCKED` in a
 *   transaction, POSTing each row's body to SINK_URL (undici Pool, keep-alive), marking the answered 2xx
 *   delivered (the others due again in 1 s), committing; a loop that found nothing sleeps 5 ms.
 * No other batching. Started by scripts/bench/steps.ts, like reference-server.ts; prints "relay ready".
 * The IPC message "pause" pauses delivery (each loop ends its transaction first: no claim, no open
 * transaction, no polling while Hookyard's step runs); "resume" resumes it; SIGTERM ends the process.
 * Env: DATABASE_URL, PORT, SINK_URL, RELAY_LOOPS (default 4), DB_POOL_SIZE (default 20).
 */
import http from "node:http";
import pg from "pg";
import { Pool } from "undici";

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
await db.query(`CREATE TABLE IF NOT EXISTS bench_relay (
  id bigserial PRIMARY KEY, content_type text, body bytea NOT NULL, received_at timestamptz NOT NULL DEFAULT now(),
  due_at timestamptz NOT NULL DEFAULT now(), attempts int NOT NULL DEFAULT 0, delivered_at timestamptz)`);
await db.query("CREATE INDEX IF NOT EXISTS bench_relay_due ON bench_relay (due_at) WHERE delivered_at IS NULL");

const sinkUrl = new URL(process.env.SINK_URL!);
const sink = new Pool(sinkUrl.origin, { connections: 100, keepAliveTimeout: 60_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    db.query<{ id: string }>("INSERT INTO bench_relay (content_type, body) VALUES ($1, $2) RETURNING id", [
      req.headers["content-type"] ?? null,
      Buffer.concat(chunks),
    ]).then(
      ({ rows }) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "SUCCESS", id: rows[0].id }));
      },
      (err) => {
        res.writeHead(500);
        res.end(String(err));
      },
    );
  });
});

/** POSTs one row to the sink; true on a 2xx answer. */
async function post(row: { id: string; content_type: string | null; body: Buffer }): Promise<boolean> {
  try {
    const r = await sink.request({
      path: `${sinkUrl.pathname}${sinkUrl.search}`,
      method: "POST",
      headers: { "content-type": row.content_type ?? "application/octet-stream", "x-relay-id": row.id },
      body: row.body,
    });
    await r.body.dump();
    return r.statusCode >= 200 && r.statusCode < 300;
  } catch {
    return false;
  }
}

let running = true;
let resume: Promise<void> | null = null;
let resumed = () => {};
async function deliverLoop(): Promise<void> {
  while (running) {
    if (resume) await resume;
    let claimed = 0;
    const c = await db.connect();
    try {
      await c.query("BEGIN");
      const { rows } = await c.query<{ id: string; content_type: string | null; body: Buffer }>(
        "SELECT id, content_type, body FROM bench_relay WHERE delivered_at IS NULL AND due_at <= now() ORDER BY due_at LIMIT 100 FOR UPDATE SKIP LOCKED",
      );
      claimed = rows.length;
      const ok = await Promise.all(rows.map(post));
      const delivered = rows.filter((_, i) => ok[i]).map((r) => r.id);
      const failed = rows.filter((_, i) => !ok[i]).map((r) => r.id);
      if (delivered.length) await c.query("UPDATE bench_relay SET delivered_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])", [delivered]);
      if (failed.length)
        await c.query("UPDATE bench_relay SET due_at = now() + interval '1 second', attempts = attempts + 1 WHERE id = ANY($1::bigint[])", [failed]);
      await c.query("COMMIT");
    } catch (err) {
      await c.query("ROLLBACK").catch(() => {});
      if (running) console.error(`relay: ${String(err)}`);
      await sleep(100);
    } finally {
      c.release();
    }
    if (claimed === 0) await sleep(5);
  }
}

const loops = Array.from({ length: Number(process.env.RELAY_LOOPS ?? 4) }, deliverLoop);
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("relay ready"));
process.on("message", (m) => {
  if (m === "pause") resume ??= new Promise<void>((r) => (resumed = r));
  if (m === "resume") {
    resume = null;
    resumed();
  }
});
process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));
process.on("SIGTERM", () => {
  running = false;
  resume = null;
  resumed();
  server.close();
  void Promise.all(loops).then(async () => {
    await sink.close();
    await db.end();
    process.exit(0);
  });
});
