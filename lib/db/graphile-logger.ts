import { Logger } from "graphile-worker";
import { logger } from "@/lib/log";

/** graphile-worker's logger routed to ours under scope "worker"; its debug chatter only at LOG_LEVEL=debug. */
export function quietGraphileLogger(): Logger {
  const log = logger("worker");
  return new Logger(() => (level, message) => {
    if (level === "error") log.error(message);
    // By design: jobs spend their time waiting on destinations, not on Postgres, and are fetched and
    // completed in batches, so a pool of DB_POOL_SIZE serves WORKER_CONCURRENCY jobs (docs/scaling.md).
    else if (level === "warning" && /maxPoolSize .* smaller than concurrency/.test(message)) log.debug(message);
    else if (level === "warning") log.warn(message);
    else if (level === "info") log.debug(message);
    else log.debug(message);
  });
}
