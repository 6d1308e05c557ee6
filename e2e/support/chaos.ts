/**
 * The chaos run of `npm run chaos` (scripts/chaos.ts) and of e2e/chaos.test.ts (docs/benchmarks.md#crashes-npm-run-chaos): a Hookyard
 * started the way `npm start` starts it, on an embedded PostgreSQL of its own, under a bounded steady
 * load to a source whose connection delivers to a local receiver. Each part (the worker, the web
 * process, PostgreSQL) is killed with SIGKILL in turn; for each kill the run reports the answers by
 * status, the accepted (2xx) requests never delivered (must be 0), the duplicates (deliveries beyond the
 * first of a request) and how long until deliveries resumed.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Agent, fetch } from "undici";
import { freePort, OPERATOR_HEADERS, type RunningServer, startServer } from "./servers";
import { type Receiver, startReceiver } from "./receiver";

export type Part = "worker" | "web" | "database";

export type KillReport = {
  part: Part;
  /** Answers to the requests sent from the kill until the part was back and the run moved on, by status ("error" = no answer). */
  answers: Record<string, number>;
  /** Requests answered 2xx in this phase. */
  accepted: number;
  /** Of those, never delivered to the receiver. */
  lost: number;
  /** Deliveries of this phase's requests beyond the first of each. */
  duplicates: number;
  /** ms from the kill until the receiver got a delivery of a request accepted after the kill. */
  resumedAfterMs: number | null;
  /** ms from the kill until every request accepted before it had been delivered. */
  caughtUpAfterMs: number | null;
  /** ms from the kill until the last delivery made again of a request accepted before it (in flight when it died: its lease had to expire), if any. */
  redeliveredAfterMs: number | null;
  /** ms from the kill until /healthz (the operator view) said every part is up again. */
  healthyAfterMs: number | null;
  /**
   * The load's keep-alive sockets open to Hookyard at the kill. A request sent after a web process's kill on a
   * socket that process held has no answer (the socket dies with it); each such socket fails one request at most.
   */
  socketsAtKill: number;
  /** The slowest answer to a request sent after the kill, ms. */
  slowestAnswerMs: number;
  /** What /healthz (the operator view) said meanwhile: its HTTP status and the killed part's state, each change once. */
  healthSeen: string[];
};

export type ChaosOptions = {
  /** Requests per second sent to the source. */
  rate: number;
  /** Load before each kill, ms. */
  beforeMs: number;
  /** Load after each kill, once the part is healthy again, ms. */
  afterMs: number;
  /** The parts to kill, in order. */
  parts?: Part[];
  /** How long to wait at the end for every accepted request to be delivered, ms. */
  settleMs?: number;
  /** Extra settings for the server. */
  env?: Record<string, string>;
  /** How long the receiver takes to answer each delivery, ms (deliveries in flight when the worker dies). */
  receiverDelayMs?: number;
  log?: (m: string) => void;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Sent = { id: string; phase: number; sentAt: number; status: string; answeredAt: number };

/** How long the load waits for each answer, ms. */
const SENDER_TIMEOUT_MS = 30_000;

/** Runs the chaos scenario and returns one report per kill. Stops everything it started. */
export async function runChaos(opts: ChaosOptions): Promise<{ reports: KillReport[]; server: { output: () => string } }> {
  const log = opts.log ?? (() => {});
  const parts = opts.parts ?? ["worker", "web", "database"];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hookyard-chaos-"));
  const apiKey = `hky_chaos_${randomBytes(12).toString("hex")}`;
  const receiver: Receiver = await startReceiver();
  receiver.respond({ status: 200, body: "ok", delayMs: opts.receiverDelayMs ?? 0 });
  let server: RunningServer | undefined;
  // A sender that waits up to 30 s for an answer, as long as the supervisor keeps a connection waiting for a
  // restarting web process (lib/socket-relay.ts): on a busy 2-core machine that restart takes 10 s or more.
  const agent = new Agent({ connections: 64, connect: { timeout: 5000 }, headersTimeout: SENDER_TIMEOUT_MS, bodyTimeout: SENDER_TIMEOUT_MS });
  try {
    server = await startServer({
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      GATEWAY_API_KEY: apiKey,
      LOG_LEVEL: "warn",
      ...opts.env,
    });
    const base = server.url;
    log(`server ready on ${base} (data in ${dataDir})`);
    const created = await fetch(`${base}/api/2025-07-01/connections`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "chaos", source: { name: "chaos-src" }, destination: { name: "chaos-dst", config: { url: `${receiver.url}/chaos` } } }),
    });
    if (created.status !== 200) throw new Error(`could not create the connection: ${created.status} ${await created.text()}`);
    const sourceUrl = ((await created.json()) as { source: { url: string } }).source.url.replace(/^https?:\/\/[^/]+/, base);

    const health = async () => {
      try {
        // The operator view (docs/operations.md "Metrics and health"): healthy when every part is up; its
        // HTTP status is 503 only while the web process cannot reach the database.
        const r = await fetch(`${base}/healthz`, { dispatcher: agent, headers: OPERATOR_HEADERS, signal: AbortSignal.timeout(3000) });
        const body = (await r.json()) as { status: string; parts: Record<Part, { pid: number | null; state: string }> };
        return { status: r.status, ok: r.status === 200 && body.status === "ok", body };
      } catch {
        return { status: 0, ok: false, body: null };
      }
    };

    // The load: `rate` requests a second in ticks of 20 ms, at most 400 in flight (a bounded load).
    const sent: Sent[] = [];
    let phase = 0;
    let inFlight = 0;
    let seq = 0;
    let loading = true;
    const loader = (async () => {
      const perTick = opts.rate / 50;
      let due = 0;
      while (loading) {
        due += perTick;
        while (due >= 1 && inFlight < 400) {
          due--;
          const s: Sent = { id: `chaos-${++seq}`, phase, sentAt: Date.now(), status: "pending", answeredAt: 0 };
          sent.push(s);
          inFlight++;
          fetch(sourceUrl, { method: "POST", body: s.id, dispatcher: agent, signal: AbortSignal.timeout(SENDER_TIMEOUT_MS) })
            .then(async (r) => {
              await r.arrayBuffer().catch(() => {});
              s.status = r.status === 503 && !r.headers.get("retry-after") ? "503 without Retry-After" : String(r.status);
            })
            .catch(() => (s.status = "error"))
            .finally(() => {
              s.answeredAt = Date.now();
              inFlight--;
            });
        }
        await sleep(20);
      }
    })();

    const firstDelivery = new Map<string, number>();
    const deliveries = new Map<string, number>();
    const lastDelivery = new Map<string, number>();
    const delivered = () => {
      for (const r of receiver.received.splice(0)) {
        const id = r.body.toString();
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
        if (!firstDelivery.has(id)) firstDelivery.set(id, r.at);
        lastDelivery.set(id, r.at);
      }
    };

    const reports: KillReport[] = [];
    const kills: { part: Part; at: number; healthyAt: number | null; seen: string[]; sockets: number }[] = [];
    for (const part of parts) {
      phase++;
      await sleep(opts.beforeMs);
      const h = await health();
      const pid = h.body?.parts[part]?.pid;
      if (!pid) throw new Error(`no pid for ${part} in /healthz: ${JSON.stringify(h.body)}`);
      const sockets = Number(agent.stats[new URL(base).origin]?.connected ?? 0);
      const at = Date.now();
      log(`killing ${part} (pid ${pid}) with SIGKILL; ${sockets} sockets open to it`);
      process.kill(pid, "SIGKILL");
      await sleep(300);
      let healthyAt: number | null = null;
      const seen: string[] = [];
      for (const end = Date.now() + 90_000; Date.now() < end; await sleep(250)) {
        const now = await health();
        const state = now.body?.parts[part];
        // The killed process itself, still "up": the supervisor has not seen its exit yet (on a busy
        // machine that can take longer than the 300 ms above). Neither a state seen after the kill nor healthy.
        if (state?.state === "up" && state.pid === pid) continue;
        const line = `${now.status || "no answer"} ${state?.state ?? "-"}`;
        if (seen.at(-1) !== line) seen.push(line);
        if (now.ok) {
          healthyAt = Date.now();
          break;
        }
      }
      log(`${part} healthy again after ${healthyAt ? healthyAt - at : "—"} ms`);
      kills.push({ part, at, healthyAt, seen, sockets });
      await sleep(opts.afterMs);
    }
    phase++;
    loading = false;
    await loader;
    for (const end = Date.now() + 15_000; inFlight > 0 && Date.now() < end;) await sleep(50);

    // Every accepted request must arrive; wait for the stragglers (a dead worker's leases expire first).
    const accepted = () => sent.filter((s) => s.status.startsWith("2"));
    for (const end = Date.now() + (opts.settleMs ?? 60_000); Date.now() < end; await sleep(250)) {
      delivered();
      if (accepted().every((s) => firstDelivery.has(s.id))) break;
    }
    await sleep(1000); // late duplicates
    delivered();

    kills.forEach((k, i) => {
      const mine = sent.filter((s) => s.phase === i + 1 && s.sentAt >= k.at);
      const inPhase = sent.filter((s) => s.phase === i + 1);
      const answers: Record<string, number> = {};
      for (const s of mine) answers[s.status] = (answers[s.status] ?? 0) + 1;
      const acceptedHere = inPhase.filter((s) => s.status.startsWith("2"));
      const after = sent.filter((s) => s.sentAt >= k.at && s.status.startsWith("2") && firstDelivery.has(s.id)).map((s) => firstDelivery.get(s.id)!);
      const before = sent.filter((s) => s.sentAt < k.at && s.status.startsWith("2"));
      const caughtUp = before.every((s) => firstDelivery.has(s.id)) ? Math.max(k.at, ...before.map((s) => firstDelivery.get(s.id)!)) : null;
      reports.push({
        part: k.part,
        answers,
        accepted: acceptedHere.length,
        lost: acceptedHere.filter((s) => !firstDelivery.has(s.id)).length,
        duplicates: inPhase.reduce((n, s) => n + Math.max(0, (deliveries.get(s.id) ?? 0) - 1), 0),
        resumedAfterMs: after.length ? Math.min(...after) - k.at : null,
        caughtUpAfterMs: caughtUp === null ? null : caughtUp - k.at,
        redeliveredAfterMs: (() => {
          const since = kills[i - 1]?.at ?? 0; // requests accepted since the previous kill: that one's redeliveries are its own
          const again = before.filter((s) => s.sentAt >= since && (deliveries.get(s.id) ?? 0) > 1).map((s) => lastDelivery.get(s.id)! - k.at);
          return again.length ? Math.max(...again) : null;
        })(),
        healthyAfterMs: k.healthyAt === null ? null : k.healthyAt - k.at,
        socketsAtKill: k.sockets,
        slowestAnswerMs: Math.max(0, ...mine.map((s) => s.answeredAt - s.sentAt)),
        healthSeen: k.seen,
      });
    });
    // Requests of the phases before the first kill and after the last count too (lost must be 0 everywhere).
    const outside = sent.filter((s) => (s.phase === 0 || s.phase > kills.length) && s.status.startsWith("2") && !firstDelivery.has(s.id)).length;
    if (outside && reports[0]) reports[0].lost += outside;
    const s = server;
    return { reports, server: { output: () => s.output() } };
  } finally {
    await server?.stop();
    await receiver.close();
    await agent.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The reports as a table (one line per kill). */
export function formatReports(reports: KillReport[]): string {
  const ms = (v: number | null) => (v === null ? "never" : `${(v / 1000).toFixed(1)} s`);
  return reports
    .map(
      (r) =>
        `${r.part.padEnd(9)} answers ${JSON.stringify(r.answers)} (slowest ${ms(r.slowestAnswerMs)}; ${r.socketsAtKill} sockets open at the kill)  accepted ${r.accepted}  lost ${r.lost}  duplicates ${r.duplicates}  healthy after ${ms(r.healthyAfterMs)}  deliveries resumed after ${ms(r.resumedAfterMs)}  caught up after ${ms(r.caughtUpAfterMs)}  in-flight redelivered after ${r.redeliveredAfterMs === null ? "(none)" : ms(r.redeliveredAfterMs)}`,
    )
    .join("\n");
}
