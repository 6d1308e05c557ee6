import { getConfig } from "@/lib/config";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

function emit(level: Level, scope: string, message: string, extra?: unknown) {
  if (LEVELS[level] < LEVELS[getConfig().logLevel]) return;
  const line = `${new Date().toISOString()} ${level.toUpperCase()} [${scope}] ${message}`;
  const detail = extra instanceof Error ? (extra.stack ?? extra.message) : extra;
  (level === "error" || level === "warn" ? console.error : console.log)(
    detail === undefined ? line : `${line} ${typeof detail === "string" ? detail : JSON.stringify(detail)}`,
  );
}

/** A logger for `scope` that honours LOG_LEVEL (debug, info, warn, error, silent). */
export function logger(scope: string) {
  return {
    debug: (m: string, extra?: unknown) => emit("debug", scope, m, extra),
    info: (m: string, extra?: unknown) => emit("info", scope, m, extra),
    warn: (m: string, extra?: unknown) => emit("warn", scope, m, extra),
    error: (m: string, extra?: unknown) => emit("error", scope, m, extra),
  };
}
