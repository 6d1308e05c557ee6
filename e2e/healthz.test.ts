/**
 * `GET /healthz` (docs/architecture.md#processes; lib/health.ts): each part's state as JSON, 200 when all are up. The
 * states while a part is down are checked where parts are killed (e2e/chaos.test.ts).
 */
import { expect, it } from "vitest";
import { BASE_URL } from "./support/client";

it("GET /healthz answers 200 with web, worker and database up, and the pids of the supervised parts", async () => {
  const res = await fetch(`${BASE_URL}/healthz`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as {
    status: string;
    parts: Record<string, { state: string; restarts: number; last_exit: string | null; pid: number | null }>;
  };
  expect(body.status).toBe("ok");
  expect(Object.keys(body.parts).sort()).toEqual(["database", "web", "worker"]);
  expect(body.parts.web).toMatchObject({ state: "up", restarts: 0, last_exit: null });
  expect(body.parts.worker).toMatchObject({ state: "up", restarts: 0, last_exit: null });
  expect(body.parts.worker.pid).toBeGreaterThan(0);
  // The test servers use DATABASE_URL: a database nobody here supervises, reached right now.
  expect(body.parts.database).toMatchObject({ state: "up", error: null, pid: null });
});
