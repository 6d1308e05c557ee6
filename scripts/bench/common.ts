/**
 * What the bench:* scripts share: their log line, a percentile of sorted values, JSON bodies of a set
 * size, the sink process (scripts/bench/sink.ts) that answers deliveries 200 at once and records their arrivals,
 * and the CPU and memory of a run's processes by part (from /proc).
 */
import { type ChildProcess, fork } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

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
  /** Like `openArrivals`, then the sink forgets the key's arrivals; `failed`: deliveries it answered 503 on purpose (`?fail=`) since the last take. */
  take: (key: string) => Promise<{ seqs: Map<number, number[]>; failed: number }>;
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
  const take = async (key: string) => {
    const r = await request<{ seqs: [number, number[]][]; failed: number }>({ take: key }, (m) => "takeKey" in m && m.takeKey === key);
    return { seqs: new Map(r.seqs), failed: r.failed };
  };
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve((m as { port: number }).port)));
  return { process: child, url: `http://127.0.0.1:${port}`, ask, openArrivals, openCount, take };
}

/**
 * One process's figures from /proc: its parent, CPU time used so far (ms, all threads), resident memory (bytes),
 * command line, and its main thread's time on a CPU and time runnable but waiting for one (ms, schedstat).
 */
export type ProcInfo = { ppid: number; cpuMs: number; rss: number; cmd: string; runMs: number; waitMs: number };

/** Every process of the machine this user can read (Linux; empty elsewhere). */
function readProcs(): Map<number, ProcInfo> {
  const procs = new Map<number, ProcInfo>();
  if (!existsSync("/proc/self/stat")) return procs;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ");
      // stat fields 14 and 15 (utime, stime) in USER_HZ (100 on Linux) ticks; 24 (rss) in pages of 4 KiB.
      procs.set(Number(name), {
        ppid: Number(fields[1]),
        cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
        rss: Number(fields[21]) * 4096,
        cmd: readFileSync(`/proc/${name}/cmdline`, "utf8"),
        ...schedstat(name),
      });
    } catch {
      /* gone meanwhile */
    }
  }
  return procs;
}

/** `/proc/<pid>/schedstat` of the main thread: time on a CPU and time waiting in the run queue, ms (0 when unreadable). */
function schedstat(pid: string): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ").map(Number);
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { runMs: 0, waitMs: 0 };
  }
}

/** The proportional set size of `pid` (bytes): its private memory plus its share of shared pages; 0 if unreadable. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The PID of the embedded test PostgreSQL's postmaster (scripts' `startTestDatabase()`), or -1. */
export function testPostmaster(): number {
  const pidFile = path.resolve(".data/test-pg/pg/postmaster.pid");
  return existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : -1;
}

/**
 * CPU (ms so far) and memory (bytes) of one part of a run; `processes` counts its processes, `largestRss` is
 * the resident set of its largest process; `runMs` and `waitMs` sum its main threads' time on a CPU and time
 * runnable but waiting for one (ms so far): a large wait share means the machine, not the part, is the limit.
 */
export type PartUsage = { cpuMs: number; rss: number; largestRss: number; processes: number; runMs: number; waitMs: number };

/**
 * CPU time and memory of a run's processes by part, from /proc (Linux; empty elsewhere): `roots` maps a
 * root PID to its part's name; every descendant counts in its root's part. A Hookyard server
 * (`startServer()`, part "hookyard") is split into "web", "worker" and "supervisor" by command line. Memory is
 * the resident set of each process, except for "postgres", whose processes share their buffers: there it
 * is the sum of proportional set sizes (shared pages counted once in all). Other processes are not counted.
 */
export function usageByPart(roots: Map<number, string>): Map<string, PartUsage> {
  const out = new Map<string, PartUsage>();
  for (const [pid, { part, ...p }] of processesByPart(roots)) {
    const u = out.get(part) ?? out.set(part, { cpuMs: 0, rss: 0, largestRss: 0, processes: 0, runMs: 0, waitMs: 0 }).get(part)!;
    u.cpuMs += p.cpuMs;
    u.runMs += p.runMs;
    u.waitMs += p.waitMs;
    u.largestRss = Math.max(u.largestRss, p.rss);
    u.rss += part === "postgres" ? pss(pid) : p.rss;
    u.processes++;
  }
  return out;
}

/**
 * The processes of `roots`' trees by PID, each with its part (as {@link usageByPart} names them) and its
 * figures from /proc (CPU and main-thread run and wait times so far, ms; resident memory, bytes).
 */
export function processesByPart(roots: Map<number, string>): Map<number, ProcInfo & { part: string }> {
  const out = new Map<number, ProcInfo & { part: string }>();
  const procs = readProcs();
  for (const [pid, p] of procs) {
    let part: string | undefined;
    for (let at: number | undefined = pid; at && !part; at = procs.get(at)?.ppid) part = roots.get(at);
    if (!part) continue;
    // The script (tsx) or its bundle (.next/hookyard-processes/web.mjs: scripts/build-if-needed.ts).
    if (part === "hookyard") part = /\bweb\.m?[jt]s\b/.test(p.cmd) ? "web" : /\bworker\.m?[jt]s\b/.test(p.cmd) ? "worker" : "supervisor";
    out.set(pid, { ...p, part });
  }
  return out;
}

/** The machine's 1-minute load average, two decimals ("n/a" where the OS has none). */
export const loadAverage = () => (os.loadavg()[0] ? os.loadavg()[0].toFixed(2) : "n/a");

/** One line naming the machine and the moment, for a bench's output: cores, CPU model, memory, Node, UTC time, load average. */
export const machineLine = () =>
  `${os.cpus().length} cores, ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; ${new Date().toISOString()}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

/**
 * One call to a Hookyard API (the gateway's or the outbound service's) with `Bearer key`; `body` goes as JSON.
 * Resolves with the JSON answer; throws with the status and answer text on a status of 300 or more.
 */
export async function apiCall<T>(method: string, url: string, key: string, body?: unknown): Promise<T> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/**
 * Creates a gateway connection from source `source` (created on first use, reused by name) to a new HTTP
 * destination `destination` at `url`, with `rules` (docs/pipeline.md "Rules") and `ordering` (docs/pipeline.md
 * "Ordered delivery"); resolves with the source.
 */
export async function gatewayConnection(
  server: string,
  key: string,
  o: { source: string; destination: string; url: string; rules?: unknown[]; ordering?: unknown },
): Promise<{ url: string; id: string }> {
  const created = await apiCall<{ source: { url: string; id: string } }>("POST", `${server}/api/2025-07-01/connections`, key, {
    name: o.destination,
    source: { name: o.source },
    destination: { name: o.destination, config: { url: o.url }, ...(o.ordering ? { ordering: o.ordering } : {}) },
    ...(o.rules ? { rules: o.rules } : {}),
  });
  return created.source;
}

/**
 * Ends a bench run: stops the Hookyard `server`, the test database and the sink, then exits (0 when `ok`).
 */
export async function endRun(ok: boolean, server: { stop: () => Promise<void> }, db: { pg: { stop: () => Promise<void> } }, sink: Sink): Promise<never> {
  await server.stop();
  await db.pg.stop();
  sink.process.kill();
  process.exit(ok ? 0 : 1);
}
