/**
 * The worker's fan-out loop: drains `request_fanouts` (fanOutPending) whenever ingestion announces
 * committed requests (NOTIFY on `hookyard_requests`, at most one per 20 ms per web process: lib/ingest/request-notifier.ts),
 * and every PIPELINE_SWEEP_INTERVAL_MS in case a notification was lost (a web process that died between
 * its commit and its NOTIFY). It also hears web processes report their ingestion saturated
 * (`hookyard_ingest_pressure`), which slows this process's deliveries (lib/delivery/pacing.ts). Fan-out runs in worker processes, never in the web process that answers
 * senders, so rules and event writes do not slow ingestion.
 */
import { getConfig } from "@/lib/config";
import { listenTo } from "@/lib/db/listen";
import { fanOutBatchSize, noteIngestPressure } from "@/lib/delivery/pacing";
import { waitForRoom } from "@/lib/gateway/delivery/dispatch-queue";
import { fanOutPending } from "@/lib/gateway/pipeline/fanout";
import { INGEST_PRESSURE_CHANNEL } from "@/lib/ingest/ingest-pressure";
import { REQUESTS_CHANNEL } from "@/lib/ingest/request-notifier";
import { logger } from "@/lib/log";

const log = logger("fanout");
/** Requests claimed per fan-out transaction. */
const FANOUT_BATCH = 200;
/** PostgreSQL's deadlock_detected. */
const DEADLOCK = "40P01";

type FanoutLoop = { stop: () => Promise<void>; drained: () => Promise<void> };

/** Starts the loop in this process. Resolves once it listens. */
export async function startFanoutLoop(): Promise<FanoutLoop> {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const drain = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          // Fan out only as fast as this process delivers: the rest waits durably in request_fanouts.
          while (!stopped) {
            await waitForRoom();
            if (stopped || (await fanOutPending(fanOutBatchSize(FANOUT_BATCH))) === 0) break;
          }
        } catch (err) {
          // Two batches that each wait for the other's earlier requests (deduplicate: claimEarlierPending)
          // deadlock; PostgreSQL ends one, whose requests the other or this retry fans out now.
          if ((err as { code?: unknown } | null)?.code === DEADLOCK) again = true;
          else log.warn("fan-out failed; retrying at the next sweep", err instanceof Error ? err.message : err);
        }
      } while (again && !stopped);
    })().finally(() => (running = null));
    return running;
  };

  const listener = await listenTo("fan-out", [REQUESTS_CHANNEL, INGEST_PRESSURE_CHANNEL], (channel) => {
    if (channel === INGEST_PRESSURE_CHANNEL) noteIngestPressure();
    else void drain();
  });
  const timer = setInterval(() => void drain(), getConfig().pipelineSweepIntervalMs);
  timer.unref();
  void drain();
  return {
    drained: () => running ?? Promise.resolve(),
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await listener.stop();
    },
  };
}
