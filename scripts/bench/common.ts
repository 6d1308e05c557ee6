/**
 * What the bench:* scripts share: their log line, a percentile of sorted values, JSON bodies of a set
 * size, and the sink process (scripts/bench/sink.ts) that answers deliveries 200 at once and records their arrivals.
 */
import { type ChildProcess, fork } from "node:child_process";

/** Prints `m` as a `[bench]` line. */
export const log = (m: string) => console.log(`[bench] ${m}`);

/** The `p`th percentile (0-100) of `sorted` (ascending), nearest rank; NaN when empty. */
export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

/** `make(pad)` as JSON of exactly `bytes` characters (default 1 KiB): `pad` is the run of "x" that fills it (ASCII content assumed). */
export function jsonOfSize(make: (pad: string) => unknown, bytes = 1024): string {
  return JSON.stringify(make("x".repeat(Math.max(0, bytes - JSON.stringify(make("")).length))));
}

/**
 * A running sink: its process, its base URL, `ask` for its "stats" (arrivals) or "count", and for the
 * open-loop deliveries of one `<lane>/<tag>` key (sink.ts): `openArrivals` (seq → arrival ms…) and
 * `openCount` (distinct seqs arrived).
 */
export type Sink = {
  process: ChildProcess;
  url: string;
  ask: <T>(what: "stats" | "count") => Promise<T>;
  openArrivals: (key: string) => Promise<Map<number, number[]>>;
  openCount: (key: string) => Promise<number>;
};

/** Starts the sink in its own process; resolves once it listens. */
export async function startSink(): Promise<Sink> {
  const child = fork("scripts/bench/sink.ts", [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  /** Sends `message`, resolves with the first answer `is` accepts. */
  const request = <T>(message: unknown, is: (m: object) => boolean) =>
    new Promise<T>((resolve) => {
      const on = (m: unknown) => {
        if (m && typeof m === "object" && is(m)) {
          child.off("message", on);
          resolve(m as T);
        }
      };
      child.on("message", on);
      child.send(message as object);
    });
  const ask = <T>(what: "stats" | "count") => request<T>(what, (m) => (what === "stats" ? "arrivals" in m : "count" in m));
  const openArrivals = async (key: string) =>
    new Map((await request<{ seqs: [number, number[]][] }>({ open: key }, (m) => "openKey" in m && m.openKey === key)).seqs);
  const openCount = async (key: string) => (await request<{ n: number }>({ openCount: key }, (m) => "openCountKey" in m && m.openCountKey === key)).n;
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve((m as { port: number }).port)));
  return { process: child, url: `http://127.0.0.1:${port}`, ask, openArrivals, openCount };
}
