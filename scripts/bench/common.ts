/**
 * What the bench:* scripts share: their log line, a percentile of sorted values, and the sink process
 * (scripts/bench/sink.ts) that answers deliveries 200 at once and records their arrivals.
 */
import { type ChildProcess, fork } from "node:child_process";

/** Prints `m` as a `[bench]` line. */
export const log = (m: string) => console.log(`[bench] ${m}`);

/** The `p`th percentile (0-100) of `sorted` (ascending), nearest rank; NaN when empty. */
export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

/** A running sink: its process, its base URL, and `ask` for its "stats" (arrivals) or "count". */
export type Sink = { process: ChildProcess; url: string; ask: <T>(what: "stats" | "count") => Promise<T> };

/** Starts the sink in its own process; resolves once it listens. */
export async function startSink(): Promise<Sink> {
  const child = fork("scripts/bench/sink.ts", [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const ask = <T>(what: "stats" | "count") =>
    new Promise<T>((resolve) => {
      const on = (m: unknown) => {
        if (m && typeof m === "object" && (what === "stats" ? "arrivals" in m : "count" in m)) {
          child.off("message", on);
          resolve(m as T);
        }
      };
      child.on("message", on);
      child.send(what);
    });
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve((m as { port: number }).port)));
  return { process: child, url: `http://127.0.0.1:${port}`, ask };
}
