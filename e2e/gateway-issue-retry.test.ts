/**
 * An issue fixed by retrying its events (docs/dashboard.md "Issues"): a bulk retry of the issue's failed
 * events (`query: {issue_id, status: FAILED}`) resolves the issue once every retried delivery succeeded;
 * one whose retried deliveries fail again stays open. Real server, worker and receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, send, type TestConnection } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
let team: TestTeam;
let receiver: Receiver;
let flaky: TestConnection;
let broken: TestConnection;
/** Whether `/flaky` answers 200 (it answers 500 until the "fix"). */
let fixed = false;

beforeAll(async () => {
  team = await newTeam("issue-retry");
  receiver = await startReceiver();
  receiver.respond((req) => ({ status: req.url.includes("/broken") || (req.url.includes("/flaky") && !fixed) ? 500 : 200, body: "x" }));
  flaky = await connectionTo(team, receiver, { destination: { config: { url: `${receiver.url}/flaky` } } });
  broken = await connectionTo(team, receiver, { destination: { config: { url: `${receiver.url}/broken` } } });
  const t = await api(team, "POST", `${V}/issue-triggers`, { type: "delivery", configs: { strategy: "first_attempt", connections: [flaky.id, broken.id] } });
  expect(t.status, JSON.stringify(t.json)).toBe(200);
}, 30_000);
afterAll(async () => receiver.close());

/** The issue of `connection` once it holds `count` events. */
async function issueOf(connection: TestConnection, count: number) {
  const issue = await eventually(async () => (await api(team, "GET", `${V}/issues?aggregation_keys[webhook_id]=${connection.id}`)).json.models[0], 20_000);
  await eventually(async () => (await api(team, "GET", `${V}/events?issue_id=${issue.id}`)).json.count === count, 20_000);
  return issue as { id: string; status: string };
}

describe("retrying an issue's events", () => {
  it("resolves the issue when every retried delivery succeeds, not when they fail again", async () => {
    for (const c of [flaky, flaky, broken]) await eventsIn((await send(c.source.url, { n: 1 })).requestId, ["FAILED"]);
    const [fixable, unfixable] = [await issueOf(flaky, 2), await issueOf(broken, 1)];
    expect([fixable.status, unfixable.status]).toEqual(["OPENED", "OPENED"]);
    fixed = true;
    const bulks: string[] = [];
    for (const issue of [fixable, unfixable]) {
      const bulk = await api(team, "POST", `${V}/bulk/events/retry`, { query: { issue_id: issue.id, status: "FAILED" } });
      expect(bulk.status, JSON.stringify(bulk.json)).toBe(200);
      expect(bulk.json.estimated_count).toBe(issue === fixable ? 2 : 1);
      bulks.push(bulk.json.id);
    }
    await eventually(async () => (await api(team, "GET", `${V}/issues/${fixable.id}`)).json.status === "RESOLVED", 30_000);
    // The other one's retry failed again: once its delivery is FAILED and a pass has run, it is still open.
    await eventually(async () => (await api(team, "GET", `${V}/events?bulk_retry_id=${bulks[1]}&status=FAILED`)).json.count === 1, 20_000);
    const later = (await api(team, "GET", `${V}/issues/${fixable.id}`)).json;
    expect(later.status).toBe("RESOLVED");
    expect((await api(team, "GET", `${V}/issues/${unfixable.id}`)).json.status).toBe("OPENED");
  }, 90_000);
});
