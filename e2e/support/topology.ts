/**
 * The scaled-out topology behind a transaction-mode pooler (docs/operations.md#pooler, docs/scaling.md):
 * Debian's PostgreSQL 15 and a PgBouncer (`pool_mode = transaction`) in front of it, both run by this
 * module on loopback ports; two web-only processes (`npm start` with WORKER_ENABLED=false) and two
 * `npm run worker` processes, all with DATABASE_URL = PgBouncer and DIRECT_DATABASE_URL = PostgreSQL.
 *
 * Checked before the load: the console's create rate limit holds across both web processes (one
 * counter, not one per process), and a live view (`GET /{id}/live`) opened on one web process shows a
 * request ingested by the other. Then a steady load (half gateway requests to a source whose connection
 * delivers to a local receiver, half outbound publishes to a destination on the same receiver), spread
 * over both web processes, during which one web process and then one worker are killed with SIGKILL.
 * The load balancer of this run stops sending to a web process once a request to it got no answer.
 *
 * Used by `npm run topology` (scripts/topology.ts, 60 s; the last step of `npm test`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Agent, fetch } from "undici";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded";
import { processesByPart } from "../../scripts/bench/common";
import { bearerCall } from "./client";
import { PGBOUNCER, startPgBouncer } from "./pgbouncer";
import { freePort, killHard, type RunningServer, startServer } from "./servers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Debian's PostgreSQL 15 (what .ci/run installs), else another major the README promises. */
const PG_DIR = [15, 14, 16, 17].map((v) => `/usr/lib/postgresql/${v}`).find((d) => existsSync(path.join(d, "bin", "postgres"))) ?? "/usr/lib/postgresql/15";

export type TopologyOptions = {
  /** Offered requests per second in all (half gateway requests, half outbound publishes), spread over both web processes. */
  rate: number;
  /** How long the load lasts, ms; the web process is killed at a third of it and a worker at two thirds. */
  durationMs: number;
  /** Time allowed after the load for every accepted request and publish to be delivered, ms. */
  settleMs: number;
  /** The console create limit per minute for the run (CONSOLE_CREATE_RATE_LIMIT). */
  consoleLimit?: number;
  log?: (m: string) => void;
};

export type KillRecovery = {
  part: "web" | "worker";
  /** Deliveries in flight whose sender went away within 2 s after the kill, before the answer. */
  cut: number;
  /** ms from the kill until everything accepted before it was delivered (null: not within the settle time). */
  caughtUpAfterMs: number | null;
  /** ms from the kill until the last delivery cut by the kill was made again (null: none was cut). */
  redeliveredAfterMs: number | null;
};

export type TopologyReport = {
  /** Console creates allowed and refused (429) of 2 × the limit sent across both web processes. */
  rateLimit: { limit: number; allowed: number; refused: number; other: number };
  /** The live view on web 1 got the `request` event of a request sent to web 2, after this many ms (null: never). */
  liveEventAfterMs: number | null;
  offered: { gateway: number; outbound: number };
  accepted: { gateway: number; outbound: number };
  /** Accepted and delivered (a complete answer of the receiver) at least once. */
  delivered: { gateway: number; outbound: number };
  /** Deliveries beyond the first of each accepted id. */
  duplicates: { gateway: number; outbound: number };
  /** Deliveries whose sender closed its connection before the answer (the killed worker's in flight), and how many of them another worker made again. */
  cut: number;
  cutRedelivered: number;
  kills: KillRecovery[];
};

/** The report as the one summary line the test and `npm run topology` print. */
export function formatTopology(r: TopologyReport): string {
  const s = (ms: number | null) => (ms === null ? "never" : `${(ms / 1000).toFixed(1)} s`);
  const kills = r.kills.map(
    (k) =>
      `${k.part} kill: ${k.cut} deliveries cut, caught up after ${s(k.caughtUpAfterMs)}, cut deliveries redone after ${k.redeliveredAfterMs === null ? "(none)" : s(k.redeliveredAfterMs)}`,
  );
  return (
    `topology: accepted ${r.accepted.gateway} gateway + ${r.accepted.outbound} outbound (of ${r.offered.gateway} + ${r.offered.outbound} offered), ` +
    `delivered ${r.delivered.gateway} + ${r.delivered.outbound}, duplicates ${r.duplicates.gateway} + ${r.duplicates.outbound}, ` +
    `cut in flight ${r.cut} (${r.cutRedelivered} redone); ${kills.join("; ")}; ` +
    `console limit ${r.rateLimit.limit}/min: ${r.rateLimit.allowed} allowed, ${r.rateLimit.refused} refused across 2 web processes; live view across processes after ${s(r.liveEventAfterMs)}`
  );
}

/** What is wrong with `r` (empty: nothing): undelivered accepted requests, a limit counted per process, a missed live event. */
export function topologyProblems(r: TopologyReport): string[] {
  const problems: string[] = [];
  for (const p of ["gateway", "outbound"] as const) {
    // The load really ran through both products (a busy 2-core machine accepts less than it is offered).
    if (r.accepted[p] <= r.offered[p] * 0.3) problems.push(`only ${r.accepted[p]} of ${r.offered[p]} ${p} requests were accepted`);
    if (r.delivered[p] !== r.accepted[p]) problems.push(`${r.accepted[p] - r.delivered[p]} accepted ${p} requests were never delivered`);
  }
  // Deliveries whose sender was gone before the answer (the killed worker's in flight) were each made again.
  if (r.cutRedelivered !== r.cut) problems.push(`${r.cut - r.cutRedelivered} of ${r.cut} deliveries cut by the worker's kill were not made again`);
  for (const k of r.kills)
    if (k.caughtUpAfterMs === null) problems.push(`after the kill ${JSON.stringify(k)}, what was accepted before it was never all delivered`);
  if (r.rateLimit.allowed !== r.rateLimit.limit || r.rateLimit.refused !== r.rateLimit.limit)
    problems.push(`the console limit of ${r.rateLimit.limit} was not counted across processes: ${JSON.stringify(r.rateLimit)}`);
  if (r.liveEventAfterMs === null) problems.push("the live view on one web process missed a request ingested by the other");
  return problems;
}

/** Why the topology cannot run here (PostgreSQL 15 or PgBouncer missing), or null. */
export function topologyUnavailable(): string | null {
  if (!existsSync(path.join(PG_DIR, "bin", "postgres"))) return `PostgreSQL 15 is not installed (${PG_DIR}): apt-get install postgresql-15`;
  if (!existsSync(PGBOUNCER)) return `PgBouncer is not installed (${PGBOUNCER}): apt-get install pgbouncer`;
  return null;
}

type Worker = { process: ChildProcess; output: () => string; kill: () => void; stop: () => Promise<void> };

/** `npm run worker` (scripts/worker.ts) with `env`, in a process group of its own; resolves once it runs. */
async function startWorkerProcess(env: Record<string, string>): Promise<Worker> {
  let output = "";
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/worker.ts"], {
    env: { ...process.env, ...env, NODE_ENV: "production", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  for (const end = Date.now() + 60_000; !output.includes("delivery worker running"); await sleep(100)) {
    if (child.exitCode !== null || Date.now() > end) {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      throw new Error(`the worker did not start:\n${output}`);
    }
  }
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  return {
    process: child,
    output: () => output,
    kill: () => group("SIGKILL"),
    stop: async () => {
      if (child.exitCode !== null) return group("SIGKILL");
      const exited = new Promise((r) => child.once("exit", r));
      group("SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      group("SIGKILL");
    },
  };
}

/**
 * The receiver of both products' deliveries: `/gw` (the gateway request's body is its id) and `/ob` (the
 * outbound event id header). Answers after `delayMs`, so deliveries are in flight when a worker dies. A
 * delivery counts (`done`) once answered to a sender still there; one whose sender closed its connection
 * before the answer (the killed worker: the kernel closes its sockets) is `cut`.
 */
async function startDeliveryReceiver(delayMs: number) {
  type Entry = { product: "gateway" | "outbound"; id: string; at: number; cut: boolean; cutAt: number };
  const done = { gateway: new Map<string, number[]>(), outbound: new Map<string, number[]>() };
  const cut: Entry[] = [];
  const pending = new WeakMap<net.Socket, Set<Entry>>();
  const inFlight = new Set<Entry>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const product = req.url?.startsWith("/gw") ? "gateway" : "outbound";
      const id = product === "gateway" ? Buffer.concat(chunks).toString() : String(req.headers["x-outbound-event-id"] ?? "");
      const entry: Entry = { product, id, at: Date.now(), cut: false, cutAt: 0 };
      const socket = req.socket;
      let open = pending.get(socket);
      if (!open) {
        const set = new Set<Entry>();
        const senderGone = () => {
          for (const e of set) {
            e.cut = true;
            e.cutAt = Date.now();
            cut.push(e);
          }
          set.clear();
        };
        socket.on("end", senderGone);
        socket.on("close", senderGone);
        pending.set(socket, (open = set));
      }
      open.add(entry);
      inFlight.add(entry);
      setTimeout(() => {
        inFlight.delete(entry);
        if (entry.cut || res.destroyed) return;
        open.delete(entry);
        const list = done[product].get(id) ?? [];
        list.push(Date.now());
        done[product].set(id, list);
        res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    done,
    cut,
    /** Deliveries received and not answered yet. */
    inFlight: () => inFlight.size,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Runs `fn` on a connection of its own to `url`, then closes it. */
async function onDatabase<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Logs the 20 statements that took PostgreSQL longest over the run (pg_stat_statements: execution plus
 * planning, ms), with their calls and time per call, and the total; statements since the stats were reset.
 */
async function logStatements(url: string, log: (m: string) => void): Promise<void> {
  type Row = { calls: string; exec_ms: number; plan_ms: number; query: string };
  const { rows } = await onDatabase(url, (c) =>
    c.query<Row>(
      `SELECT calls, total_exec_time AS exec_ms, total_plan_time AS plan_ms, regexp_replace(query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC`,
    ),
  );
  const total = rows.reduce((n, r) => n + r.exec_ms + r.plan_ms, 0);
  log(`PostgreSQL statements: ${rows.length}, ${(total / 1000).toFixed(1)} s in all (execution + planning); the 20 longest:`);
  for (const r of rows.slice(0, 20)) {
    const ms = r.exec_ms + r.plan_ms;
    log(
      `  ${(ms / 1000).toFixed(1)} s (plan ${(r.plan_ms / 1000).toFixed(1)}), ${r.calls} calls, ${(ms / Number(r.calls)).toFixed(2)} ms each: ${r.query.slice(0, 140)}`,
    );
  }
}

/** One second of the run: deliveries not yet made per product, and each part's CPU and run-queue wait in it (ms). */
type TimelineSample = {
  at: number;
  gateway: { waiting: number; oldestMs: number };
  outbound: { waiting: number; oldestMs: number };
  usage: Map<string, { cpuMs: number; waitMs: number }>;
};

/**
 * `+12 gw 340 waiting, oldest 2.1 s; ob …; web cpu 41% wait 12%; …`: per part, the share of the second its
 * processes spent on a CPU (all threads) and their main threads spent runnable but waiting for one (summed
 * over its processes: PostgreSQL's backends can wait 300 % together).
 */
function formatSample(t: TimelineSample, started: number): string {
  const parts = [...t.usage].map(([part, u]) => `${part} cpu ${Math.round(u.cpuMs / 10)}% wait ${Math.round(u.waitMs / 10)}%`);
  const lag = (l: { waiting: number; oldestMs: number }) => `${l.waiting} waiting, oldest ${(l.oldestMs / 1000).toFixed(1)} s`;
  return `+${((t.at - started) / 1000).toFixed(0)} gw ${lag(t.gateway)}; ob ${lag(t.outbound)}; ${parts.join(", ")}`;
}

/** Runs the scenario; returns its report. Stops everything it started. Throws when a part does not start. */
export async function runTopology(opts: TopologyOptions): Promise<TopologyReport> {
  const log = opts.log ?? (() => {});
  const unavailable = topologyUnavailable();
  if (unavailable) throw new Error(unavailable);
  const limit = opts.consoleLimit ?? 10;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hookyard-topology-"));
  const gatewayKey = `hky_topo_${randomBytes(12).toString("hex")}`;
  const outboundKey = `hko_topo_${randomBytes(12).toString("hex")}`;
  const agent = new Agent({ connections: 128, connect: { timeout: 5000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const receiver = await startDeliveryReceiver(100);
  let database: EmbeddedPostgresHandle | null = null;
  let bouncer: Awaited<ReturnType<typeof startPgBouncer>> | null = null;
  const webs: RunningServer[] = [];
  const workers: Worker[] = [];
  try {
    // TOPOLOGY_PG_STATS=1: PostgreSQL's statements by time at the end (pg_stat_statements, planning included).
    const pgStats = process.env.TOPOLOGY_PG_STATS === "1";
    database = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      database: "hookyard",
      binDir: PG_DIR,
      settings: pgStats ? { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track_planning": "on" } : {},
    });
    if (pgStats) await onDatabase(database.url, (c) => c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"));
    const direct = new URL(database.url);
    bouncer = await startPgBouncer(database.url);
    log(`PostgreSQL ${path.basename(PG_DIR)} on ${direct.port}, PgBouncer (transaction mode) at ${new URL(bouncer.url).port}`);
    const env = {
      DATABASE_URL: bouncer.url,
      DIRECT_DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(24).toString("base64url"),
      GATEWAY_API_KEY: gatewayKey,
      OUTBOUND_API_KEY: outboundKey,
      DELIVERY_ALLOW_PRIVATE_NETWORKS: "true",
      CONSOLE_CREATE_RATE_LIMIT: String(limit),
      // A killed worker's leased gateway deliveries are taken over after DELIVERY_LEASE_MS: short, to keep the run short.
      // (Outbound leases last 2 × OUTBOUND_DELIVERY_TIMEOUT_SECONDS + 10 s; a shorter timeout than the default
      // 5 s would time out deliveries to this receiver when the machine is busy.)
      DELIVERY_LEASE_MS: "4000",
      PIPELINE_SWEEP_INTERVAL_MS: "500",
      DB_POOL_SIZE: "10",
      LOG_LEVEL: "warn",
    };
    // The first web process applies the migrations (through DIRECT_DATABASE_URL); then the others start together.
    webs.push(await startServer({ ...env, WORKER_ENABLED: "false", TRUST_PROXY: "false" }));
    const [web2, ...ws] = await Promise.all([
      startServer({ ...env, WORKER_ENABLED: "false", TRUST_PROXY: "false" }),
      startWorkerProcess(env),
      startWorkerProcess(env),
    ]);
    webs.push(web2);
    workers.push(...ws);
    const bases = webs.map((w) => w.url);
    log(`web processes ${bases.join(", ")}; 2 workers`);

    const call = (base: string, url: string, key: string, method: string, body?: unknown) => bearerCall(agent, base, url, key, method, body);
    const connection = await call(bases[0], "/api/2025-07-01/connections", gatewayKey, "POST", {
      name: "topology",
      source: { name: "topology-src" },
      destination: { name: "topology-dst", config: { url: `${receiver.url}/gw` } },
    });
    const sourcePath = new URL((connection.source as { url: string }).url).pathname;
    await call(bases[1], "/outbound/api/v1/tenants/topo", outboundKey, "PUT");
    await call(bases[0], "/outbound/api/v1/tenants/topo/destinations", outboundKey, "POST", {
      type: "webhook",
      topics: "*",
      config: { url: `${receiver.url}/ob` },
    });

    // The console create limit, counted once for both web processes: 2 × limit creates from one client
    // IP, alternating between them, inside one fixed one-minute window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await sleep(60_000 - intoMinute + 100);
    const creates = await Promise.all(
      Array.from({ length: 2 * limit }, (_, i) =>
        fetch(`${bases[i % 2]}/`, { method: "POST", dispatcher: agent, headers: { "content-type": "application/json" }, body: "{}" }).then(async (r) => ({
          status: r.status,
          body: await r.text(),
        })),
      ),
    );
    const rateLimit = {
      limit,
      allowed: creates.filter((c) => c.status === 200 || c.status === 201).length,
      refused: creates.filter((c) => c.status === 429).length,
      other: creates.filter((c) => ![200, 201, 429].includes(c.status)).length,
    };
    log(`console creates: ${JSON.stringify(rateLimit)}`);

    // A live view on web 1 of a test URL that receives a request through web 2.
    let liveEventAfterMs: number | null = null;
    const created = creates.find((c) => c.status === 200 || c.status === 201);
    if (created) {
      const id = new URL((JSON.parse(created.body) as { inspect_url: string }).inspect_url).pathname.slice(1);
      const controller = new AbortController();
      const stream = await fetch(`${bases[0]}/${id}/live`, { dispatcher: agent, signal: controller.signal });
      const reader = stream.body!.getReader();
      let text = "";
      const until = async (what: string, ms: number) => {
        const end = Date.now() + ms;
        while (!text.includes(what) && Date.now() < end) {
          const chunk = await Promise.race([reader.read(), sleep(end - Date.now()).then(() => null)]);
          if (!chunk || chunk.done) break;
          text += Buffer.from(chunk.value).toString();
        }
        return text.includes(what);
      };
      if (await until("event: ready", 10_000)) {
        const sentAt = Date.now();
        await fetch(`${bases[1]}/e/${id}`, { method: "POST", dispatcher: agent, body: "live" }).then((r) => r.arrayBuffer());
        if (await until("event: request", 10_000)) liveEventAfterMs = Date.now() - sentAt;
      }
      controller.abort();
      await reader.cancel().catch(() => {});
    }
    log(`live view across processes: ${liveEventAfterMs === null ? "no event" : `${liveEventAfterMs} ms`}`);

    // The load: `rate` a second, alternating products and live web processes, at most 400 in flight.
    const offered = { gateway: 0, outbound: 0 };
    const accepted = { gateway: new Map<string, number>(), outbound: new Map<string, number>() };
    const down = new Set<number>();
    let inFlight = 0;
    let seq = 0;
    let loading = true;
    const send = () => {
      const n = ++seq;
      const live = [0, 1].filter((i) => !down.has(i));
      const web = live[Math.floor(n / 2) % live.length];
      const product = n % 2 === 0 ? "gateway" : "outbound";
      offered[product]++;
      inFlight++;
      const request =
        product === "gateway"
          ? fetch(`${bases[web]}${sourcePath}`, { method: "POST", body: `gw-${n}`, dispatcher: agent, signal: AbortSignal.timeout(10_000) }).then(async (r) => {
              await r.arrayBuffer().catch(() => {});
              if (r.status === 200) accepted.gateway.set(`gw-${n}`, Date.now());
            })
          : fetch(`${bases[web]}/outbound/api/v1/publish`, {
              method: "POST",
              dispatcher: agent,
              signal: AbortSignal.timeout(10_000),
              headers: { authorization: `Bearer ${outboundKey}`, "content-type": "application/json" },
              body: JSON.stringify({ tenant_id: "topo", topic: "topo.tick", data: { n } }),
            }).then(async (r) => {
              const text = await r.text();
              if (r.status === 202) accepted.outbound.set((JSON.parse(text) as { id: string }).id, Date.now());
            });
      // No answer: the load balancer takes that web process out (its requests without an answer are not accepted).
      request.catch(() => down.add(web)).finally(() => inFlight--);
    };
    // Every second until the deliveries are done: how far deliveries are behind, and each part's CPU and
    // run-queue wait (printed when they fell behind: was the machine or Hookyard the limit?).
    const roots = new Map<number, string>([
      [process.pid, "load+receiver"],
      [database.pid, "postgres"],
      [bouncer.pid, "pgbouncer"],
      ...webs.map((w) => [w.process.pid!, "hookyard"] as [number, string]),
      ...workers.map((w) => [w.process.pid!, "worker"] as [number, string]),
    ]);
    const timeline: TimelineSample[] = [];
    let previous = processesByPart(roots);
    const sampler = setInterval(() => {
      const now = Date.now();
      const current = processesByPart(roots);
      // Per process since the last sample (a process started meanwhile counts from 0; one that ended drops out).
      const usage = new Map<string, { cpuMs: number; waitMs: number }>();
      for (const [pid, p] of current) {
        const before = previous.get(pid);
        const u = usage.get(p.part) ?? usage.set(p.part, { cpuMs: 0, waitMs: 0 }).get(p.part)!;
        u.cpuMs += p.cpuMs - (before?.cpuMs ?? 0);
        u.waitMs += p.waitMs - (before?.waitMs ?? 0);
      }
      previous = current;
      const lag = (p: "gateway" | "outbound") => {
        let waiting = 0;
        let oldest = now;
        for (const [id, t] of accepted[p]) {
          if (receiver.done[p].has(id)) continue;
          waiting++;
          oldest = Math.min(oldest, t);
        }
        return { waiting, oldestMs: now - oldest };
      };
      timeline.push({ at: now, gateway: lag("gateway"), outbound: lag("outbound"), usage });
    }, 1000);
    sampler.unref();
    // Sends are due by the clock (a busy event loop wakes later than 20 ms: the backlog is sent at once).
    const loader = (async () => {
      const from = Date.now();
      let sent = 0;
      while (loading) {
        const due = Math.floor(((Date.now() - from) * opts.rate) / 1000);
        while (sent < due && inFlight < 400) {
          sent++;
          send();
        }
        // Beyond 400 in flight the offer is dropped, not queued (a bounded load).
        sent = due;
        await sleep(20);
      }
    })();
    const started = Date.now();
    const killAt: { part: "web" | "worker"; at: number }[] = [];
    await sleep(opts.durationMs / 3);
    log(`killing web process 2 (pid ${webs[1].process.pid}) with SIGKILL`);
    killAt.push({ part: "web", at: Date.now() });
    await killHard(webs[1]);
    await sleep(started + (2 * opts.durationMs) / 3 - Date.now());
    log(`killing worker 1 (pid ${workers[0].process.pid}) with SIGKILL; ${receiver.inFlight()} deliveries in flight`);
    killAt.push({ part: "worker", at: Date.now() });
    workers[0].kill();
    await sleep(started + opts.durationMs - Date.now());
    loading = false;
    await loader;
    for (const end = Date.now() + 15_000; inFlight > 0 && Date.now() < end;) await sleep(50);
    log(`load done: ${accepted.gateway.size} + ${accepted.outbound.size} accepted; waiting for deliveries`);

    const undelivered = () =>
      (["gateway", "outbound"] as const).reduce((n, p) => n + [...accepted[p].keys()].filter((id) => !receiver.done[p].has(id)).length, 0);
    for (const end = Date.now() + opts.settleMs; Date.now() < end && undelivered() > 0;) await sleep(250);
    clearInterval(sampler);
    await sleep(1000); // late duplicates
    const behind = timeline.filter((t) => t.at < started + opts.durationMs && Math.max(t.gateway.oldestMs, t.outbound.oldestMs) > 2000);
    if (behind.length || process.env.TOPOLOGY_TIMELINE === "1") {
      log(`deliveries fell more than 2 s behind in ${behind.length} of the load's seconds; every second (s from the load's start):`);
      for (const t of timeline) log(`  ${formatSample(t, started)}`);
    }

    const first = (p: "gateway" | "outbound", id: string) => receiver.done[p].get(id)?.[0];
    const kills: KillRecovery[] = killAt.map(({ part, at }) => {
      const before = (["gateway", "outbound"] as const).flatMap((p) => [...accepted[p]].filter(([, t]) => t < at).map(([id]) => first(p, id)));
      // The kill closes its sockets at once; this process sees it up to a second or two late when the machine is busy.
      const cutHere = receiver.cut.filter((c) => c.cutAt >= at && c.cutAt < at + 2000);
      const redone = cutHere.map((c) => receiver.done[c.product].get(c.id)?.find((t) => t > c.at));
      return {
        part,
        cut: cutHere.length,
        caughtUpAfterMs: before.every((t) => t !== undefined) ? Math.max(at, ...before) - at : null,
        redeliveredAfterMs: cutHere.length === 0 ? null : redone.every((t) => t !== undefined) ? Math.max(...redone) - at : null,
      };
    });
    const count = (p: "gateway" | "outbound") => ({
      delivered: [...accepted[p].keys()].filter((id) => receiver.done[p].has(id)).length,
      duplicates: [...accepted[p].keys()].reduce((n, id) => n + Math.max(0, (receiver.done[p].get(id)?.length ?? 0) - 1), 0),
    });
    if (pgStats) await logStatements(database.url, log);
    const gw = count("gateway");
    const ob = count("outbound");
    // Where duplicates come from: each one's acceptance and deliveries, against the kills (s from the load's start).
    const at = (t: number) => `+${((t - started) / 1000).toFixed(1)}`;
    const twice = (["gateway", "outbound"] as const).flatMap((p) =>
      [...accepted[p]].filter(([id]) => (receiver.done[p].get(id)?.length ?? 0) > 1).map(([id, t]) => ({ p, id, t, times: receiver.done[p].get(id)! })),
    );
    if (twice.length) {
      log(`kills at ${killAt.map((k) => `${k.part} ${at(k.at)}`).join(", ")} s; ${twice.length} ids delivered more than once:`);
      for (const d of twice.slice(0, 20)) log(`  ${d.p} ${d.id}: accepted ${at(d.t)}, delivered ${d.times.map(at).join(", ")} s`);
    }
    return {
      rateLimit,
      liveEventAfterMs,
      offered,
      accepted: { gateway: accepted.gateway.size, outbound: accepted.outbound.size },
      delivered: { gateway: gw.delivered, outbound: ob.delivered },
      duplicates: { gateway: gw.duplicates, outbound: ob.duplicates },
      cut: receiver.cut.length,
      cutRedelivered: receiver.cut.filter((c) => receiver.done[c.product].get(c.id)?.some((t) => t > c.at)).length,
      kills,
    };
  } finally {
    await Promise.all([...webs.map((w) => w.stop()), ...workers.map((w) => w.stop())]);
    await bouncer?.stop();
    await database?.stop();
    await receiver.close();
    await agent.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
