/**
 * Deliveries resume after every PostgreSQL restart (docs/pipeline.md "When PostgreSQL restarts"), on the
 * gateway and the outbound service at once: the database is killed with SIGKILL three times, at three
 * moments (idle, under load, right after a worker restart), and kept down 1 s or 20 s; after each
 * return, everything accepted so far is delivered within 60 s. The short form of `npm run chaos --
 * outages` (e2e/support/outages.ts).
 *
 * Before the job runner was kept alive (lib/delivery/job-runner.ts), a restart that met a batch of job
 * completions ended graphile-worker's job pool for good: retries and requeued events were never run
 * again while the process and /healthz looked fine.
 */
import { beforeAll, expect, it } from "vitest";
import { type OutageReport, runOutages } from "./support/outages";

let reports: OutageReport[] = [];
let output = "";

beforeAll(async () => {
  ({ reports, output } = await runOutages({
    rate: 40,
    loadMs: 3000,
    settleMs: 60_000,
    kills: [
      { at: "load", outageMs: 1000 },
      { at: "worker-restart", outageMs: 1000 },
      { at: "idle", outageMs: 1000 },
      { at: "load", outageMs: 20_000 },
    ],
    // A short stall threshold: the watchdog's look is part of what is tested.
    env: { WORKER_STALL_MS: "4000", DELIVERY_LEASE_MS: "4000", PIPELINE_SWEEP_INTERVAL_MS: "500" },
    log: (m) => console.log(`[outage] ${m}`),
  }));
  console.log(reports.map((r) => JSON.stringify(r)).join("\n"));
}, 420_000);

it("every request accepted before each restart is delivered within 60 s of the database's return, on both products", () => {
  expect(reports.map((r) => `${r.at} ${r.outageMs}`)).toEqual(["load 1000", "worker-restart 1000", "idle 1000", "load 20000"]);
  for (const r of reports) {
    expect(r.accepted.gateway, JSON.stringify(r)).toBeGreaterThan(50);
    expect(r.accepted.outbound, JSON.stringify(r)).toBeGreaterThan(50);
    expect(r.undelivered, JSON.stringify(r)).toEqual({ gateway: 0, outbound: 0 });
    expect(r.caughtUpAfterMs, JSON.stringify(r)).not.toBeNull();
    // And the worker takes jobs again (a job runner the restart ended was replaced).
    expect(r.workerUpAfterMs, JSON.stringify(r)).not.toBeNull();
  }
});

it("the job runner that a restart ended is replaced, and /healthz says the worker is stalled meanwhile", () => {
  // The worker logs each replacement (lib/delivery/job-runner.ts); a pool that died is never silent. Whether
  // a kill ends graphile-worker's pool depends on a batch of job completions being in flight at that moment
  // (most runs, not all): each one that did end is replaced, and deliveries resumed after every restart (the
  // test above), which they did not while a dead pool stayed dead.
  // Each worker process logs JSON lines with its pid. A runner that ended is replaced in its process
  // ("job runner restarted"), or, when the replacement outlasts WORKER_STALL_MS, the watchdog ends that
  // process and the supervisor starts a fresh one (its line "worker restarted"): both count.
  const lines = output.split("\n").map((raw) => {
    try {
      const j = JSON.parse(raw.slice(raw.indexOf("{"))) as { pid?: unknown; msg?: unknown };
      if (typeof j.pid === "number" && typeof j.msg === "string") return { pid: j.pid, msg: j.msg };
    } catch {}
    return { pid: 0, msg: raw };
  });
  const deaths = lines.flatMap((l, i) => (l.pid && /the job runner ended by itself/.test(l.msg) ? [i] : []));
  const replaced = deaths.filter((i) =>
    lines.slice(i + 1).some((l) => (l.pid === lines[i].pid && /job runner restarted/.test(l.msg)) || (l.pid === 0 && /\bworker restarted\b/.test(l.msg))),
  );
  // The worker's own account (its job runner, pool and watchdog lines) and the supervisor's restarts, in order.
  const account = lines
    .filter((l) => /job runner|job pool|stopping this worker|worker restarted|restarting it in/.test(l.msg))
    .map((l) => `${l.pid || "supervisor"} ${l.msg.slice(0, 200)}`)
    .join("\n");
  console.log(`[outage] job runners ended by a restart: ${deaths.length}; replaced: ${replaced.length}\n${account}`);
  expect(deaths.length, "the output has the worker's JSON lines").toBe(output.match(/the job runner ended by itself/g)?.length ?? 0);
  expect(replaced.length, account).toBe(deaths.length);
  // The operator view names the worker stalled while its runner was being replaced (before: "up"). Its
  // status is 200 or 503 by the database alone (a stalled worker does not change the status a probe reads).
  expect(
    reports.some((r) => r.healthSeen.some((line) => /^(200|503) stalled$/.test(line))),
    JSON.stringify(reports.map((r) => r.healthSeen)),
  ).toBe(true);
});
