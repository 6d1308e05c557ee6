/**
 * `GET /healthz`, `/livez`, `/readyz` and `/metrics` on the main port of the shared test server
 * (docs/operations.md "Metrics and health"; lib/health.ts, lib/observability/endpoints.ts). The public
 * view of /healthz is a bare status; operators (METRICS_TOKEN as a bearer token, or a signed-in dashboard
 * session) get each part's state. The states while a part is down are checked where parts are killed
 * (e2e/chaos.test.ts); the answers with the database away in e2e/metrics.test.ts.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL } from "./support/client";
import { newUser, sessionOnly, signInHttp } from "./support/dashboard";
import { newTeam } from "./support/gateway";
import { OPERATOR_HEADERS, TEST_METRICS_TOKEN } from "./support/servers";

type Detailed = { status: string; parts: Record<string, { state: string; restarts: number; last_exit: string | null; pid: number | null; error?: unknown }> };

/** The detailed view: every part up, the pids of the supervised parts, no error. */
function expectDetailed(body: Detailed) {
  expect(body.status).toBe("ok");
  expect(Object.keys(body.parts).sort()).toEqual(["database", "web", "worker"]);
  expect(body.parts.web).toMatchObject({ state: "up", restarts: 0, last_exit: null });
  expect(body.parts.web.pid).toBeGreaterThan(0);
  expect(body.parts.worker).toMatchObject({ state: "up", restarts: 0, last_exit: null });
  expect(body.parts.worker.pid).toBeGreaterThan(0);
  // The test servers use DATABASE_URL: a database nobody here supervises, reached right now.
  expect(body.parts.database).toMatchObject({ state: "up", error: null, pid: null });
}

describe("GET /healthz", () => {
  it("answers anyone 200 {status: ok} and nothing else: no parts, no pids, no error text", async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer not-the-token-0123456789" },
      { authorization: TEST_METRICS_TOKEN },
      { cookie: "hookyard.dashboard-session=forged" },
    ];
    for (const headers of variants) {
      const res = await fetch(`${BASE_URL}/healthz`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.text(), JSON.stringify(headers)).toBe('{"status":"ok"}');
    }
  });

  it("shows operators (METRICS_TOKEN) web, worker and database up, and the pids of the supervised parts", async () => {
    const res = await fetch(`${BASE_URL}/healthz`, { headers: OPERATOR_HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expectDetailed((await res.json()) as Detailed);
  });

  it("shows a signed-in dashboard user the detailed view too", async () => {
    const team = await newTeam("healthz operators");
    const user = await newUser(team.teamId);
    const signed = await signInHttp(user.email, user.password);
    expect(signed.error).toBeNull();
    const res = await fetch(`${BASE_URL}/healthz`, { headers: { cookie: sessionOnly(signed.cookie) } });
    expect(res.status).toBe(200);
    expectDetailed((await res.json()) as Detailed);
  });
});

describe("probes and /metrics on the main port", () => {
  it("GET /livez and /readyz answer 200 while the server and its database are up", async () => {
    const live = await fetch(`${BASE_URL}/livez`);
    expect([live.status, await live.text()]).toEqual([200, '{"status":"ok"}']);
    const ready = await fetch(`${BASE_URL}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, '{"status":"ready"}']);
    expect(ready.headers.get("cache-control")).toBe("no-store");
  });

  it("GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (401 otherwise) and then answers the Prometheus text", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789abc", `Basic ${TEST_METRICS_TOKEN}`, TEST_METRICS_TOKEN]) {
      const res = await fetch(`${BASE_URL}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(await res.text()).not.toContain("hookyard_");
    }
    const res = await fetch(`${BASE_URL}/metrics`, { headers: OPERATOR_HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain("# TYPE hookyard_http_requests_total counter");
    expect(text).toContain("# TYPE hookyard_process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE hookyard_nodejs_eventloop_lag_seconds gauge");
  });
});
