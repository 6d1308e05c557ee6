/**
 * Issue triggers, issues, webhook notifications and bookmarks (docs/gateway-api.md#issues-and-issue-triggers,
 * #notifications, #bookmarks) against the running server, its
 * worker and real receivers: trigger CRUD and errors; an issue opened by a failing delivery, further
 * failures grouped into it, resolved, reopened, dismissed; `issue_id` on events and
 * `/metrics/events-by-issue`; a notification arriving at a receiver through a connection; a
 * transformation issue; bookmarks and their trigger; team isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, send, type TestConnection } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
let team: TestTeam;
let other: TestTeam;
let receiver: Receiver;
let failing: TestConnection & { tag: string };
let notices: TestConnection & { tag: string };

beforeAll(async () => {
  team = await newTeam("issues");
  other = await newTeam("issues-other");
  receiver = await startReceiver();
  receiver.respond((req) => ({ status: req.url.includes("/broken") ? 500 : 200, body: "x" }));
  failing = await connectionTo(team, receiver, { destination: { config: { url: `${receiver.url}/broken` } } });
  notices = await connectionTo(team, receiver);
}, 30_000);
afterAll(async () => receiver.close());

describe("issue triggers", () => {
  it("create, get, list, update, upsert by name, disable, enable, delete", async () => {
    const created = await api(team, "POST", `${V}/issue-triggers`, {
      type: "backpressure",
      name: "slow",
      configs: { delay: 60_000, destinations: "*" },
      channels: { email: {} },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json).toMatchObject({
      team_id: team.teamId,
      name: "slow",
      type: "backpressure",
      configs: { delay: 60_000, destinations: "*" },
      channels: { email: {} },
      disabled_at: null,
    });
    expect(created.json.id).toMatch(/^it_/);
    const id = created.json.id;
    expect((await api(team, "GET", `${V}/issue-triggers/${id}`)).json.name).toBe("slow");
    expect((await api(team, "GET", `${V}/issue-triggers?type=backpressure`)).json.models.map((t: { id: string }) => t.id)).toEqual([id]);
    const upserted = await api(team, "PUT", `${V}/issue-triggers`, {
      type: "backpressure",
      name: "slow",
      configs: { delay: 120_000, destinations: ["des_x"] },
    });
    expect(upserted.json.id).toBe(id);
    expect(upserted.json.configs).toEqual({ delay: 120_000, destinations: ["des_x"] });
    const updated = await api(team, "PUT", `${V}/issue-triggers/${id}`, { name: "slower", configs: { delay: 90_000, destinations: "*" } });
    expect(updated.json).toMatchObject({ name: "slower", configs: { delay: 90_000, destinations: "*" } });
    expect((await api(team, "PUT", `${V}/issue-triggers/${id}/disable`)).json.disabled_at).not.toBeNull();
    expect((await api(team, "PUT", `${V}/issue-triggers/${id}/enable`)).json.disabled_at).toBeNull();
    expect((await api(other, "GET", `${V}/issue-triggers/${id}`)).status).toBe(404);
    expect((await api(team, "DELETE", `${V}/issue-triggers/${id}`)).json).toEqual({ id });
    expect((await api(team, "GET", `${V}/issue-triggers/${id}`)).status).toBe(404);
  });

  it.each([
    ["unknown type", { type: "weather", configs: {} }],
    ["delay below a minute", { type: "backpressure", configs: { delay: 5, destinations: "*" } }],
    ["bad strategy", { type: "delivery", configs: { strategy: "sometimes", connections: "*" } }],
    ["unknown config field", { type: "transformation", configs: { log_level: "error", transformations: "*", extra: 1 } }],
    ["no configs", { type: "delivery" }],
  ])("%s is a 422", async (_name, body) => {
    const { status, json } = await api(team, "POST", `${V}/issue-triggers`, body);
    expect(status, JSON.stringify(json)).toBe(422);
    expect(json.code).toBe("UNPROCESSABLE_ENTITY");
  });

  it("a taken name is a 409; other teams get 404 for every trigger route; channels are kept as given", async () => {
    const channels = { slack: { channel_name: "#ops" }, email: {}, pagerduty: { key: "x" } };
    const t = await api(team, "POST", `${V}/issue-triggers`, {
      type: "delivery",
      name: "unique-name",
      configs: { strategy: "final_attempt", connections: "shop-*" },
      channels,
    });
    expect(t.status, JSON.stringify(t.json)).toBe(200);
    expect(t.json.channels).toEqual(channels);
    const dup = await api(team, "POST", `${V}/issue-triggers`, {
      type: "delivery",
      name: "unique-name",
      configs: { strategy: "first_attempt", connections: "*" },
    });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ handled: true, status: 409 });
    // The same name in another team is another trigger.
    const theirs = await api(other, "POST", `${V}/issue-triggers`, {
      type: "delivery",
      name: "unique-name",
      configs: { strategy: "first_attempt", connections: "*" },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.json.id).not.toBe(t.json.id);
    const id = t.json.id;
    for (const [method, path, body] of [
      ["GET", id],
      ["PUT", id, { name: "stolen" }],
      ["DELETE", id],
      ["PUT", `${id}/disable`],
      ["PUT", `${id}/enable`],
    ] as const) {
      const r = await api(other, method, `${V}/issue-triggers/${path}`, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json).toMatchObject({ handled: true, status: 404 });
    }
    expect((await api(other, "GET", `${V}/issue-triggers?id=${id}`)).json.count).toBe(0);
    // An upsert by the other team's name touches only its own trigger.
    const upsert = await api(other, "PUT", `${V}/issue-triggers`, {
      type: "delivery",
      name: "unique-name",
      configs: { strategy: "first_attempt", connections: ["web_theirs"] },
    });
    expect(upsert.json.id).toBe(theirs.json.id);
    expect((await api(team, "GET", `${V}/issue-triggers/${id}`)).json).toMatchObject({
      name: "unique-name",
      configs: { strategy: "final_attempt", connections: "shop-*" },
      disabled_at: null,
    });
    expect((await api(team, "PUT", `${V}/issue-triggers/${id}/explode`)).status).toBe(404);
    for (const body of [
      '{"type":"delivery",',
      '{"type":"delivery","configs":{"strategy":"first_attempt","connections":"*"},"extra":1}',
      '{"type":"delivery","configs":{"strategy":"first_attempt","connections":[5]}}',
      '{"type":"delivery","configs":{"strategy":"first_attempt","connections":"*"},"channels":[]}',
    ]) {
      const r = await api(team, "POST", `${V}/issue-triggers`, body);
      expect(r.status, body).toBeGreaterThanOrEqual(400);
      expect(r.status, body).toBeLessThan(500);
      expect(r.json).toMatchObject({ handled: true });
    }
    await api(team, "DELETE", `${V}/issue-triggers/${id}`);
    await api(other, "DELETE", `${V}/issue-triggers/${theirs.json.id}`);
  });

  it("an upsert without a name is a 422; a bad configs update is a 422 naming the field", async () => {
    expect((await api(team, "PUT", `${V}/issue-triggers`, { type: "delivery", configs: { strategy: "first_attempt", connections: "*" } })).status).toBe(422);
    const t = await api(team, "POST", `${V}/issue-triggers`, { type: "delivery", configs: { strategy: "first_attempt", connections: ["web_none"] } });
    const bad = await api(team, "PUT", `${V}/issue-triggers/${t.json.id}`, { configs: { strategy: "first_attempt", connections: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.json.data.field).toBe("connections");
    await api(team, "DELETE", `${V}/issue-triggers/${t.json.id}`);
  });
});

describe("issues from failing deliveries", () => {
  let issueId = "";
  it("a failed delivery opens an issue and notifies through the team's own source", async () => {
    const n = await api(team, "PUT", `${V}/notifications/webhooks`, { enabled: true, topics: ["issue.opened", "issue.updated"], source_id: notices.source.id });
    expect(n.status, JSON.stringify(n.json)).toBe(200);
    expect(n.json).toEqual({ enabled: true, topics: ["issue.opened", "issue.updated"], source_id: notices.source.id });
    const t = await api(team, "POST", `${V}/issue-triggers`, {
      type: "delivery",
      name: "failures",
      configs: { strategy: "first_attempt", connections: [failing.id] },
      channels: {},
    });
    expect(t.status).toBe(200);
    const requestId = (await send(failing.source.url, { n: 1 })).requestId;
    const [event] = await eventsIn(requestId, ["FAILED"]);
    const issue = await eventually(async () => {
      const { json } = await api(team, "GET", `${V}/issues?type=delivery`);
      return json.models[0];
    }, 20_000);
    issueId = issue.id;
    expect(issue).toMatchObject({
      team_id: team.teamId,
      issue_trigger_id: t.json.id,
      type: "delivery",
      status: "OPENED",
      aggregation_keys: { webhook_id: [failing.id], response_status: [500], error_code: [] },
      dismissed_at: null,
    });
    expect(issue.id).toMatch(/^iss_/);
    expect(issue.reference.event_id).toBe(event.id);
    expect(issue.reference.attempt_id).toMatch(/^atm_/);
    // data: the event and the attempt that opened it, as the API shows them.
    expect(issue.data.trigger_event).toMatchObject({ id: event.id, webhook_id: failing.id });
    expect(issue.data.trigger_attempt).toMatchObject({ id: issue.reference.attempt_id, event_id: event.id, status: "FAILED", response_status: 500 });
    expect("data" in issue.data.trigger_event || "body" in issue.data.trigger_attempt).toBe(false);
    // The notification: a request into the team's own source, delivered through its connection.
    const delivered = await eventually(
      () => receiver.received.find((r) => r.url.startsWith(`/${notices.tag}`) && JSON.parse(r.body.toString()).topic === "issue.opened"),
      20_000,
    );
    expect(JSON.parse(delivered.body.toString()).data.id).toBe(issue.id);
    expect(delivered.headers["x-gateway-signature"]).toBeDefined();
  }, 60_000);

  it("further failures with the same keys are grouped into it; issue_id filters events", async () => {
    const before = (await api(team, "GET", `${V}/issues/${issueId}`)).json;
    for (const i of [2, 3]) await eventsIn((await send(failing.source.url, { n: i })).requestId, ["FAILED"]);
    const after = await eventually(async () => {
      const { json } = await api(team, "GET", `${V}/events?issue_id=${issueId}`);
      return json.count === 3 ? json : null;
    }, 20_000);
    expect(after.models.every((e: { webhook_id: string }) => e.webhook_id === failing.id)).toBe(true);
    const issue = (await api(team, "GET", `${V}/issues/${issueId}`)).json;
    expect(issue.first_seen_at).toBe(before.first_seen_at);
    expect(issue.last_seen_at > before.last_seen_at).toBe(true);
    expect((await api(team, "GET", `${V}/issues/count?status=OPENED`)).json).toEqual({ count: 1 });
    // aggregation_keys[…] filters the list and the count.
    expect((await api(team, "GET", `${V}/issues?aggregation_keys[webhook_id]=${failing.id}`)).json.models.map((i: { id: string }) => i.id)).toEqual([issueId]);
    expect(
      (
        await api(
          team,
          "GET",
          `${V}/issues?aggregation_keys[webhook_id]=${failing.id}&aggregation_keys[response_status][]=404&aggregation_keys[response_status][]=500`,
        )
      ).json.count,
    ).toBe(1);
    expect((await api(team, "GET", `${V}/issues/count?aggregation_keys[response_status]=404`)).json).toEqual({ count: 0 });
    for (const bad of ["aggregation_keys[nope]=1", "aggregation_keys=web_x", "status=CLOSED", "first_seen_at[gte]=soon"]) {
      const r = await api(team, "GET", `${V}/issues?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.json).toMatchObject({ handled: true, status: 400 });
    }
    const now = new Date();
    const metrics = await api(
      team,
      "GET",
      `${V}/metrics/events-by-issue?date_range[start]=${new Date(now.getTime() - 3_600_000).toISOString()}&date_range[end]=${new Date(now.getTime() + 60_000).toISOString()}&measures[]=count&dimensions[]=issue_id`,
    );
    expect(metrics.json.data).toEqual([{ dimensions: { issue_id: issueId }, metrics: { count: 3 } }]);
  }, 60_000);

  it("acknowledged, resolved, reopened by the next failure, dismissed", async () => {
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, { status: "ACKNOWLEDGED" })).json.status).toBe("ACKNOWLEDGED");
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, { status: "RESOLVED" })).json.status).toBe("RESOLVED");
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, { status: "CLOSED" })).status).toBe(422);
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, { status: "IGNORED", note: "x" })).status).toBe(422);
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, {})).status).toBe(422);
    expect((await api(team, "PUT", `${V}/issues/${issueId}`, '{"status":')).status).toBe(400);
    expect((await api(team, "GET", `${V}/issues/${issueId}`)).json.status).toBe("RESOLVED");
    await eventsIn((await send(failing.source.url, { n: 4 })).requestId, ["FAILED"]);
    await eventually(async () => (await api(team, "GET", `${V}/issues/${issueId}`)).json.status === "OPENED", 20_000);
    await eventually(
      () => receiver.received.some((r) => r.url.startsWith(`/${notices.tag}`) && JSON.parse(r.body.toString()).topic === "issue.updated"),
      20_000,
    );
    const dismissed = await api(team, "DELETE", `${V}/issues/${issueId}`);
    expect(dismissed.json.dismissed_at).not.toBeNull();
    expect((await api(team, "GET", `${V}/issues`)).json.models.some((i: { id: string }) => i.id === issueId)).toBe(false);
    expect((await api(team, "GET", `${V}/issues?dismissed_at[any]=true`)).json.models.some((i: { id: string }) => i.id === issueId)).toBe(true);
  }, 60_000);

  it("a failing transformation opens a transformation issue", async () => {
    await api(team, "POST", `${V}/issue-triggers`, { type: "transformation", configs: { log_level: "error", transformations: "*" } });
    const broken = await connectionTo(team, receiver, {
      rules: [{ type: "transform", transformation: { name: `boom-${Date.now()}`, code: 'addHandler("transform", () => { throw new Error("boom") })' } }],
    });
    await send(broken.source.url, { x: 1 });
    const issue = await eventually(async () => (await api(team, "GET", `${V}/issues?type=transformation`)).json.models[0], 20_000);
    expect(issue.status).toBe("OPENED");
    expect(issue.aggregation_keys.transformation_id[0]).toMatch(/^trs_/);
    expect(issue.aggregation_keys.log_level).toEqual(["fatal"]);
    // The failed execution counts in it; issue_id filters the executions.
    const trs = issue.aggregation_keys.transformation_id[0];
    const executions = (await api(team, "GET", `${V}/transformations/${trs}/executions`)).json.models;
    expect(executions.map((x: { issue_id: string }) => x.issue_id)).toEqual([issue.id]);
    expect((await api(team, "GET", `${V}/transformations/${trs}/executions/${executions[0].id}`)).json.issue_id).toBe(issue.id);
    expect((await api(team, "GET", `${V}/transformations/${trs}/executions?issue_id=${issue.id}`)).json.count).toBe(1);
    expect((await api(team, "GET", `${V}/transformations/${trs}/executions?issue_id=iss_other`)).json.count).toBe(0);
  }, 60_000);

  it("another team sees none of it; notifications need one of the team's sources", async () => {
    expect((await api(other, "GET", `${V}/issues/${issueId}`)).status).toBe(404);
    expect((await api(other, "PUT", `${V}/issues/${issueId}`, { status: "RESOLVED" })).status).toBe(404);
    expect((await api(other, "DELETE", `${V}/issues/${issueId}`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/issues/count?dismissed_at[any]=true`)).json).toEqual({ count: 0 });
    expect((await api(other, "GET", `${V}/issues?dismissed_at[any]=true`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/issues`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/events?issue_id=${issueId}`)).json.count).toBe(0);
    const foreign = await api(other, "PUT", `${V}/notifications/webhooks`, { enabled: true, topics: ["issue.opened"], source_id: notices.source.id });
    expect(foreign.status).toBe(422);
    expect(foreign.json.data.id).toBe(notices.source.id);
    expect((await api(team, "PUT", `${V}/notifications/webhooks`, { enabled: true, topics: ["weather.changed"], source_id: notices.source.id })).status).toBe(
      422,
    );
  });
});

describe("bookmarks", () => {
  it("bookmark a request, read it, trigger it through its connection, update, delete", async () => {
    const ok = await connectionTo(team, receiver);
    const requestId = (await send(ok.source.url, { order: 42 })).requestId;
    const [event] = await eventsIn(requestId, ["SUCCESSFUL"]);
    const eventDataId = (await api(team, "GET", `${V}/events/${event.id}`)).json.event_data_id;
    const created = await api(team, "POST", `${V}/bookmarks`, { event_data_id: eventDataId, webhook_id: ok.id, label: "order 42" });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json).toMatchObject({ team_id: team.teamId, webhook_id: ok.id, event_data_id: eventDataId, label: "order 42", name: null });
    const id = created.json.id;
    expect(id).toMatch(/^bmk_/);
    expect((await api(team, "GET", `${V}/bookmarks/${id}`)).json.data.body).toEqual({ order: 42 });
    expect((await api(team, "GET", `${V}/bookmarks/${id}/raw_body`)).json).toEqual({ body: '{"order":42}' });
    const before = receiver.received.filter((r) => r.url.startsWith(`/${ok.tag}`)).length;
    const triggered = await api(team, "POST", `${V}/bookmarks/${id}/trigger`);
    expect(triggered.status).toBe(200);
    expect(triggered.json).toHaveLength(1);
    expect(triggered.json[0]).toMatchObject({ request_id: requestId, webhook_id: ok.id });
    await eventually(() => receiver.received.filter((r) => r.url.startsWith(`/${ok.tag}`)).length === before + 1);
    expect((await api(team, "GET", `${V}/bookmarks?label[contains]=order`)).json.models.map((b: { id: string }) => b.id)).toEqual([id]);
    expect((await api(team, "PUT", `${V}/bookmarks/${id}`, { label: "renamed", name: "n" })).json).toMatchObject({ label: "renamed", name: "n" });
    for (const [method, path, body] of [
      ["GET", id],
      ["GET", `${id}/raw_body`],
      ["POST", `${id}/trigger`],
      ["PUT", id, { label: "theirs" }],
      ["DELETE", id],
    ] as const) {
      const r = await api(other, method, `${V}/bookmarks/${path}`, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json).toMatchObject({ handled: true, status: 404 });
    }
    expect((await api(other, "GET", `${V}/bookmarks`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/bookmarks/${id}`)).json.label).toBe("renamed");
    expect((await api(team, "DELETE", `${V}/bookmarks/${id}`)).json).toEqual({ id });
    expect((await api(team, "GET", `${V}/bookmarks/${id}`)).status).toBe(404);
  }, 60_000);

  it("unknown event data, a foreign connection or missing fields are 422s", async () => {
    const ok = await connectionTo(team, receiver);
    const unknown = await api(team, "POST", `${V}/bookmarks`, { event_data_id: "edt_nothing", webhook_id: ok.id, label: "x" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.data.id).toBe("edt_nothing");
    const otherConn = await connectionTo(other, receiver);
    const requestId = (await send(ok.source.url, { a: 1 })).requestId;
    const foreign = await api(team, "POST", `${V}/bookmarks`, { event_data_id: `edt_${requestId.slice(4)}`, webhook_id: otherConn.id, label: "x" });
    expect(foreign.status).toBe(422);
    expect(foreign.json.data.id).toBe(otherConn.id);
    expect((await api(team, "POST", `${V}/bookmarks`, { webhook_id: ok.id })).status).toBe(422);
    expect((await api(team, "POST", `${V}/bookmarks`, { event_data_id: `edt_${requestId.slice(4)}`, webhook_id: ok.id, label: "x", extra: 1 })).status).toBe(
      422,
    );
    expect((await api(team, "POST", `${V}/bookmarks`, { event_data_id: `edt_${requestId.slice(4)}`, webhook_id: ok.id, label: 5 })).status).toBe(422);
    expect((await api(team, "POST", `${V}/bookmarks`, '{"label":')).status).toBe(400);
    expect((await api(team, "GET", `${V}/bookmarks/bmk_unknown`)).status).toBe(404);
    expect((await api(team, "POST", `${V}/bookmarks/bmk_unknown/trigger`)).status).toBe(404);
    expect((await api(team, "GET", `${V}/bookmarks?created_at[gte]=soon`)).status).toBe(400);
    expect((await api(team, "GET", `${V}/bookmarks?next=garbage`)).status).toBe(400);
  }, 30_000);

  it("triggering through a disabled connection is a 422 with data.id; a filter of today may make no event", async () => {
    const conn = await connectionTo(team, receiver);
    const requestId = (await send(conn.source.url, { kind: "a" })).requestId;
    await eventsIn(requestId, ["SUCCESSFUL"]);
    const b = await api(team, "POST", `${V}/bookmarks`, { event_data_id: `edt_${requestId.slice(4)}`, webhook_id: conn.id, label: "x", name: "n" });
    expect(b.status).toBe(200);
    await api(team, "PUT", `${V}/connections/${conn.id}`, { rules: [{ type: "filter", body: { kind: "b" } }] });
    const filtered = await api(team, "POST", `${V}/bookmarks/${b.json.id}/trigger`);
    expect(filtered.status).toBe(200);
    expect(filtered.json).toEqual([]);
    await api(team, "PUT", `${V}/connections/${conn.id}/disable`);
    const off = await api(team, "POST", `${V}/bookmarks/${b.json.id}/trigger`);
    expect(off.status).toBe(422);
    expect(off.json).toMatchObject({ code: "UNPROCESSABLE_ENTITY", data: { id: conn.id } });
  }, 30_000);
});

describe("an event in two issues", () => {
  it("issue_id finds it under each; a trigger's connections glob matches connection names", async () => {
    const t = await newTeam("issues-two");
    const r = await startReceiver();
    try {
      // First attempt 500, the automatic retry 502: two groups of (connection, status, code).
      const seen = new Map<string, number>();
      r.respond((req) => {
        const n = (seen.get(req.url) ?? 0) + 1;
        seen.set(req.url, n);
        return { status: n === 1 ? 500 : 502, body: "x" };
      });
      const conn = await connectionTo(t, r, { rules: [{ type: "retry", strategy: "linear", interval: 500, count: 1 }] });
      const trigger = await api(t, "POST", `${V}/issue-triggers`, {
        type: "delivery",
        configs: { strategy: "first_attempt", connections: `${conn.name.slice(0, 6)}*` },
      });
      expect(trigger.status).toBe(200);
      const requestId = (await send(conn.source.url, { two: true })).requestId;
      const [event] = await eventsIn(requestId, ["FAILED"]);
      const issues = await eventually(async () => {
        const { json } = await api(t, "GET", `${V}/issues?order_by=created_at&dir=asc`);
        return json.count === 2 ? json.models : null;
      }, 20_000);
      expect(issues.map((i: { aggregation_keys: { response_status: number[] } }) => i.aggregation_keys.response_status).sort()).toEqual([[500], [502]]);
      for (const issue of issues) {
        expect((await api(t, "GET", `${V}/events?issue_id=${issue.id}`)).json.models.map((e: { id: string }) => e.id)).toEqual([event.id]);
      }
      expect((await api(t, "GET", `${V}/events?issue_id[]=${issues[0].id}&issue_id[]=${issues[1].id}`)).json.count).toBe(1);
      expect((await api(t, "GET", `${V}/events?issue_id[any]=true`)).json.count).toBe(1);
      expect((await api(t, "GET", `${V}/events?issue_id[any]=false`)).json.count).toBe(0);
      // The same filter in a bulk query.
      expect(
        (await api(t, "GET", `${V}/bulk/events/retry/plan?query=${encodeURIComponent(JSON.stringify({ issue_id: [issues[1].id] }))}`)).json.estimated_count,
      ).toBe(1);
    } finally {
      await r.close();
    }
  }, 60_000);
});

describe("event.successful and deprecated.attempt-failed notifications", () => {
  it("each attempt of the team's other sources is published into the notification source; its own are not", async () => {
    const t = await newTeam("notify-attempts");
    const r = await startReceiver();
    try {
      r.respond((req) => ({ status: req.url.includes("/broken") ? 503 : 200, body: "x" }));
      const inbox = await connectionTo(t, r);
      const good = await connectionTo(t, r);
      const bad = await connectionTo(t, r, { destination: { config: { url: `${r.url}/broken` } } });
      const n = await api(t, "PUT", `${V}/notifications/webhooks`, {
        enabled: true,
        topics: ["event.successful", "deprecated.attempt-failed"],
        source_id: inbox.source.id,
      });
      expect(n.status).toBe(200);
      const okRequest = (await send(good.source.url, { fine: 1 })).requestId;
      const badRequest = (await send(bad.source.url, { fine: 0 })).requestId;
      const [okEvent] = await eventsIn(okRequest, ["SUCCESSFUL"]);
      const [badEvent] = await eventsIn(badRequest, ["FAILED"]);
      const notes = () => r.received.filter((x) => x.url.startsWith(`/${inbox.tag}`)).map((x) => JSON.parse(x.body.toString()));
      const successful = await eventually(() => notes().find((x) => x.topic === "event.successful" && x.data.event.id === okEvent.id), 20_000);
      expect(successful.data.attempt).toMatchObject({ event_id: okEvent.id, status: "SUCCESFUL" });
      expect(successful.data.event).toMatchObject({ webhook_id: good.id, status: "SUCCESSFUL" });
      const failed = await eventually(() => notes().find((x) => x.topic === "deprecated.attempt-failed" && x.data.event.id === badEvent.id), 20_000);
      expect(failed.data.attempt).toMatchObject({ event_id: badEvent.id, status: "FAILED", response_status: 503 });
      // The notifications' own successful deliveries notify nothing: no loop.
      await new Promise((res) => setTimeout(res, 4_000));
      const all = notes();
      expect(all.filter((x) => x.topic === "event.successful").map((x) => x.data.event.webhook_id)).toEqual([good.id]);
      expect(all.filter((x) => x.topic === "deprecated.attempt-failed").map((x) => x.data.event.webhook_id)).toEqual([bad.id]);
      // Disabled: nothing more.
      expect(
        (await api(t, "PUT", `${V}/notifications/webhooks`, { enabled: false, topics: ["event.successful"], source_id: inbox.source.id })).json.enabled,
      ).toBe(false);
      await eventsIn((await send(good.source.url, { fine: 2 })).requestId, ["SUCCESSFUL"]);
      await new Promise((res) => setTimeout(res, 4_000));
      expect(notes()).toHaveLength(all.length);
      // Bad settings bodies.
      for (const body of [
        { enabled: "yes", topics: [], source_id: inbox.source.id },
        { enabled: true, topics: ["issue.opened"] },
        { enabled: true, topics: ["issue.opened"], source_id: inbox.source.id, extra: 1 },
        { enabled: true, topics: "issue.opened", source_id: inbox.source.id },
      ]) {
        const res = await api(t, "PUT", `${V}/notifications/webhooks`, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
      const missing = await api(t, "PUT", `${V}/notifications/webhooks`, { enabled: true, topics: [], source_id: "src_missing" });
      expect(missing.status).toBe(422);
      expect(missing.json.data.id).toBe("src_missing");
    } finally {
      await r.close();
    }
  }, 90_000);
});
