import { Logger } from "graphile-worker";
import { logger } from "@/lib/log";

/** graphile-worker's logger routed to ours under scope "worker"; its debug chatter only at LOG_LEVEL=debug. */
export function quietGraphileLogger(): Logger {
  const log = logger("worker");
  return new Logger(() => (level, message) => {
    if (level === "error") log.error(message);
    else if (level === "warning") log.warn(message);
    else if (level === "info") log.debug(message);
    else log.debug(message);
  });
}
