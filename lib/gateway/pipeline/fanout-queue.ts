/**
 * The fan-out fast path: requests committed by this process are fanned out here right after their
 * commit, in batches (up to 200 requests), one batch at a time. A batch that fails (or a process that
 * dies first) leaves its `request_fanouts` rows, which the worker's sweeper fans out after
 * PIPELINE_RECOVERY_AFTER_MS. Kept on globalThis: Next.js bundles its own copy of lib/.
 */
import { fanOut } from "@/lib/gateway/pipeline/fanout";
import { logger } from "@/lib/log";

const log = logger("fanout");
const MAX_BATCH = 200;

type QueueState = { pending: string[]; running: boolean; idle: Promise<void>; resolveIdle: (() => void) | null };
const g = globalThis as unknown as { __hookyardFanoutQueue?: QueueState };
const state = (): QueueState => (g.__hookyardFanoutQueue ??= { pending: [], running: false, idle: Promise.resolve(), resolveIdle: null });

async function drain(q: QueueState): Promise<void> {
  q.running = true;
  try {
    while (q.pending.length) {
      const batch = q.pending.splice(0, MAX_BATCH);
      try {
        await fanOut(batch);
      } catch (err) {
        log.warn(`fan-out of ${batch.length} requests failed; the sweeper will retry them`, err instanceof Error ? err.message : err);
      }
    }
  } finally {
    q.running = false;
    q.resolveIdle?.();
    q.resolveIdle = null;
  }
}

/** Queues committed requests (ids) for fan-out in this process. Never throws. */
export function scheduleFanout(requestIds: string[]): void {
  if (requestIds.length === 0) return;
  const q = state();
  q.pending.push(...requestIds);
  if (!q.running) {
    q.idle = new Promise((resolve) => (q.resolveIdle = resolve));
    void drain(q);
  }
}

/** Resolves when the queue is empty (shutdown). */
export function fanoutIdle(): Promise<void> {
  const q = state();
  return q.running ? q.idle : Promise.resolve();
}
