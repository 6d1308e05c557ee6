/**
 * The benchmark's reference: a bare Node `http` server that does one durable INSERT per request
 * (no batching) into the same database, then answers 200. Started by scripts/bench/ingest.ts.
 * Env: DATABASE_URL, PORT, DB_POOL_SIZE.
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
await pool.query(`CREATE TABLE IF NOT EXISTS bench_reference (
  id text PRIMARY KEY, method text NOT NULL, path text NOT NULL, headers jsonb NOT NULL, body bytea, received_at timestamptz NOT NULL)`);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const id = randomUUID();
    pool
      .query("INSERT INTO bench_reference (id, method, path, headers, body, received_at) VALUES ($1, $2, $3, $4, $5, now())", [
        id,
        req.method,
        req.url,
        JSON.stringify(req.headers),
        Buffer.concat(chunks),
      ])
      .then(
        () => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ status: "SUCCESS", request_id: id }));
        },
        (err) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("reference ready"));
// Fire-and-forget: the process exits once the pool has closed.
process.on("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));
