/**
 * Events, ignored events, attempts and transformation executions through the gateway API
 * (shared/spec/gateway.md "Other named endpoints", "States"; reference §1-2), filled by the real
 * pipeline: list, get, filters, paging, include=data, versions, retry, cancel, request retry, isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, ignoredIn, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
let team: TestTeam;
let other: TestTeam;
let receiver: Receiver;
let conn: Awaited<ReturnType<typeof connectionTo>>;
const requestIds: string[] = [];
beforeAll(async () => {
  team = await newTeam("events");
  other = await newTeam("events-other");
  receiver = await startReceiver();
  conn = await connectionTo(team, receiver, { rules: [{ type: "filter", body: { keep: true } }] });
  for (let i = 0; i < 7; i++) requestIds.push((await send(`${conn.source.url}/p/${i}?i=${i}`, { keep: true, i })).requestId);
  requestIds.push((await send(conn.source.url, { keep: false })).requestId);
  for (const id of requestIds.slice(0, 7)) await eventsIn(id, ["SUCCESSFUL"]);
  await ignoredIn(requestIds[7]!);
});
afterAll(async () => receiver.close());

describe("GET /events", () => {
  it("lists the team's events with filters and the spec's shape", async () => {
    const { status, json } = await api(team, "GET", `${V}/events?webhook_id=${conn.id}&status=SUCCESSFUL`);
    expect(status).toBe(200);
    expect(json.count).toBe(7);
    expect(json.pagination).toMatchObject({ order_by: "created_at", dir: "desc", limit: 100 });
    const e = json.models[0];
    expect(Object.keys(e).sort()).toEqual(
      ["attempts", "cli_id", "created_at", "destination_id", "error_code", "event_data_id", "id", "last_attempt_at", "next_attempt_at", "request_id", "response_status", "source_id", "status", "successful_at", "team_id", "updated_at", "webhook_id"].sort(),
    );
    expect(e).toMatchObject({ team_id: team.teamId, webhook_id: conn.id, source_id: conn.source.id, destination_id: conn.destination.id, attempts: 1, response_status: 200, status: "SUCCESSFUL", error_code: null });
    expect(e.event_data_id).toMatch(/^edt_/);
    expect((await api(team, "GET", `${V}/events?status=FAILED&webhook_id=${conn.id}`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/events?attempts[gte]=1&webhook_id=${conn.id}`)).json.count).toBe(7);
    expect((await api(team, "GET", `${V}/events?attempts[gt]=1&webhook_id=${conn.id}`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/events?request_id=${requestIds[0]}`)).json.count).toBe(1);
    expect((await api(team, "GET", `${V}/events?request_id[0]=${requestIds[0]}&request_id[1]=${requestIds[1]}`)).json.count).toBe(2);
  });

  it("include=data adds url, method, path, query and body; 2024-09-01 gets the short data", async () => {
    const { json } = await api(team, "GET", `${V}/events?request_id=${requestIds[3]}&include=data`);
    expect(json.models[0].data).toMatchObject({ url: `${receiver.url}/${conn.tag}/p/3?i=3`, method: "POST", path: "/p/3", query: "i=3", parsed_query: { i: "3" }, body: { keep: true, i: 3 } });
    const old = await api(team, "GET", `/2024-09-01/events/${json.models[0].id}`);
    expect(old.status).toBe(200);
    expect(old.json.data.url).toBeUndefined();
    expect(old.json.data.path).toBe("/p/3");
  });

  it("pages through more than two pages both ways with a non-default order", async () => {
    const q = `webhook_id=${conn.id}&order_by=last_attempt_at&dir=asc&limit=3`;
    const pages: string[][] = [];
    let page = await api(team, "GET", `${V}/events?${q}`);
    pages.push(page.json.models.map((m: { id: string }) => m.id));
    while (page.json.pagination.next) {
      page = await api(team, "GET", `${V}/events?${q}&next=${page.json.pagination.next}`);
      pages.push(page.json.models.map((m: { id: string }) => m.id));
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const all = pages.flat();
    expect(new Set(all).size).toBe(7);
    const back = await api(team, "GET", `${V}/events?${q}&prev=${page.json.pagination.prev}`);
    expect(back.json.models.map((m: { id: string }) => m.id)).toEqual(pages[1]);
    expect((await api(team, "GET", `${V}/events?next=garbage`)).status).toBe(400);
    expect((await api(team, "GET", `${V}/events?status=NOPE`)).status).toBe(400);
  });

  it("GET /events/{id} and raw_body; another team sees nothing", async () => {
    const { json: list } = await api(team, "GET", `${V}/events?request_id=${requestIds[1]}`);
    const id = list.models[0].id;
    const one = await api(team, "GET", `${V}/events/${id}`);
    expect(one.status).toBe(200);
    expect(one.json.data.body).toEqual({ keep: true, i: 1 });
    expect((await api(team, "GET", `${V}/events/${id}/raw_body`)).json).toEqual({ body: JSON.stringify({ keep: true, i: 1 }) });
    const foreign = await api(other, "GET", `${V}/events/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ handled: true, status: 404 });
    expect((await api(other, "GET", `${V}/events`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/events/${id}/raw_body`)).status).toBe(404);
  });
});

describe("attempts", () => {
  it("lists attempts with the spec's SUCCESFUL spelling, without body; get has the body", async () => {
    const { json: ev } = await api(team, "GET", `${V}/events?request_id=${requestIds[2]}`);
    const list = await api(team, "GET", `${V}/attempts?event_id=${ev.models[0].id}`);
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(1);
    const a = list.json.models[0];
    expect(a).toMatchObject({ event_id: ev.models[0].id, status: "SUCCESFUL", trigger: "INITIAL", attempt_number: 1, response_status: 200, http_method: "POST" });
    expect(a.body).toBeUndefined();
    expect(a.requested_url).toBeUndefined();
    const one = await api(team, "GET", `${V}/attempts/${a.id}`);
    expect(one.json).toMatchObject({ id: a.id, body: "ok", requested_url: `${receiver.url}/${conn.tag}/p/2?i=2` });
    expect((await api(team, "GET", `${V}/attempts?status=SUCCESFUL&event_id=${ev.models[0].id}`)).json.count).toBe(1);
    expect((await api(team, "GET", `${V}/attempts?status=FAILED&event_id=${ev.models[0].id}`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/attempts/${a.id}`)).status).toBe(404);
  });
});

describe("a request's events, ignored events and retry", () => {
  it("GET /requests/{id}/events and /ignored_events; the request's counts", async () => {
    const events = await api(team, "GET", `${V}/requests/${requestIds[0]}/events`);
    expect(events.json.count).toBe(1);
    const ignored = await api(team, "GET", `${V}/requests/${requestIds[7]}/ignored_events`);
    expect(ignored.json.count).toBe(1);
    expect(ignored.json.models[0]).toMatchObject({ cause: "FILTERED", webhook_id: conn.id, request_id: requestIds[7], meta: ["body"] });
    expect((await api(team, "GET", `${V}/ignored-events/${ignored.json.models[0].id}`)).json.cause).toBe("FILTERED");
    expect((await api(team, "GET", `${V}/ignored-events?cause=FILTERED&webhook_id=${conn.id}`)).json.count).toBe(1);
    expect((await api(team, "GET", `${V}/requests/${requestIds[0]}`)).json).toMatchObject({ events_count: 1, cli_events_count: 0, ignored_count: 0 });
    expect((await api(team, "GET", `${V}/requests/${requestIds[7]}`)).json).toMatchObject({ events_count: 0, ignored_count: 1 });
    expect((await api(other, "GET", `${V}/requests/${requestIds[0]}/events`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/requests/${requestIds[7]}/ignored_events`)).status).toBe(404);
  });

  it("POST /requests/{id}/retry runs it through the connections again; webhook_ids must be active connections of its source", async () => {
    const res = await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`);
    expect(res.status).toBe(200);
    expect(res.json.request.id).toBe(requestIds[4]);
    expect(res.json.events).toHaveLength(1);
    await eventsIn(requestIds[4]!, ["SUCCESSFUL"], 2);
    const withIds = await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: [conn.id] });
    expect(withIds.json.events).toHaveLength(1);
    const unknown = await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: ["web_doesnotexist"] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.data.id).toBe("web_doesnotexist");
    expect((await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: "x" })).status).toBe(422);
    expect((await api(other, "POST", `${V}/requests/${requestIds[4]}/retry`)).status).toBe(404);
  });
});

describe("event retry and cancel", () => {
  it("POST /events/{id}/retry makes a MANUAL attempt and returns the event at the root", async () => {
    const { json: list } = await api(team, "GET", `${V}/events?request_id=${requestIds[5]}`);
    const id = list.models[0].id;
    const res = await api(team, "POST", `${V}/events/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(id);
    const attempts = await eventually(async () => {
      const a = await api(team, "GET", `${V}/attempts?event_id=${id}&dir=asc`);
      return a.json.count === 2 ? a.json.models : null;
    });
    expect(attempts.map((a: { trigger: string }) => a.trigger)).toEqual(["INITIAL", "MANUAL"]);
    expect((await api(team, "GET", `${V}/events/${id}`)).json.attempts).toBe(2);
    expect((await api(other, "POST", `${V}/events/${id}/retry`)).status).toBe(404);
  });

  it("PUT /events/{id}/cancel cancels a HOLD event, refuses a SUCCESSFUL one; mute works in 2024-09-01, cancel does not exist there", async () => {
    const paused = await connectionTo(team, receiver);
    await api(team, "PUT", `${V}/connections/${paused.id}/pause`);
    const a = await send(paused.source.url, { a: 1 });
    const b = await send(paused.source.url, { b: 1 });
    const [held] = await eventsIn(a.requestId, ["HOLD"]);
    const [held2] = await eventsIn(b.requestId, ["HOLD"]);
    const cancelled = await api(team, "PUT", `${V}/events/${held.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ id: held.id, status: "CANCELLED" });
    const again = await api(team, "PUT", `${V}/events/${held.id}/cancel`);
    expect(again.status).toBe(422);
    expect((await api(team, "PUT", `/2024-09-01/events/${held2.id}/cancel`)).status).toBe(404);
    expect((await api(team, "PUT", `/2024-09-01/events/${held2.id}/mute`)).json.status).toBe("CANCELLED");
    await api(team, "PUT", `${V}/connections/${paused.id}/unpause`);
    await new Promise((r) => setTimeout(r, 500));
    expect((await api(team, "GET", `${V}/events/${held.id}`)).json.status).toBe("CANCELLED");
    expect((await api(team, "PUT", `${V}/events/evt_unknown/cancel`)).status).toBe(404);
  });
});

describe("transformation executions", () => {
  it("lists and gets the executions of a transformation run by the pipeline", async () => {
    const t = await api(team, "POST", `${V}/transformations`, { name: `exec-${Date.now()}`, code: `addHandler("transform", (r) => { console.log("hi"); return r; })` });
    const c = await connectionTo(team, receiver, { rules: [{ type: "transform", transformation_id: t.json.id }] });
    const sent = await send(c.source.url, { x: 1 });
    const [event] = await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const list = await api(team, "GET", `${V}/transformations/${t.json.id}/executions`);
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(1);
    const x = list.json.models[0];
    expect(x).toMatchObject({ transformation_id: t.json.id, webhook_id: c.id, request_id: sent.requestId, event_id: event.id, log_level: "info", logs: [{ type: "log", message: "hi" }], issue_id: null });
    expect((await api(team, "GET", `${V}/transformations/${t.json.id}/executions/${x.id}`)).json.id).toBe(x.id);
    expect((await api(team, "GET", `${V}/transformations/${t.json.id}/executions?log_level=fatal`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/transformations/${t.json.id}/executions`)).status).toBe(404);
  });
});
