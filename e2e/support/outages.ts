/**
 * PostgreSQL outages under load, for the gateway and the outbound service at once (e2e/pg-outage.test.ts,
 * and `npm run chaos -- outages` for the long form). A Hookyard started the way `npm start` starts it
 * (a supervisor, a web process and a worker process) uses a PostgreSQL that this module runs itself, so
 * that it can kill it with SIGKILL and keep it down for as long as a scenario says before starting it
 * again on the same data. Steady loads go to a gateway source (whose connection retries a quarter of
 * its deliveries once: graphile-worker jobs are running when the database dies) and to the outbound
 * publish endpoint (its deliveries are claimed from their rows; a quarter fail once and are retried).
 *
 * Each kill happens at a chosen moment: `idle` (the load paused and everything delivered), `load` (under
 * the steady load) or `worker-restart` (right after the worker process was killed and restarted, when
 * the sweeper hands the dead worker's events to graphile-worker as jobs). After each kill the run waits
 * for the database, then reports, per product, the requests accepted before the database came back that
 * were not delivered within `settleMs` of it (must be 0), and what /healthz said meanwhile.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Agent, fetch } from "undici";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded";
import { bearerCall } from "./client";
import { type Receiver, startReceiver } from "./receiver";
import { freePort, OPERATOR_HEADERS, type RunningServer, startServer } from "./servers";

export type KillMoment = "idle" | "load" | "worker-restart";
export type OutageSpec = { at: KillMoment; outageMs: number };

export type OutageReport = {
  at: KillMoment;
  outageMs: number;
  /** Per product: accepted before the database was back and not delivered within settleMs after it. */
  undelivered: { gateway: number; outbound: number };
  /** Accepted so far, per product. */
  accepted: { gateway: number; outbound: number };
  /** ms from the database's return until every request accepted so far was delivered (null: not within settleMs). */
  caughtUpAfterMs: number | null;
  /**
   * ms from the database's return until /healthz named the worker "up" for good (its job runner replaced
   * when the restart ended it: lib/delivery/job-runner.ts), null: not within settleMs.
   */
  workerUpAfterMs: number | null;
  /** What /healthz said from the kill until caught up and the worker up: status and the worker's state, each change once. */
  healthSeen: string[];
};

export type OutageOptions = {
  kills: OutageSpec[];
  /** Gateway requests and outbound publishes per second, each. */
  rate: number;
  /** Load between two kills, ms. */
  loadMs: number;
  /** Time allowed after the database is back for everything accepted to be delivered, ms. */
  settleMs: number;
  env?: Record<string, string>;
  log?: (m: string) => void;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every fourth id (by its last digit) fails its first delivery with a 500. */
const failsFirst = (id: string) => Number(id.at(-1)) % 4 === 0;

/** Runs the scenario; returns one report per kill. Stops everything it started. */
export async function runOutages(opts: OutageOptions): Promise<{ reports: OutageReport[]; output: string }> {
  const log = opts.log ?? (() => {});
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hookyard-outage-"));
  const pgPort = await freePort();
  const gatewayKey = `hky_outage_${randomBytes(12).toString("hex")}`;
  const outboundKey = `hko_outage_${randomBytes(12).toString("hex")}`;
  const agent = new Agent({ connections: 64, connect: { timeout: 5000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const receiver: Receiver = await startReceiver();
  const seen = new Map<string, number>();
  const firstDelivery = new Map<string, number>();
  receiver.respond((req) => {
    const id = req.url.startsWith("/gw") ? req.body.toString() : String(req.headers["x-outbound-event-id"] ?? "");
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    if (n === 1 && failsFirst(id)) return { status: 500, body: "try again", delayMs: 30 };
    if (!firstDelivery.has(id)) firstDelivery.set(id, Date.now());
    return { status: 200, body: "ok", delayMs: 30 };
  });
  let database = null as EmbeddedPostgresHandle | null;
  let server: RunningServer | undefined;
  const startDatabase = async () => {
    // A start can meet the server's own reconnecting clients at the wrong moment: try again.
    for (let attempt = 1; ; attempt++) {
      try {
        database = await startEmbeddedPostgres({ dataDir, port: pgPort, database: "hookyard" });
        return;
      } catch (err) {
        log(`PostgreSQL did not start (attempt ${attempt}): ${err instanceof Error ? err.message : String(err)}`);
        if (attempt === 5) throw err;
        await sleep(500);
      }
    }
  };
  try {
    await startDatabase();
    server = await startServer({
      DATABASE_URL: database!.url,
      GATEWAY_API_KEY: gatewayKey,
      OUTBOUND_API_KEY: outboundKey,
      OUTBOUND_RETRY_SCHEDULE: "1,1,1,1,1",
      DELIVERY_ALLOW_PRIVATE_NETWORKS: "true",
      LOG_LEVEL: "warn",
      ...opts.env,
    });
    const base = server.url;
    const call = (url: string, key: string, method: string, body?: unknown) => bearerCall(agent, base, url, key, method, body);
    const connection = await call("/api/2025-07-01/connections", gatewayKey, "POST", {
      name: "outage",
      source: { name: "outage-src" },
      destination: { name: "outage-dst", config: { url: `${receiver.url}/gw` } },
      rules: [{ type: "retry", strategy: "linear", count: 5, interval: 1000 }],
    });
    const sourceUrl = (connection.source as { url: string }).url.replace(/^https?:\/\/[^/]+/, base);
    await call("/outbound/api/v1/tenants/outage", outboundKey, "PUT");
    await call("/outbound/api/v1/tenants/outage/destinations", outboundKey, "POST", { type: "webhook", topics: "*", config: { url: `${receiver.url}/ob` } });

    // Accepted ids, per product, with when they were accepted.
    const accepted = { gateway: new Map<string, number>(), outbound: new Map<string, number>() };
    let seq = 0;
    let loading = true;
    let running = true;
    let inFlight = 0;
    const send = () => {
      const n = ++seq;
      inFlight += 2;
      const gw = `gw-${n}`;
      fetch(sourceUrl, { method: "POST", body: gw, dispatcher: agent, signal: AbortSignal.timeout(10_000) })
        .then(async (r) => {
          await r.arrayBuffer().catch(() => {});
          if (r.status === 200) accepted.gateway.set(gw, Date.now());
        })
        .catch(() => {})
        .finally(() => inFlight--);
      fetch(`${base}/outbound/api/v1/publish`, {
        method: "POST",
        dispatcher: agent,
        signal: AbortSignal.timeout(10_000),
        headers: { authorization: `Bearer ${outboundKey}`, "content-type": "application/json" },
        body: JSON.stringify({ tenant_id: "outage", topic: "outage.tick", data: { n } }),
      })
        .then(async (r) => {
          const text = await r.text().catch(() => "");
          if (r.status === 202) accepted.outbound.set((JSON.parse(text) as { id: string }).id, Date.now());
        })
        .catch(() => {})
        .finally(() => inFlight--);
    };
    const loader = (async () => {
      let due = 0;
      while (running) {
        if (loading) {
          due += opts.rate / 50;
          while (due >= 1 && inFlight < 400) {
            due--;
            send();
          }
        } else due = 0;
        await sleep(20);
      }
    })();

    const health = async () => {
      try {
        // The operator view (docs/operations.md "Metrics and health"): the parts' states and pids.
        const r = await fetch(`${base}/healthz`, { dispatcher: agent, headers: OPERATOR_HEADERS, signal: AbortSignal.timeout(3000) });
        const body = (await r.json()) as { parts: Record<string, { pid: number | null; state: string }> };
        return { status: r.status, body };
      } catch {
        return { status: 0, body: null };
      }
    };
    const undelivered = (before: number) => ({
      gateway: [...accepted.gateway].filter(([id, at]) => at <= before && !firstDelivery.has(id)).length,
      outbound: [...accepted.outbound].filter(([id, at]) => at <= before && !firstDelivery.has(id)).length,
    });

    const reports: OutageReport[] = [];
    for (const kill of opts.kills) {
      await sleep(opts.loadMs);
      if (kill.at === "idle") {
        loading = false;
        const end = Date.now() + opts.settleMs;
        while (Date.now() < end && (inFlight > 0 || Object.values(undelivered(Date.now())).some((n) => n > 0))) await sleep(100);
      }
      if (kill.at === "worker-restart") {
        // The worker may be restarting after the previous outage, or /healthz slow to answer on a busy machine.
        let pid: number | null | undefined;
        for (const end = Date.now() + 60_000; !pid && Date.now() < end;) {
          pid = (await health()).body?.parts.worker?.pid;
          if (!pid) await sleep(250);
        }
        if (!pid) throw new Error("no worker pid in /healthz within 60 s");
        log(`killing the worker (pid ${pid})`);
        process.kill(pid, "SIGKILL");
        for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100)) {
          const h = await health();
          if (h.body?.parts.worker?.state === "up" && h.body.parts.worker.pid !== pid) break;
        }
      }
      const seenStates: string[] = [];
      /** Reads /healthz and notes a change; returns the worker's state. */
      const note = async () => {
        const h = await health();
        const state = h.body?.parts.worker?.state ?? "-";
        const line = `${h.status || "no answer"} ${state}`;
        if (seenStates.at(-1) !== line) seenStates.push(line);
        return state;
      };
      log(`killing PostgreSQL (pid ${database!.pid}) at ${kill.at}; down for ${kill.outageMs} ms`);
      process.kill(database!.pid, "SIGKILL");
      await database!.exited;
      for (const end = Date.now() + kill.outageMs; Date.now() < end;) {
        await note();
        await sleep(250);
      }
      log("starting PostgreSQL again");
      await startDatabase();
      const backAt = Date.now();
      log("PostgreSQL is back");
      if (kill.at === "idle") loading = true;
      let caughtUpAt: number | null = null;
      let workerUpAt: number | null = null;
      // Deliveries may resume before the job runner does (direct dispatch needs no job): wait for both. A
      // worker that says "up" and then "stalled" (its job runner ended after the return) is up again only
      // when it says so again.
      for (const end = backAt + opts.settleMs; Date.now() < end && (caughtUpAt === null || workerUpAt === null); await sleep(250)) {
        const state = await note();
        if (state !== "up") workerUpAt = null;
        else workerUpAt ??= Date.now();
        const left = undelivered(backAt);
        if (caughtUpAt === null && left.gateway === 0 && left.outbound === 0) caughtUpAt = Date.now();
      }
      const report: OutageReport = {
        at: kill.at,
        outageMs: kill.outageMs,
        undelivered: undelivered(backAt),
        accepted: { gateway: accepted.gateway.size, outbound: accepted.outbound.size },
        caughtUpAfterMs: caughtUpAt === null ? null : caughtUpAt - backAt,
        workerUpAfterMs: workerUpAt === null ? null : workerUpAt - backAt,
        healthSeen: seenStates,
      };
      log(JSON.stringify(report));
      reports.push(report);
    }
    running = false;
    await loader;
    return { reports, output: server.output() };
  } finally {
    await server?.stop();
    await database?.stop();
    await receiver.close();
    await agent.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
