/**
 * What the delivery queues hold, for `hookyard_queue_depth` and `hookyard_oldest_pending_seconds`
 * (docs/operations.md "Metrics and health"), read on a scrape by whichever process is scraped (web or
 * worker; installed by server.ts and startWorker). Here, at the process roots, because it reads the
 * gateway's and the outbound service's queues, which neither product may know of the other.
 * Hand-written SQL (one statement per gauge): counts and minimums over the queues' partial indexes.
 */
import { getPool } from "@/lib/db/pool";
import type { QueueSample } from "@/lib/observability/metrics";

/** Every state each product reports, so that an empty state shows as 0 instead of vanishing. */
const STATES = { gateway: ["fanout", "due", "scheduled", "in_flight", "held"], outbound: ["due", "scheduled", "in_flight"] } as const;

const PENDING_STATE = "CASE WHEN locked_until > now() THEN 'in_flight' WHEN next_attempt_at <= now() THEN 'due' ELSE 'scheduled' END";

const DEPTH_SQL = `
  SELECT 'gateway' AS product, ${PENDING_STATE} AS state, count(*)::float8 AS n FROM events WHERE status IN ('QUEUED', 'SCHEDULED') GROUP BY 2
  UNION ALL SELECT 'gateway', 'held', count(*)::float8 FROM events WHERE status = 'HOLD'
  UNION ALL SELECT 'gateway', 'fanout', count(*)::float8 FROM request_fanouts
  UNION ALL SELECT 'outbound', ${PENDING_STATE}, count(*)::float8 FROM outbound_deliveries WHERE status = 'pending' GROUP BY 2`;

// Due and not leased (or its lease expired): work no worker has taken. Fan-out rows count from their creation.
const OLDEST_SQL = `
  SELECT GREATEST(
           (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM events
             WHERE status IN ('QUEUED', 'SCHEDULED') AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())),
           (SELECT extract(epoch FROM now() - created_at) FROM request_fanouts ORDER BY request_id LIMIT 1),
           0)::float8 AS gateway,
         GREATEST(
           (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM outbound_deliveries
             WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())),
           0)::float8 AS outbound`;

/** Samples both queues (two statements at once on the process pool). Throws on database errors. */
export async function sampleQueues(): Promise<QueueSample> {
  const pool = getPool();
  const [depth, oldest] = await Promise.all([
    pool.query<{ product: keyof typeof STATES; state: string; n: number }>(DEPTH_SQL),
    pool.query<{ gateway: number; outbound: number }>(OLDEST_SQL),
  ]);
  const counts = new Map(depth.rows.map((r) => [`${r.product}/${r.state}`, r.n]));
  return {
    depth: Object.entries(STATES).flatMap(([product, states]) => states.map((state) => ({ product, state, count: counts.get(`${product}/${state}`) ?? 0 }))),
    oldestSeconds: [
      { product: "gateway", seconds: oldest.rows[0]?.gateway ?? 0 },
      { product: "outbound", seconds: oldest.rows[0]?.outbound ?? 0 },
    ],
  };
}
