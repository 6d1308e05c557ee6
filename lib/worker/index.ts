/**
 * The delivery worker (docs/pipeline.md#delivery-engine, docs/architecture.md#processes): the fan-out loop turns
 * committed requests into events (lib/gateway/pipeline/fanout-queue.ts) and delivers the due ones itself
 * (lib/gateway/delivery/dispatch-queue.ts), graphile-worker runs the `deliver` jobs of retries, delays and
 * requeued events (WORKER_CONCURRENCY at once each), and a sweeper repairs what a crashed process left:
 * events claimed by a worker that died mid-delivery (their short lease, DELIVERY_LEASE_MS, expired:
 * live workers renew theirs, lib/delivery/leases.ts) are queued again, and the jobs a dead worker had
 * fetched are unlocked at once (unlockJobsOfDeadWorkers).
 * It also drops expired deduplication keys. `npm start` runs one worker in-process (WORKER_ENABLED);
 * `npm run worker` runs more on other machines.
 */
import pg from "pg";
import { getConfig } from "@/lib/config";
import { directDatabaseUrl, getBackgroundPool, getSessionPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { deliverEvent } from "@/lib/gateway/delivery/deliver-event";
import { quietGraphileLogger } from "@/lib/db/graphile-logger";
import { closeSender } from "@/lib/delivery/http-sender";
import { startDispatch, stopDispatch } from "@/lib/gateway/delivery/dispatch-queue";
import { sweepOrderedHeads } from "@/lib/gateway/delivery/ordering";
import { sweepOutboundOrderedHeads } from "@/lib/outbound/ordering";
import { DELIVER_TASK, enqueueDeliveries } from "@/lib/delivery/jobs";
import { startPeriodic } from "@/lib/db/periodic";
import { startJobRunner } from "@/lib/delivery/job-runner";
import { heldEventIds, startLeaseRenewal } from "@/lib/delivery/leases";
import { startWatchdog, type WatchedEngine } from "@/lib/delivery/watchdog";
import { saturatedDestinations } from "@/lib/delivery/destination-limits";
import { startFanoutLoop } from "@/lib/gateway/pipeline/fanout-queue";
import { logger } from "@/lib/log";
import { startRetention } from "@/lib/worker/retention";
import { archiveStoreOf } from "@/lib/archive/store";
import { GATEWAY_ROLLUPS } from "@/lib/gateway/metrics/tables";
import { startRollups } from "@/lib/metrics/rollup";
import { BULK_TASK } from "@/lib/gateway/bulk/bulk-store";
import { runBulkSlice } from "@/lib/gateway/bulk/runner";
import { ARCHIVE_REPLAY_TASK, runArchiveReplaySlice } from "@/lib/outbound/archive-replay";
import { REDRIVE_TASK, runRedriveSlice } from "@/lib/outbound/redrive";
import { recordCircuitTransition, startIssueDetection } from "@/lib/gateway/issues/detect";
import { onBreakerTransition } from "@/lib/delivery/destination-state";
import { alertCircuitTransition } from "@/lib/outbound/alerts";
import { deliverOutbound, OUTBOUND_DELIVER_TASK } from "@/lib/outbound/delivery";
import { outboundDispatchActivity, startOutboundDispatch } from "@/lib/outbound/dispatch";
import { setQueueSampler } from "@/lib/observability/metrics";
import { sampleQueues } from "@/lib/worker/queue-metrics";

const log = logger("worker");
/** A due event nobody claimed for this long gets a spare job (a last resort), ms. */
const STALLED_AFTER_MS = 5 * 60_000;
/** Prefix of the application_name of each worker process's presence connection, followed by its graphile-worker pool id. */
export const PRESENCE_PREFIX = "hookyard-worker ";
let lastCleanup = 0;
/** This process's graphile-worker pool ids (set once its runner starts). */
const ownPools = new Set<string>();

/**
 * One sweep: queues events whose lease expired (their worker died) or that nobody claimed for
 * STALLED_AFTER_MS, and once a minute drops expired dedup keys and old destination rate-limit windows.
 * Returns what it repaired. Throws on database errors.
 */
export async function sweep(now = Date.now()): Promise<{ events: number }> {
  await unlockJobsOfDeadWorkers();
  const events = await inTransaction(async (client) => {
    // Claimed by a worker that died: the lease expired. (A leased event was due when it was claimed,
    // so it is found through events_pending_idx by next_attempt_at.) Never one this process still holds:
    // its renewal may only be late (a busy event loop), and taking it over would deliver it twice.
    const { rows: expired } = await client.query<{ id: string }>(
      `UPDATE events SET locked_until = NULL, next_attempt_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM events WHERE status = 'QUEUED' AND next_attempt_at < now() AND locked_until < now() AND NOT (id = ANY($1))
                      LIMIT 500 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [heldEventIds()],
    );
    await enqueueDeliveries(
      client,
      expired.map((e) => e.id),
    );
    // Due long ago and never claimed: its job may sit locked in the local queue of a dead process.
    // Keyed per event, so repeated sweeps add at most one extra job (a spare job finds nothing to claim).
    const { rowCount: stalled } = await client.query(
      `SELECT graphile_worker.add_job($1, json_build_object('event_id', id), job_key => 'stalled:' || id, job_key_mode => 'preserve_run_at', max_attempts => 10::smallint)
         FROM (SELECT id FROM events WHERE status IN ('QUEUED', 'SCHEDULED') AND locked_until IS NULL AND next_attempt_at < $2 LIMIT 500) AS s`,
      [DELIVER_TASK, new Date(now - STALLED_AFTER_MS)],
    );
    return expired.length + (stalled ?? 0);
  }, getBackgroundPool());
  // Ordered delivery's safety net: a key whose head was left without a job (docs/pipeline.md "Ordered delivery").
  const heads = await sweepOrderedHeads();
  // The same for outbound destinations: a key whose head was left parked (docs/outbound.md "Ordered delivery").
  await sweepOutboundOrderedHeads();
  if (now - lastCleanup > 60_000) {
    lastCleanup = now;
    // Expired deduplication keys, and destination rate-limit windows (one row per window) past any period.
    await getBackgroundPool().query("DELETE FROM dedup_keys WHERE expires_at < now() - interval '1 minute'");
    await getBackgroundPool().query("DELETE FROM rate_limit_counters WHERE key LIKE 'destination:%' AND window_start < now() - interval '2 hours'");
  }
  return { events: events + heads };
}

/**
 * Jobs fetched by a worker process that died stay locked in graphile-worker (for 4 hours). Every live
 * worker process keeps a presence connection named after its job pool (`hookyard-worker {pool id}`);
 * jobs locked for more than 5 s by a pool with no presence are unlocked, so any worker runs them now
 * (their events are claimed with a lease as usual: a spare run of a job changes nothing). Only while
 * this process's own presence (of `livePools`, default this process's pools) is connected: after a
 * database restart, presences come back first. Returns the number of dead pools unlocked. Throws on
 * database errors.
 */
export async function unlockJobsOfDeadWorkers(livePools: string[] = [...ownPools]): Promise<number> {
  if (livePools.length === 0) return 0;
  const { rows } = await getBackgroundPool().query<{ pools: string[] | null }>(
    `WITH present AS (SELECT substr(application_name, ${PRESENCE_PREFIX.length + 1}) AS pool FROM pg_stat_activity WHERE application_name LIKE '${PRESENCE_PREFIX}%'),
          dead AS (SELECT DISTINCT locked_by FROM graphile_worker.jobs
                    WHERE locked_by IS NOT NULL AND locked_at < now() - interval '5 seconds' AND locked_by NOT IN (SELECT pool FROM present)
                      AND EXISTS (SELECT 1 FROM present WHERE pool = ANY($1::text[])))
     SELECT (SELECT array_agg(locked_by) FROM dead) AS pools, (SELECT graphile_worker.force_unlock_workers(array_agg(locked_by)) FROM dead HAVING count(*) > 0)`,
    [livePools],
  );
  const pools = rows[0]?.pools ?? [];
  if (pools.length) log.info(`unlocked the jobs of ${pools.length} stopped worker(s): ${pools.join(", ")}`);
  return pools.length;
}

/** Keeps a connection named `hookyard-worker {poolId}` open (reconnecting every second) until the returned function is called. */
function keepPresence(poolId: string): () => void {
  let client: pg.Client | null = null;
  let stopped = false;
  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: directDatabaseUrl(), application_name: `${PRESENCE_PREFIX}${poolId}` });
    const retry = () => {
      if (client === c) client = null;
      c.end().catch(() => {});
      if (!stopped) setTimeout(connect, 1000).unref();
    };
    c.on("error", retry);
    c.connect().then(() => (stopped ? void c.end().catch(() => {}) : (client = c)), retry);
  };
  connect();
  return () => {
    stopped = true;
    void client?.end().catch(() => {});
  };
}

type WorkerHandle = { stop: () => Promise<void> };

/** The tasks this worker runs, by graphile-worker task name. */
const TASKS = {
  [DELIVER_TASK]: async (payload: unknown) => {
    const eventId = (payload as { event_id?: unknown }).event_id;
    if (typeof eventId === "string") await deliverEvent(eventId);
  },
  // One outbound delivery: jobs queued before the dispatcher took deliveries from their rows (lib/outbound/dispatch.ts).
  [OUTBOUND_DELIVER_TASK]: async (payload: unknown) => {
    const { event_id: eventId, destination_id: destinationId } = payload as { event_id?: unknown; destination_id?: unknown };
    if (typeof eventId === "string" && typeof destinationId === "string") await deliverOutbound(eventId, destinationId);
  },
  // An outbound redrive, a slice of batches at a time (lib/outbound/redrive.ts).
  [REDRIVE_TASK]: async (payload: unknown) => {
    const id = (payload as { redrive_id?: unknown }).redrive_id;
    if (typeof id === "string") await runRedriveSlice(id);
  },
  // An outbound replay from the archive, a slice of batches at a time (lib/outbound/archive-replay.ts).
  [ARCHIVE_REPLAY_TASK]: async (payload: unknown) => {
    const id = (payload as { archive_replay_id?: unknown }).archive_replay_id;
    if (typeof id === "string") await runArchiveReplaySlice(id);
  },
  // A bulk operation, a slice of batches at a time (lib/gateway/bulk/runner.ts).
  [BULK_TASK]: async (payload: unknown) => {
    const bulkId = (payload as { bulk_id?: unknown }).bulk_id;
    if (typeof bulkId === "string") await runBulkSlice(bulkId);
  },
};

/**
 * Age of the oldest job of this worker's tasks that is due, unlocked and not failed for good, when
 * older than `olderThanMs` (ms; null otherwise). Reads graphile-worker's job table through its
 * availability index (jobs_main_index). Throws on database errors.
 */
async function oldestDueJobMs(db: Pick<pg.Pool, "query">, olderThanMs: number): Promise<number | null> {
  const { rows } = await db.query<{ age: number | null }>(
    `SELECT (extract(epoch FROM now() - min(j.run_at)) * 1000)::float8 AS age
       FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE j.is_available AND j.run_at < now() - make_interval(secs => $1 / 1000.0) AND t.identifier = ANY($2::text[])`,
    [olderThanMs, Object.keys(TASKS)],
  );
  return rows[0]?.age ?? null;
}

/** Age of the oldest due outbound delivery nobody leased (ms), leaving out destinations at their ceiling here. */
async function oldestDueOutboundMs(db: Pick<pg.Pool, "query">, olderThanMs: number): Promise<number | null> {
  const { rows } = await db.query<{ age: number | null }>(
    `SELECT (extract(epoch FROM now() - min(next_attempt_at)) * 1000)::float8 AS age FROM outbound_deliveries
      WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1 / 1000.0)
        AND (locked_until IS NULL OR locked_until < now()) AND NOT (destination_id = ANY($2::text[]))`,
    [olderThanMs, saturatedDestinations()],
  );
  return rows[0]?.age ?? null;
}

/** What `GET /readyz` of this worker reads (workerReady). */
const readiness = { running: false, condition: null as string | null, lastSweepAt: 0 };

/**
 * Tells `npm start`'s supervisor (when it runs this process) that the worker is degraded (`why`) or
 * healthy again (null), for /healthz; /readyz reads it too.
 */
function reportCondition(why: string | null): void {
  readiness.condition = why;
  process.send?.({ type: "condition", condition: why }, () => {});
}

/**
 * Whether this process's worker does its job now (`GET /readyz` on its metrics listener, docs/operations.md
 * "Metrics and health"): it runs and is not stopping, neither its job runner nor its watchdog reports a
 * stall, and its sweeper (a pass over the pipeline's queues every PIPELINE_SWEEP_INTERVAL_MS, on the
 * database) succeeded within three intervals (at least 10 s). False before startWorker and after stop.
 */
export function workerReady(now = Date.now()): boolean {
  const staleAfterMs = Math.max(10_000, 3 * getConfig().pipelineSweepIntervalMs);
  return readiness.running && readiness.condition === null && now - readiness.lastSweepAt < staleAfterMs;
}

/**
 * Starts graphile-worker, the fan-out loop, the dispatchers, the sweeper, the periodic passes and the
 * progress watchdog in this process. `onGiveUp(why)` is called when the watchdog finds the worker stalled
 * beyond its own recovery (default: stop and exit with code 1, for the supervisor to start a new process).
 * Throws when the job schema is missing or the database cannot be reached.
 */
export async function startWorker(onGiveUp?: (why: string) => void): Promise<WorkerHandle> {
  const config = getConfig();
  const presences = new Map<string, () => void>();
  const runner = await startJobRunner(
    {
      // graphile-worker's own queries (fetch, complete) also commit asynchronously: a completion lost in
      // a crash only runs the job again, and the event's lease makes that a no-op or a redelivery.
      // It LISTENs and prepares named statements: a real session (DIRECT_DATABASE_URL behind a pooler).
      pgPool: getSessionPool(),
      concurrency: config.workerConcurrency,
      noHandleSignals: true,
      pollInterval: 250,
      // Jobs are fetched in batches and completions written in batches: far fewer queries per delivery.
      // A job fetched by a process that then dies stays locked in graphile-worker; the sweeper queues
      // such events again (see sweep()).
      preset: { worker: { localQueue: { size: Math.max(2, config.workerConcurrency) }, completeJobBatchDelay: 2, failJobBatchDelay: 2 } },
      logger: quietGraphileLogger(),
      taskList: TASKS,
    },
    {
      onPoolStart: (id) => {
        ownPools.add(id);
        presences.set(id, keepPresence(id));
      },
      // A pool that ended must not look alive to other workers (its presence goes with it).
      onPoolEnd: (id) => {
        ownPools.delete(id);
        presences.get(id)?.();
        presences.delete(id);
      },
      onCondition: reportCondition,
    },
  );
  startDispatch();
  const stopRenewal = startLeaseRenewal();
  const fanout = await startFanoutLoop();
  // Outbound deliveries, claimed from their rows (lib/outbound/dispatch.ts).
  const outbound = await startOutboundDispatch();
  const sweepPass = async () => {
    const r = await sweep();
    readiness.lastSweepAt = Date.now();
    if (r.events) log.info(`queued ${r.events} deliveries again (left by a stopped process or overdue)`);
  };
  const stopSweeps = startPeriodic(
    sweepPass,
    config.pipelineSweepIntervalMs,
    (err) => log.warn("sweep failed", err instanceof Error ? err.message : err),
    false,
  );
  // Retention holds a session advisory lock and sets lock_timeout for its DDL: a real session too.
  const stopRetention = startRetention(getSessionPool(), config.retentionDays, undefined, archiveStoreOf(config.archive));
  // Per-minute metrics rollups of closed minutes (lib/metrics/rollup.ts).
  const stopRollups = startRollups(getBackgroundPool(), Object.values(GATEWAY_ROLLUPS), (err) =>
    log.warn("metrics rollup pass failed", err instanceof Error ? err.message : err),
  );
  const stopIssues = startIssueDetection();
  // Circuit breaker transitions (lib/delivery/destination-state.ts): a gateway issue and notification, an outbound operator event.
  onBreakerTransition("gateway", (t) => recordCircuitTransition({ ...t, teamId: t.ownerId }));
  onBreakerTransition("outbound", (t) => alertCircuitTransition({ ...t, tenantId: t.ownerId }));
  const engines: WatchedEngine[] = [
    {
      name: "job runner",
      oldestDueMs: oldestDueJobMs,
      lastActivityAt: runner.lastActivityAt,
      busy: () => runner.inFlight() >= config.workerConcurrency,
      recover: runner.restart,
    },
    { name: "outbound dispatch", oldestDueMs: oldestDueOutboundMs, ...outboundDispatchActivity() },
  ];
  let handle: WorkerHandle;
  const stopWatchdog = startWatchdog({
    engines,
    db: getBackgroundPool(),
    stallMs: config.workerStallMs,
    checkMs: Math.max(500, Math.floor(config.workerStallMs / 4)),
    onCondition: reportCondition,
    onGiveUp:
      onGiveUp ??
      (() => {
        // The deliveries in flight get the stop's time to finish; then a fresh process takes over.
        const force = setTimeout(() => process.exit(1), config.deliveryTimeoutMs + 10_000);
        force.unref();
        void handle.stop().finally(() => process.exit(1));
      }),
  });
  log.info(`delivery worker running (${config.workerConcurrency} at once)`);
  // The queues' gauges, read when this process is scraped (docs/operations.md "Metrics and health").
  setQueueSampler(sampleQueues);
  Object.assign(readiness, { running: true, lastSweepAt: Date.now() });
  handle = {
    stop: async () => {
      readiness.running = false;
      const watchdogStopped = stopWatchdog();
      const sweepsStopped = stopSweeps();
      const issuesStopped = stopIssues();
      const retentionStopped = stopRetention();
      const rollupsStopped = stopRollups();
      // The fan-out stops claiming at once (it may be waiting for room in the dispatch queue: stopDispatch
      // wakes it; what it fans out meanwhile is handed back). The job runner stops before the unstarted
      // events are handed back as jobs, so they wait for another worker.
      const fanoutStopped = fanout.stop().catch(() => {});
      await stopDispatch(() => runner.stop());
      await outbound.stop();
      await fanoutStopped;
      stopRenewal();
      presences.forEach((p) => p());
      await closeSender();
      await Promise.all([watchdogStopped, sweepsStopped, issuesStopped, retentionStopped, rollupsStopped]);
    },
  };
  return handle;
}
