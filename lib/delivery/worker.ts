/**
 * The delivery worker (design "The delivery engine", "Processes and scale"): graphile-worker runs the
 * `deliver` jobs (WORKER_CONCURRENCY at once), and a sweeper repairs what a crashed process left:
 * - requests committed but never fanned out (`request_fanouts` rows older than PIPELINE_RECOVERY_AFTER_MS);
 * - events claimed by a worker that died mid-delivery (their lease expired): queued again.
 * It also drops expired deduplication keys. `npm start` runs one worker in-process (WORKER_ENABLED);
 * `npm run worker` runs more on other machines.
 */
import { run, type Runner } from "graphile-worker";
import { getConfig } from "@/lib/config";
import { databaseUrl, getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { deliverEvent } from "@/lib/delivery/deliver-event";
import { quietGraphileLogger } from "@/lib/delivery/graphile-logger";
import { closeSender } from "@/lib/delivery/http-sender";
import { DELIVER_TASK, enqueueDeliveries } from "@/lib/delivery/jobs";
import { fanOut } from "@/lib/gateway/pipeline/fanout";
import { logger } from "@/lib/log";

const log = logger("worker");

/**
 * One sweep: fans out left-behind requests and queues events whose lease expired.
 * Returns what it repaired. Throws on database errors.
 */
export async function sweep(now = Date.now()): Promise<{ fanouts: number; events: number }> {
  const { pipelineRecoveryAfterMs } = getConfig();
  const { rows } = await getPool().query<{ request_id: string }>(
    "SELECT request_id FROM request_fanouts WHERE created_at < $1 ORDER BY created_at LIMIT 500",
    [new Date(now - pipelineRecoveryAfterMs)],
  );
  if (rows.length) await fanOut(rows.map((r) => r.request_id), now);
  const events = await inTransaction(async (client) => {
    const { rows: expired } = await client.query<{ id: string }>(
      `UPDATE events SET locked_until = NULL, next_attempt_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM events WHERE status = 'QUEUED' AND locked_until < now() LIMIT 500 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
    );
    await enqueueDeliveries(client, expired.map((e) => e.id));
    return expired.length;
  });
  await getPool().query("DELETE FROM dedup_keys WHERE expires_at < now() - interval '1 minute'");
  return { fanouts: rows.length, events };
}

export type WorkerHandle = { stop: () => Promise<void> };

/** Starts graphile-worker and the sweeper in this process. Throws when the job schema is missing. */
export async function startWorker(): Promise<WorkerHandle> {
  const config = getConfig();
  const runner: Runner = await run({
    connectionString: databaseUrl(),
    concurrency: config.workerConcurrency,
    maxPoolSize: Math.min(10, config.workerConcurrency + 2),
    noHandleSignals: true,
    pollInterval: 250,
    logger: quietGraphileLogger(),
    taskList: {
      [DELIVER_TASK]: async (payload) => {
        const eventId = (payload as { event_id?: unknown }).event_id;
        if (typeof eventId === "string") await deliverEvent(eventId);
      },
    },
  });
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep()
      .then((r) => {
        if (r.fanouts || r.events) log.info(`recovered ${r.fanouts} fan-outs and ${r.events} deliveries left by a stopped process`);
      })
      .catch((err) => log.warn("sweep failed", err instanceof Error ? err.message : err))
      .finally(() => (sweeping = false));
  }, config.pipelineSweepIntervalMs);
  timer.unref();
  log.info(`delivery worker running (${config.workerConcurrency} at once)`);
  return {
    stop: async () => {
      clearInterval(timer);
      await runner.stop().catch(() => {});
      await closeSender();
    },
  };
}
