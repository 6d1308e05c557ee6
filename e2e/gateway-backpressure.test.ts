/**
 * Backpressure issues (docs/gateway-api.md#issues-and-issue-triggers):
 * a destination held back by its `rate_limit` keeps events waiting; once the oldest has waited longer
 * than the trigger's `delay` (60 s at least), the worker opens a backpressure issue for that
 * destination, and none for a destination without a backlog. Its own file: it waits over a minute, in
 * parallel with the other files.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
let team: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  team = await newTeam("backpressure");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

it("a rate-limited destination with events waiting over `delay` opens a backpressure issue for it", async () => {
  const slow = await connectionTo(team, receiver, { destination: { config: { url: `${receiver.url}/slow`, rate_limit: 1, rate_limit_period: "hour" } } });
  const fast = await connectionTo(team, receiver);
  const trigger = await api(team, "POST", `${V}/issue-triggers`, { type: "backpressure", configs: { delay: 60_000, destinations: "*" } });
  expect(trigger.status, JSON.stringify(trigger.json)).toBe(200);
  const first = (await send(slow.source.url, { n: 0 })).requestId;
  await eventsIn(first, ["SUCCESSFUL"]);
  const waiting = [(await send(slow.source.url, { n: 1 })).requestId, (await send(slow.source.url, { n: 2 })).requestId];
  await eventsIn((await send(fast.source.url, { n: 3 })).requestId, ["SUCCESSFUL"]);
  // Held back by the limit: queued, never attempted.
  for (const id of waiting) expect((await eventsIn(id, ["QUEUED"]))[0].attempts).toBe(0);
  const issue = await eventually(async () => (await api(team, "GET", `${V}/issues?type=backpressure`)).json.models[0], 100_000);
  expect(issue).toMatchObject({
    type: "backpressure",
    status: "OPENED",
    issue_trigger_id: trigger.json.id,
    aggregation_keys: { destination_id: [slow.destination.id] },
  });
  // `waiting`: the events that had waited longer than `delay` when the worker's check opened the issue (the
  // second one may have been sent just after that check's cut-off).
  const held = await Promise.all(waiting.map(async (id) => (await eventsIn(id, ["QUEUED"]))[0]));
  const over = held.filter((e: { created_at: string }) => Date.parse(e.created_at) < Date.parse(issue.opened_at) - 60_000).length;
  expect(over).toBeGreaterThanOrEqual(1);
  expect(issue.reference).toMatchObject({ destination_id: slow.destination.id, waiting: over });
  expect(Date.now() - Date.parse(issue.reference.oldest_due_at)).toBeGreaterThanOrEqual(60_000);
  expect((await api(team, "GET", `${V}/issues/count?type=backpressure`)).json).toEqual({ count: 1 });
}, 150_000);
