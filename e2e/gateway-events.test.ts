/**
 * Events, ignored events, attempts and transformation executions through the gateway API
 * (docs/gateway-api.md#events, docs/pipeline.md#events-and-attempts), filled by the real
 * pipeline: list, get, filters, paging, include=data, versions, retry, cancel, request retry, isolation.
 */
import { APPENDED_HEADERS } from "@/lib/delivery/outgoing";
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
  await ignoredIn(requestIds[7]);
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
      [
        "attempts",
        "cli_id",
        "created_at",
        "destination_id",
        "error_code",
        "event_data_id",
        "id",
        "last_attempt_at",
        "next_attempt_at",
        "request_id",
        "response_status",
        "source_id",
        "status",
        "successful_at",
        "team_id",
        "updated_at",
        "webhook_id",
      ].sort(),
    );
    expect(e).toMatchObject({
      team_id: team.teamId,
      webhook_id: conn.id,
      source_id: conn.source.id,
      destination_id: conn.destination.id,
      attempts: 1,
      response_status: 200,
      status: "SUCCESSFUL",
      error_code: null,
    });
    expect(e.event_data_id).toMatch(/^edt_/);
    expect((await api(team, "GET", `${V}/events?status=FAILED&webhook_id=${conn.id}`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/events?attempts[gte]=1&webhook_id=${conn.id}`)).json.count).toBe(7);
    expect((await api(team, "GET", `${V}/events?attempts[gt]=1&webhook_id=${conn.id}`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/events?request_id=${requestIds[0]}`)).json.count).toBe(1);
    expect((await api(team, "GET", `${V}/events?request_id[0]=${requestIds[0]}&request_id[1]=${requestIds[1]}`)).json.count).toBe(2);
  });

  it("include=data adds url, method, path, query and body; 2024-09-01 gets the short data", async () => {
    const { json } = await api(team, "GET", `${V}/events?request_id=${requestIds[3]}&include=data`);
    expect(json.models[0].data).toMatchObject({
      url: `${receiver.url}/${conn.tag}/p/3?i=3`,
      method: "POST",
      path: "/p/3",
      query: "i=3",
      parsed_query: { i: "3" },
      body: { keep: true, i: 3 },
    });
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
    expect(a).toMatchObject({
      event_id: ev.models[0].id,
      status: "SUCCESFUL",
      trigger: "INITIAL",
      attempt_number: 1,
      response_status: 200,
      http_method: "POST",
    });
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
    await eventsIn(requestIds[4], ["SUCCESSFUL"], 2);
    const withIds = await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: [conn.id] });
    expect(withIds.json.events).toHaveLength(1);
    const unknown = await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: ["web_doesnotexist"] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.data.id).toBe("web_doesnotexist");
    // A disabled connection of the request's source, and an active connection of another source: 422 too.
    const own = await connectionTo(team, null, { destination: { type: "MOCK_API" } });
    const sent = await send(own.source.url, { retry: "me" });
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const disabled = await api(team, "POST", `${V}/connections`, {
      name: "retry-disabled",
      source_id: own.source.id,
      destination: { type: "MOCK_API", name: `${own.tag}-disabled` },
    });
    expect(disabled.status).toBe(200);
    expect((await api(team, "PUT", `${V}/connections/${disabled.json.id}/disable`)).status).toBe(200);
    const refused = await api(team, "POST", `${V}/requests/${sent.requestId}/retry`, { webhook_ids: [own.id, disabled.json.id] });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ handled: true, status: 422, data: { id: disabled.json.id } });
    const wrongSource = await api(team, "POST", `${V}/requests/${sent.requestId}/retry`, { webhook_ids: [conn.id] });
    expect(wrongSource.status).toBe(422);
    expect(wrongSource.json.data.id).toBe(conn.id);
    expect((await api(team, "POST", `${V}/requests/${sent.requestId}/retry`, { webhook_ids: [own.id] })).status).toBe(200);
    expect((await api(team, "POST", `${V}/requests/${requestIds[4]}/retry`, { webhook_ids: "x" })).status).toBe(422);
    expect((await api(other, "POST", `${V}/requests/${requestIds[4]}/retry`)).status).toBe(404);
  });
});

describe("event retry and cancel", () => {
  it("POST /events/{id}/retry makes a MANUAL attempt and returns the event at the root, its former attempt property null", async () => {
    const { json: list } = await api(team, "GET", `${V}/events?request_id=${requestIds[5]}`);
    const id = list.models[0].id;
    const res = await api(team, "POST", `${V}/events/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(id);
    expect(res.json).toHaveProperty("attempt", null);
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
    const t = await api(team, "POST", `${V}/transformations`, {
      name: `exec-${Date.now()}`,
      code: `addHandler("transform", (r) => { console.log("hi"); return r; })`,
    });
    const c = await connectionTo(team, receiver, { rules: [{ type: "transform", transformation_id: t.json.id }] });
    const sent = await send(c.source.url, { x: 1 });
    const [event] = await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const list = await api(team, "GET", `${V}/transformations/${t.json.id}/executions`);
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(1);
    const x = list.json.models[0];
    expect(x).toMatchObject({
      transformation_id: t.json.id,
      webhook_id: c.id,
      request_id: sent.requestId,
      event_id: event.id,
      log_level: "info",
      logs: [{ type: "log", message: "hi" }],
      issue_id: null,
    });
    expect((await api(team, "GET", `${V}/transformations/${t.json.id}/executions/${x.id}`)).json.id).toBe(x.id);
    expect((await api(team, "GET", `${V}/transformations/${t.json.id}/executions?log_level=fatal`)).json.count).toBe(0);
    expect((await api(other, "GET", `${V}/transformations/${t.json.id}/executions`)).status).toBe(404);
  });
});

/**
 * The read side against fixture rows written with SQL (requests, events, ignored events, attempts,
 * executions), so every filter, sort key and state is exercised with known values. Fixture events
 * that are QUEUED or SCHEDULED are due far in the future, so no worker delivers them.
 */
describe("read side on SQL fixtures", () => {
  type Ev = {
    id: string;
    conn: "http" | "nofwd" | "cli" | "mock";
    req: "A" | "B";
    status: string;
    attempts: number;
    response_status: number | null;
    error_code: string | null;
    cli_id: string | null;
    created_at: string;
    last_attempt_at: string | null;
    next_attempt_at: string | null;
    successful_at: string | null;
    data: unknown;
  };
  const T = (minute: number) => new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString();
  const FUTURE = (day: number) => new Date(Date.UTC(2090, 0, day)).toISOString();
  let fx: TestTeam;
  let fxOther: TestTeam;
  let source: { id: string };
  const dest: Record<Ev["conn"], { id: string }> = {} as never;
  const connOf: Record<Ev["conn"], { id: string }> = {} as never;
  const req: Record<"A" | "B" | "C", string> = {} as never;
  let evs: Ev[] = [];
  let trs: { id: string };
  const att: { id: string; event: number; status: string; trigger: string; created_at: string; body: string | null }[] = [];
  const ign: { id: string; req: "A" | "C"; conn: Ev["conn"]; cause: string; meta: unknown; created_at: string }[] = [];
  const exc: { id: string; log_level: string; conn: Ev["conn"]; created_at: string }[] = [];
  const foreign: Record<string, string> = {};
  const TRANSFORMED = { path: "/t", query: "a=1", headers: { "x-t": "1" }, body: '{"t":true}' };

  const ids = (json: { models: { id: string }[] }) => json.models.map((m) => m.id).sort();
  const sorted = (list: string[]) => [...list].sort();

  beforeAll(async () => {
    const { db } = await import("./support/client");
    const { createId } = await import("@/lib/ids");
    fx = await newTeam("events-fixtures");
    fxOther = await newTeam("events-fixtures-other");
    source = (await api(fx, "POST", `${V}/sources`, { name: "fx-in" })).json;
    const destinations = {
      http: { name: "fx-http", config: { url: "https://fixtures.invalid/base" } },
      nofwd: { name: "fx-nofwd", config: { url: "https://fixtures.invalid/fixed?k=v", path_forwarding_disabled: true, http_method: "PUT" } },
      cli: { name: "fx-cli", type: "CLI", config: { path: "/cli-path" } },
      mock: { name: "fx-mock", type: "MOCK_API" },
    };
    for (const [k, body] of Object.entries(destinations) as [Ev["conn"], unknown][]) {
      const d = await api(fx, "POST", `${V}/destinations`, body);
      expect(d.status, JSON.stringify(d.json)).toBe(200);
      dest[k] = d.json;
      const c = await api(fx, "POST", `${V}/connections`, { name: `fx-${k}`, source_id: source.id, destination_id: d.json.id });
      expect(c.status, JSON.stringify(c.json)).toBe(200);
      connOf[k] = c.json;
    }
    // Requests written as ingestion writes them (no fan-out row: the pipeline leaves them alone).
    const raw = {
      A: {
        method: "POST",
        path: "/orders",
        query: "x=1&y[]=2",
        headers: { "content-type": "application/json", "x-trace": "t1" },
        body: Buffer.from('{"order":1}'),
      },
      B: { method: "PUT", path: "/", query: "", headers: { "content-type": "application/octet-stream" }, body: Buffer.from([0, 255, 1, 254]) },
      C: { method: "POST", path: "/c", query: "", headers: {}, body: null },
    };
    for (const [k, r] of Object.entries(raw) as ["A" | "B" | "C", (typeof raw)["A"]][]) {
      req[k] = createId("request");
      await db().query(
        "INSERT INTO requests (id, team_id, source_id, verified, rejection_cause, ingested_at, created_at, updated_at) VALUES ($1, $2, $3, false, NULL, now(), now(), now())",
        [req[k], fx.teamId, source.id],
      );
      await db().query(
        "INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size, content_type) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [req[k], r.method, r.path, r.query, JSON.stringify(r.headers), r.body, r.body?.length ?? 0, r.headers["content-type"] ?? null],
      );
    }
    const spec: Omit<Ev, "id" | "created_at">[] = [
      {
        conn: "http",
        req: "A",
        status: "SUCCESSFUL",
        attempts: 1,
        response_status: 200,
        error_code: null,
        cli_id: null,
        last_attempt_at: T(11),
        next_attempt_at: null,
        successful_at: T(11),
        data: null,
      },
      {
        conn: "http",
        req: "A",
        status: "FAILED",
        attempts: 5,
        response_status: 500,
        error_code: "BAD_RESPONSE",
        cli_id: null,
        last_attempt_at: T(12),
        next_attempt_at: null,
        successful_at: null,
        data: null,
      },
      {
        conn: "http",
        req: "B",
        status: "QUEUED",
        attempts: 2,
        response_status: 503,
        error_code: null,
        cli_id: null,
        last_attempt_at: T(13),
        next_attempt_at: FUTURE(5),
        successful_at: null,
        data: null,
      },
      {
        conn: "nofwd",
        req: "A",
        status: "SCHEDULED",
        attempts: 0,
        response_status: null,
        error_code: null,
        cli_id: null,
        last_attempt_at: null,
        next_attempt_at: FUTURE(1),
        successful_at: null,
        data: null,
      },
      {
        conn: "nofwd",
        req: "B",
        status: "HOLD",
        attempts: 0,
        response_status: null,
        error_code: null,
        cli_id: null,
        last_attempt_at: null,
        next_attempt_at: null,
        successful_at: null,
        data: null,
      },
      {
        conn: "cli",
        req: "A",
        status: "SUCCESSFUL",
        attempts: 1,
        response_status: 200,
        error_code: null,
        cli_id: "cls_fx1",
        last_attempt_at: T(16),
        next_attempt_at: null,
        successful_at: T(16),
        data: null,
      },
      {
        conn: "cli",
        req: "B",
        status: "FAILED",
        attempts: 1,
        response_status: null,
        error_code: "CLI_UNAVAILABLE",
        cli_id: null,
        last_attempt_at: T(17),
        next_attempt_at: null,
        successful_at: null,
        data: null,
      },
      {
        conn: "mock",
        req: "A",
        status: "SUCCESSFUL",
        attempts: 1,
        response_status: 200,
        error_code: null,
        cli_id: null,
        last_attempt_at: T(18),
        next_attempt_at: null,
        successful_at: T(18),
        data: null,
      },
      {
        conn: "http",
        req: "A",
        status: "CANCELLED",
        attempts: 3,
        response_status: 404,
        error_code: "CANCELLED",
        cli_id: null,
        last_attempt_at: T(14),
        next_attempt_at: null,
        successful_at: null,
        data: TRANSFORMED,
      },
      {
        conn: "mock",
        req: "B",
        status: "FAILED",
        attempts: 4,
        response_status: 429,
        error_code: "TIMEOUT",
        cli_id: null,
        last_attempt_at: T(19),
        next_attempt_at: null,
        successful_at: null,
        data: null,
      },
    ];
    evs = spec.map((e, i) => ({ ...e, id: createId("event"), created_at: T(i + 1) }));
    for (const e of evs) {
      await db().query(
        `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, last_attempt_at, next_attempt_at,
                             response_status, error_code, successful_at, cli_id, data, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`,
        [
          e.id,
          fx.teamId,
          connOf[e.conn].id,
          source.id,
          dest[e.conn].id,
          req[e.req],
          e.status,
          e.attempts,
          e.last_attempt_at,
          e.next_attempt_at,
          e.response_status,
          e.error_code,
          e.successful_at,
          e.cli_id,
          e.data ? JSON.stringify(e.data) : null,
          e.created_at,
        ],
      );
    }
    const attempts = [
      { event: 1, n: 1, trigger: "INITIAL", status: "FAILED", rs: 500, body: '{"error":"boom"}', url: "https://fixtures.invalid/base/orders?x=1&y[]=2" },
      { event: 1, n: 2, trigger: "AUTOMATIC", status: "FAILED", rs: 500, body: "plain text", url: "https://fixtures.invalid/base/orders?x=1&y[]=2" },
      { event: 0, n: 1, trigger: "INITIAL", status: "SUCCESSFUL", rs: 200, body: '{"ok":true}', url: "https://fixtures.invalid/base/orders?x=1&y[]=2" },
      { event: 5, n: 1, trigger: "MANUAL", status: "SUCCESSFUL", rs: 200, body: null, url: null },
    ];
    for (const [i, a] of attempts.entries()) {
      const id = createId("attempt");
      const e = evs[a.event];
      att.push({ id, event: a.event, status: a.status, trigger: a.trigger, created_at: T(20 + i), body: a.body });
      await db().query(
        `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, error_code, body, requested_url, http_method,
                               successful_at, delivered_at, responded_at, delivery_latency, response_latency, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10, 'POST', $11, $12, $12, 12, 10, $12, $12)`,
        [id, fx.teamId, e.id, dest[e.conn].id, a.n, a.trigger, a.status, a.rs, a.body, a.url, a.status === "SUCCESSFUL" ? T(20 + i) : null, T(20 + i)],
      );
    }
    const ignored = [
      { req: "C", conn: "http", cause: "FILTERED", meta: ["body"] },
      { req: "C", conn: "nofwd", cause: "TRANSFORMATION_FAILED", meta: { transformation_id: "trs_fixture" } },
      { req: "A", conn: "http", cause: "DEDUPLICATED", meta: null },
    ] as const;
    for (const [i, g] of ignored.entries()) {
      const id = createId("ignoredEvent");
      ign.push({ id, ...g, created_at: T(30 + i) });
      await db().query(
        "INSERT INTO ignored_events (id, team_id, webhook_id, request_id, cause, meta, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
        [id, fx.teamId, connOf[g.conn].id, req[g.req], g.cause, g.meta === null ? null : JSON.stringify(g.meta), T(30 + i)],
      );
    }
    trs = (await api(fx, "POST", `${V}/transformations`, { name: `fx-${Date.now()}`, code: 'addHandler("transform", (r) => r)' })).json;
    for (const [i, x] of [
      { log_level: "info", conn: "http" },
      { log_level: "fatal", conn: "nofwd" },
      { log_level: "debug", conn: "http" },
    ].entries() as IterableIterator<[number, { log_level: string; conn: Ev["conn"] }]>) {
      const id = createId("execution");
      exc.push({ id, ...x, created_at: T(40 + i) });
      await db().query(
        `INSERT INTO transformation_executions (id, team_id, transformation_id, webhook_id, request_id, event_id, log_level, logs, original_data, transformed_data, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
        [
          id,
          fx.teamId,
          trs.id,
          connOf[x.conn].id,
          req.A,
          x.log_level === "fatal" ? null : evs[0].id,
          x.log_level,
          JSON.stringify([{ type: "log", message: `run ${i}` }]),
          JSON.stringify({ headers: {}, body: { order: 1 }, path: "/orders", query: "", parsed_query: {} }),
          x.log_level === "fatal" ? null : JSON.stringify({ headers: {}, body: { order: 2 }, path: "/orders", query: "", parsed_query: {} }),
          T(40 + i),
        ],
      );
    }
    // Another team's rows of every kind (its own source, request, event, attempt, ignored event, transformation and execution).
    const oSource = (await api(fxOther, "POST", `${V}/sources`, { name: "fx-other-in" })).json;
    const oTrs = (await api(fxOther, "POST", `${V}/transformations`, { name: `fxo-${Date.now()}`, code: 'addHandler("transform", (r) => r)' })).json;
    foreign.request = createId("request");
    foreign.event = createId("event");
    foreign.attempt = createId("attempt");
    foreign.ignored = createId("ignoredEvent");
    foreign.transformation = oTrs.id;
    foreign.execution = createId("execution");
    await db().query("INSERT INTO requests (id, team_id, source_id, verified, ingested_at) VALUES ($1, $2, $3, false, now())", [
      foreign.request,
      fxOther.teamId,
      oSource.id,
    ]);
    await db().query("INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size) VALUES ($1, 'POST', '/', '', '{}', NULL, 0)", [
      foreign.request,
    ]);
    await db().query(
      "INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'SUCCESSFUL', $7, $7)",
      [foreign.event, fxOther.teamId, connOf.http.id, oSource.id, dest.http.id, foreign.request, T(5)],
    );
    await db().query(
      "INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, created_at, updated_at) VALUES ($1, $2, $3, $4, 1, 'INITIAL', 'SUCCESSFUL', $5, $5)",
      [foreign.attempt, fxOther.teamId, evs[0].id, dest.http.id, T(22)],
    );
    await db().query(
      "INSERT INTO ignored_events (id, team_id, webhook_id, request_id, cause, created_at, updated_at) VALUES ($1, $2, $3, $4, 'FILTERED', $5, $5)",
      [foreign.ignored, fxOther.teamId, connOf.http.id, foreign.request, T(31)],
    );
    await db().query(
      "INSERT INTO transformation_executions (id, team_id, transformation_id, webhook_id, log_level, created_at, updated_at) VALUES ($1, $2, $3, $4, 'info', $5, $5)",
      [foreign.execution, fxOther.teamId, trs.id, connOf.http.id, T(41)],
    );
  });

  /** The ids of the fixture events matching `pred`. */
  const evIds = (pred: (e: Ev) => boolean) => sorted(evs.filter(pred).map((e) => e.id));
  const listEv = async (q: string, team = fx, path = `${V}/events`) => {
    const res = await api(team, "GET", `${path}?${q}`);
    expect(res.status, `${q}: ${JSON.stringify(res.json)}`).toBe(200);
    return ids(res.json);
  };
  /** All pages of `path?query` forward through `next`, then back through `prev` from the last page; checks both ways agree. */
  async function walk(team: TestTeam, path: string, query: string) {
    const pages: string[][] = [];
    let page = await api(team, "GET", `${path}?${query}`);
    expect(page.status, JSON.stringify(page.json)).toBe(200);
    expect(page.json.pagination.prev).toBeUndefined();
    pages.push(page.json.models.map((m: { id: string }) => m.id));
    while (page.json.pagination.next) {
      page = await api(team, "GET", `${path}?${query}&next=${page.json.pagination.next}`);
      expect(page.status).toBe(200);
      expect(page.json.count).toBe(page.json.models.length);
      pages.push(page.json.models.map((m: { id: string }) => m.id));
    }
    const back: string[][] = [pages[pages.length - 1]];
    while (page.json.pagination.prev) {
      page = await api(team, "GET", `${path}?${query}&prev=${page.json.pagination.prev}`);
      expect(page.status).toBe(200);
      back.unshift(page.json.models.map((m: { id: string }) => m.id));
    }
    expect(back).toEqual(pages);
    return pages;
  }
  /** Event ids of the team in the order the API must list them (the database's collation breaks ties on id). */
  async function expectedOrder(sql: string) {
    const { db } = await import("./support/client");
    return (await db().query(`SELECT id FROM events e WHERE team_id = $1 ORDER BY ${sql}`, [fx.teamId])).rows.map((r: { id: string }) => r.id);
  }

  it("GET /events – the Event shape; every filter, with values, arrays and operators", async () => {
    const { json } = await api(fx, "GET", `${V}/events?id=${evs[1].id}`);
    expect(json.count).toBe(1);
    expect(json.models[0]).toEqual({
      id: evs[1].id,
      team_id: fx.teamId,
      webhook_id: connOf.http.id,
      source_id: source.id,
      destination_id: dest.http.id,
      event_data_id: `edt_${req.A.slice(4)}`,
      request_id: req.A,
      attempts: 5,
      last_attempt_at: T(12),
      next_attempt_at: null,
      response_status: 500,
      error_code: "BAD_RESPONSE",
      status: "FAILED",
      successful_at: null,
      cli_id: null,
      updated_at: expect.any(String),
      created_at: T(2),
    });
    expect(await listEv("")).toEqual(evIds(() => true));
    expect(await listEv(`id[]=${evs[0].id}&id[]=${evs[2].id}`)).toEqual(sorted([evs[0].id, evs[2].id]));
    expect(await listEv("status=SUCCESSFUL")).toEqual(evIds((e) => e.status === "SUCCESSFUL"));
    expect(await listEv("status[0]=QUEUED&status[1]=HOLD&status[2]=SCHEDULED")).toEqual(evIds((e) => ["QUEUED", "HOLD", "SCHEDULED"].includes(e.status)));
    expect(await listEv("status=CANCELLED")).toEqual([evs[8].id]);
    expect(await listEv(`webhook_id=${connOf.mock.id}`)).toEqual(evIds((e) => e.conn === "mock"));
    expect(await listEv(`webhook_id=${connOf.mock.id}&webhook_id=${connOf.cli.id}`)).toEqual(evIds((e) => e.conn === "mock" || e.conn === "cli"));
    expect(await listEv(`source_id=${source.id}`)).toHaveLength(evs.length);
    expect(await listEv("source_id=src_none")).toEqual([]);
    expect(await listEv(`destination_id=${dest.nofwd.id}`)).toEqual(evIds((e) => e.conn === "nofwd"));
    expect(await listEv(`request_id=${req.B}`)).toEqual(evIds((e) => e.req === "B"));
    expect(await listEv(`request_id[]=${req.A}&request_id[]=${req.B}`)).toHaveLength(evs.length);
    expect(await listEv("attempts=1")).toEqual(evIds((e) => e.attempts === 1));
    expect(await listEv("attempts[gte]=2&attempts[lt]=5")).toEqual(evIds((e) => e.attempts >= 2 && e.attempts < 5));
    expect(await listEv("attempts[gt]=3")).toEqual(evIds((e) => e.attempts > 3));
    expect(await listEv("attempts[lte]=0")).toEqual(evIds((e) => e.attempts === 0));
    expect(await listEv("attempts[]=0&attempts[]=5")).toEqual(evIds((e) => e.attempts === 0 || e.attempts === 5));
    expect(await listEv("response_status[gte]=400")).toEqual(evIds((e) => (e.response_status ?? 0) >= 400));
    expect(await listEv("response_status=200")).toEqual(evIds((e) => e.response_status === 200));
    expect(await listEv("response_status[any]=false")).toEqual(evIds((e) => e.response_status === null));
    expect(await listEv("response_status[any]=true&response_status[lt]=500")).toEqual(evIds((e) => e.response_status !== null && e.response_status < 500));
    expect(await listEv("error_code=TIMEOUT")).toEqual([evs[9].id]);
    expect(await listEv("error_code[]=TIMEOUT&error_code[]=CLI_UNAVAILABLE")).toEqual(sorted([evs[9].id, evs[6].id]));
    expect(await listEv("error_code[any]=true")).toEqual(evIds((e) => e.error_code !== null));
    expect(await listEv("cli_id=cls_fx1")).toEqual([evs[5].id]);
    expect(await listEv("cli_id[any]=true")).toEqual([evs[5].id]);
    expect(await listEv("cli_id[any]=false")).toHaveLength(evs.length - 1);
    expect(await listEv(`created_at[gte]=${T(3)}&created_at[lt]=${T(6)}`)).toEqual(evIds((e) => e.created_at >= T(3) && e.created_at < T(6)));
    expect(await listEv(`created_at=${T(4)}`)).toEqual(evIds((e) => e.created_at === T(4)));
    expect(await listEv("created_at[gte]=2026-03-01&created_at[lte]=2026-03-02")).toHaveLength(evs.length);
    expect(await listEv(`last_attempt_at[gt]=${T(16)}`)).toEqual(evIds((e) => e.last_attempt_at !== null && e.last_attempt_at > T(16)));
    expect(await listEv("last_attempt_at[any]=false")).toEqual(evIds((e) => e.last_attempt_at === null));
    expect(await listEv("next_attempt_at[gte]=2090-01-01")).toEqual(evIds((e) => e.next_attempt_at !== null));
    expect(await listEv("next_attempt_at[lt]=2090-01-03")).toEqual([evs[3].id]);
    expect(await listEv(`successful_at[lte]=${T(16)}`)).toEqual(evIds((e) => e.successful_at !== null && e.successful_at <= T(16)));
    expect(await listEv("successful_at[any]=true")).toEqual(evIds((e) => e.status === "SUCCESSFUL"));
    // Filters combine with AND.
    expect(await listEv(`status=FAILED&webhook_id=${connOf.mock.id}&response_status[gte]=400`)).toEqual([evs[9].id]);
  });

  it("GET /events – bad filters, sort keys and cursors are 400 with the gateway body, never 500", async () => {
    for (const q of [
      "status=NOPE",
      "status[]=FAILED&status[]=DONE",
      "attempts=two",
      "attempts=1.5",
      "attempts=99999999999",
      "attempts[between]=1",
      "response_status[contains]=5",
      "created_at=yesterday",
      "created_at=2026-02-30",
      "created_at[gte]=",
      "created_at[]=2026-01-01",
      "last_attempt_at[any]=maybe",
      "id[gte]=evt_a",
      "id=",
      "id=a%00b",
      "webhook_id[foo]=x",
      "order_by=status",
      "order_by[]=created_at",
      "dir=up",
      "limit=251",
      "limit=-1",
      "next=garbage",
      `next=${Buffer.from(JSON.stringify({ o: "created_at", d: "desc", v: "not-a-date", i: "evt_x" })).toString("base64url")}`,
      "next=a&prev=b",
    ]) {
      const res = await api(fx, "GET", `${V}/events?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json, q).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
    }
    const bad = await api(fx, "GET", `${V}/events?attempts[gte]=x`);
    expect(bad.json.data).toMatchObject({ field: "attempts.gte" });
    // A cursor of another order is refused, not misread.
    const first = await api(fx, "GET", `${V}/events?limit=2`);
    expect((await api(fx, "GET", `${V}/events?limit=2&order_by=last_attempt_at&next=${first.json.pagination.next}`)).status).toBe(400);
    expect((await api(fx, "GET", `${V}/events?limit=2&dir=asc&next=${first.json.pagination.next}`)).status).toBe(400);
    // Unknown and malformed ids in paths are 404, not errors.
    for (const path of [
      "/events/evt_nope",
      "/events/evt%00x",
      "/events/evt_nope/raw_body",
      "/attempts/atm%00x",
      "/ignored-events/ign%00x",
      "/requests/req%00x/events",
    ]) {
      const res = await api(fx, "GET", `${V}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toMatchObject({ handled: true, status: 404, code: "NOT_FOUND" });
    }
  });

  it("GET /events – pages of 3 over 4 pages both ways by last_attempt_at asc (nulls first), and by next_attempt_at desc", async () => {
    const pages = await walk(fx, `${V}/events`, "order_by=last_attempt_at&dir=asc&limit=3");
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(pages.flat()).toEqual(await expectedOrder("COALESCE(last_attempt_at, 'epoch') ASC, id ASC"));
    expect(pages.flat().slice(0, 2).sort()).toEqual(evIds((e) => e.last_attempt_at === null));
    const byNext = await walk(fx, `${V}/events`, "order_by=next_attempt_at&dir=desc&limit=4");
    expect(byNext.map((p) => p.length)).toEqual([4, 4, 2]);
    expect(byNext.flat()).toEqual(await expectedOrder("COALESCE(next_attempt_at, 'epoch') DESC, id DESC"));
    expect(byNext.flat().slice(0, 2)).toEqual([evs[2].id, evs[3].id]);
    const byCreated = await walk(fx, `${V}/events`, "limit=3");
    expect(byCreated.flat()).toEqual([...evs].reverse().map((e) => e.id));
    // Paging keeps the filters.
    const filtered = await walk(fx, `${V}/events`, `status=FAILED&order_by=last_attempt_at&limit=1`);
    expect(filtered.flat()).toEqual([evs[9].id, evs[6].id, evs[1].id]);
    const { json } = await api(fx, "GET", `${V}/events?order_by=next_attempt_at&limit=1`);
    expect(json.pagination).toMatchObject({ order_by: "next_attempt_at", dir: "desc", limit: 1 });
  });

  it("GET /events/{id} and ?include=data – url, method, path, query, headers, body per destination type; transformed data; raw_body", async () => {
    const data = async (i: number) => (await api(fx, "GET", `${V}/events/${evs[i].id}`)).json.data;
    expect(await data(0)).toEqual({
      url: "https://fixtures.invalid/base/orders?x=1&y[]=2",
      method: "POST",
      path: "/orders",
      query: "x=1&y[]=2",
      parsed_query: { x: "1", y: ["2"] },
      headers: { "content-type": "application/json", "x-trace": "t1" },
      appended_headers: [...APPENDED_HEADERS],
      body: { order: 1 },
      body_encoding: "json",
      is_large_payload: false,
    });
    expect(await data(3)).toMatchObject({ url: "https://fixtures.invalid/fixed?k=v&x=1&y[]=2", method: "PUT", path: "/orders" });
    expect(await data(4)).toMatchObject({ url: "https://fixtures.invalid/fixed?k=v", method: "PUT", query: null, parsed_query: {} });
    expect(await data(2)).toMatchObject({
      url: "https://fixtures.invalid/base",
      method: "PUT",
      body: Buffer.from([0, 255, 1, 254]).toString("base64"),
      body_encoding: "base64",
    });
    expect(await data(5)).toMatchObject({ url: "/cli-path", method: "POST" });
    expect(await data(7)).toMatchObject({ url: null, method: "POST" });
    const transformed = (await api(fx, "GET", `${V}/events/${evs[8].id}`)).json;
    expect(transformed.event_data_id).toBe(`edt_${evs[8].id.slice(4)}`);
    expect(transformed.data).toMatchObject({
      url: "https://fixtures.invalid/base/t?a=1",
      method: "POST",
      path: "/t",
      query: "a=1",
      parsed_query: { a: "1" },
      headers: { "x-t": "1" },
      body: { t: true },
    });
    expect((await api(fx, "GET", `${V}/events/${evs[8].id}/raw_body`)).json).toEqual({ body: '{"t":true}' });
    expect((await api(fx, "GET", `${V}/events/${evs[0].id}/raw_body`)).json).toEqual({ body: '{"order":1}' });
    expect((await api(fx, "GET", `${V}/events/${evs[2].id}/raw_body`)).json).toEqual({ body: Buffer.from([0, 255, 1, 254]).toString("base64") });
    // Lists: data only with include=data.
    const plain = await api(fx, "GET", `${V}/events?request_id=${req.A}`);
    expect(plain.json.models.every((m: { data?: unknown }) => m.data === undefined)).toBe(true);
    const withData = await api(fx, "GET", `${V}/events?request_id=${req.A}&include=data`);
    expect(withData.json.models.find((m: { id: string }) => m.id === evs[0].id).data).toEqual(await data(0));
    expect((await api(fx, "GET", `${V}/events?include[]=data&id=${evs[8].id}`)).json.models[0].data.path).toBe("/t");
  });

  it("versions – 2024-09-01 (and unversioned paths) give the short data; 2025-01-01 the full one", async () => {
    const SHORT = ["body", "body_encoding", "headers", "is_large_payload", "parsed_query", "path", "query"];
    const old = await api(fx, "GET", `/2024-09-01/events/${evs[0].id}`);
    expect(old.status).toBe(200);
    expect(Object.keys(old.json.data).sort()).toEqual(SHORT);
    expect(old.json.data).toMatchObject({ path: "/orders", body: { order: 1 } });
    const unversioned = await api(fx, "GET", `/events/${evs[0].id}`);
    expect(Object.keys(unversioned.json.data).sort()).toEqual(SHORT);
    const oldList = await api(fx, "GET", `/2024-09-01/events?include=data&id=${evs[3].id}`);
    expect(Object.keys(oldList.json.models[0].data).sort()).toEqual(SHORT);
    const mid = await api(fx, "GET", `/2025-01-01/events/${evs[3].id}`);
    expect(mid.json.data).toMatchObject({ url: "https://fixtures.invalid/fixed?k=v&x=1&y[]=2", method: "PUT", appended_headers: [...APPENDED_HEADERS] });
    // The rest of the event is the same in every version.
    const { data: _o, ...oldRest } = old.json;
    const { data: _n, ...newRest } = (await api(fx, "GET", `${V}/events/${evs[0].id}`)).json;
    expect(oldRest).toEqual(newRest);
  });

  it("GET /requests/{id}/events – event filters and paging; 404 for unknown or another team's request", async () => {
    expect(await listEv("", fx, `${V}/requests/${req.A}/events`)).toEqual(evIds((e) => e.req === "A"));
    expect(await listEv("status=SUCCESSFUL", fx, `${V}/requests/${req.A}/events`)).toEqual(evIds((e) => e.req === "A" && e.status === "SUCCESSFUL"));
    expect(await listEv(`webhook_id=${connOf.nofwd.id}&attempts[lte]=0`, fx, `${V}/requests/${req.B}/events`)).toEqual([evs[4].id]);
    // request_id in the query cannot widen it beyond the request of the path.
    expect(await listEv(`request_id=${req.B}`, fx, `${V}/requests/${req.A}/events`)).toEqual([]);
    expect(await listEv("", fx, `${V}/requests/${req.C}/events`)).toEqual([]);
    const pages = await walk(fx, `${V}/requests/${req.A}/events`, "order_by=last_attempt_at&dir=desc&limit=2");
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    const withData = await api(fx, "GET", `${V}/requests/${req.A}/events?include=data&id=${evs[0].id}`);
    expect(withData.json.models[0].data.url).toBe("https://fixtures.invalid/base/orders?x=1&y[]=2");
    expect((await api(fx, "GET", `${V}/requests/${req.A}/events?status=NOPE`)).status).toBe(400);
    expect((await api(fx, "GET", `${V}/requests/${req.A}/events?next=garbage`)).status).toBe(400);
    for (const [team, id] of [
      [fx, "req_unknown"],
      [fx, foreign.request],
      [fxOther, req.A],
    ] as const) {
      const res = await api(team, "GET", `${V}/requests/${id}/events`);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ handled: true, status: 404, data: { id } });
      expect((await api(team, "GET", `${V}/requests/${id}/ignored_events`)).status).toBe(404);
    }
  });

  it("ignored events – GET /ignored-events filters and paging, GET /ignored-events/{id}, GET /requests/{id}/ignored_events", async () => {
    const ignIds = (pred: (g: (typeof ign)[number]) => boolean) => sorted(ign.filter(pred).map((g) => g.id));
    const list = (q: string, path = `${V}/ignored-events`) => listEv(q, fx, path);
    const one = await api(fx, "GET", `${V}/ignored-events/${ign[1].id}`);
    expect(one.json).toEqual({
      id: ign[1].id,
      team_id: fx.teamId,
      webhook_id: connOf.nofwd.id,
      cause: "TRANSFORMATION_FAILED",
      request_id: req.C,
      meta: { transformation_id: "trs_fixture" },
      created_at: T(31),
      updated_at: T(31),
    });
    expect((await api(fx, "GET", `${V}/ignored-events/${ign[0].id}`)).json.meta).toEqual(["body"]);
    expect(await list("")).toEqual(ignIds(() => true));
    expect(await list(`id=${ign[2].id}`)).toEqual([ign[2].id]);
    expect(await list("cause=FILTERED")).toEqual([ign[0].id]);
    expect(await list("cause[]=FILTERED&cause[]=DEDUPLICATED")).toEqual(ignIds((g) => g.cause !== "TRANSFORMATION_FAILED"));
    expect(await list(`webhook_id=${connOf.http.id}`)).toEqual(ignIds((g) => g.conn === "http"));
    expect(await list(`request_id=${req.C}`)).toEqual(ignIds((g) => g.req === "C"));
    expect(await list("transformation_id=trs_fixture")).toEqual([ign[1].id]);
    expect(await list(`created_at[gt]=${T(30)}`)).toEqual(ignIds((g) => g.created_at > T(30)));
    expect((await api(fx, "GET", `${V}/ignored-events?cause=MAYBE`)).status).toBe(400);
    expect((await api(fx, "GET", `${V}/ignored-events?created_at=soon`)).status).toBe(400);
    expect((await api(fx, "GET", `${V}/ignored-events?order_by=cause`)).status).toBe(400);
    expect((await api(fx, "GET", `${V}/ignored-events?prev=garbage`)).status).toBe(400);
    const pages = await walk(fx, `${V}/ignored-events`, "limit=1&dir=asc");
    expect(pages.flat()).toEqual(ign.map((g) => g.id));
    // A request's ignored events: only its own, with the id filter.
    expect(await list("", `${V}/requests/${req.C}/ignored_events`)).toEqual(ignIds((g) => g.req === "C"));
    expect(await list(`id=${ign[0].id}`, `${V}/requests/${req.C}/ignored_events`)).toEqual([ign[0].id]);
    expect(await list(`id=${ign[2].id}`, `${V}/requests/${req.C}/ignored_events`)).toEqual([]);
    expect(await list("", `${V}/requests/${req.A}/ignored_events`)).toEqual([ign[2].id]);
    expect((await walk(fx, `${V}/requests/${req.C}/ignored_events`, "limit=1")).flat()).toEqual([ign[1].id, ign[0].id]);
  });

  it("attempts – SUCCESFUL spelling in every version, the status filter takes both spellings; rows without body, get with it", async () => {
    const attIds = (pred: (a: (typeof att)[number]) => boolean) => sorted(att.filter(pred).map((a) => a.id));
    const list = (q: string) => listEv(q, fx, `${V}/attempts`);
    const { json } = await api(fx, "GET", `${V}/attempts?id=${att[2].id}`);
    expect(json.models[0]).toEqual({
      id: att[2].id,
      team_id: fx.teamId,
      event_id: evs[0].id,
      destination_id: dest.http.id,
      response_status: 200,
      attempt_number: 1,
      trigger: "INITIAL",
      error_code: null,
      http_method: "POST",
      bulk_retry_id: null,
      status: "SUCCESFUL",
      successful_at: T(22),
      delivered_at: T(22),
      responded_at: T(22),
      delivery_latency: 12,
      response_latency: 10,
      updated_at: T(22),
      created_at: T(22),
    });
    const full = await api(fx, "GET", `${V}/attempts/${att[2].id}`);
    expect(full.json).toEqual({ ...json.models[0], body: { ok: true }, requested_url: "https://fixtures.invalid/base/orders?x=1&y[]=2" });
    expect((await api(fx, "GET", `${V}/attempts/${att[1].id}`)).json).toMatchObject({ body: "plain text", status: "FAILED", trigger: "AUTOMATIC" });
    expect((await api(fx, "GET", `${V}/attempts/${att[0].id}`)).json.body).toEqual({ error: "boom" });
    expect((await api(fx, "GET", `${V}/attempts/${att[3].id}`)).json).toMatchObject({ body: null, requested_url: null });
    for (const version of ["/2024-09-01", "/2025-01-01", V]) {
      const all = await api(fx, "GET", `${version}/attempts`);
      expect(all.json.models.map((a: { status: string }) => a.status).sort()).toEqual(["FAILED", "FAILED", "SUCCESFUL", "SUCCESFUL"]);
      expect(all.json.models.every((a: object) => !("body" in a) && !("requested_url" in a))).toBe(true);
      expect((await api(fx, "GET", `${version}/attempts/${att[3].id}`)).json.status).toBe("SUCCESFUL");
    }
    expect(await list("status=SUCCESFUL")).toEqual(attIds((a) => a.status === "SUCCESSFUL"));
    expect(await list("status=SUCCESSFUL")).toEqual(attIds((a) => a.status === "SUCCESSFUL"));
    expect(await list("status=FAILED")).toEqual(attIds((a) => a.status === "FAILED"));
    expect(await list("status[]=SUCCESFUL&status[]=FAILED")).toHaveLength(4);
    expect(await list(`event_id=${evs[1].id}`)).toEqual(attIds((a) => a.event === 1));
    expect(await list(`event_id[]=${evs[0].id}&event_id[]=${evs[5].id}`)).toEqual(attIds((a) => a.event === 0 || a.event === 5));
    expect(await list(`destination_id=${dest.cli.id}`)).toEqual([att[3].id]);
    expect(await list("trigger=MANUAL")).toEqual([att[3].id]);
    expect(await list("trigger[]=INITIAL&trigger[]=AUTOMATIC")).toEqual(attIds((a) => a.trigger !== "MANUAL"));
    expect(await list(`created_at[gte]=${T(21)}&created_at[lte]=${T(22)}`)).toEqual([att[1].id, att[2].id].sort());
    expect(await list(`id=${att[0].id}`)).toEqual([att[0].id]);
    for (const q of ["status=SUCCESS", "trigger=LATER", "created_at[gte]=x", "order_by=status", "next=garbage"])
      expect((await api(fx, "GET", `${V}/attempts?${q}`)).status, q).toBe(400);
    const pages = await walk(fx, `${V}/attempts`, "limit=1");
    expect(pages.flat()).toEqual([...att].reverse().map((a) => a.id));
    const asc = await walk(fx, `${V}/attempts`, `limit=1&dir=asc&event_id=${evs[1].id}`);
    expect(asc.flat()).toEqual([att[0].id, att[1].id]);
  });

  it("transformation executions – list with filters and paging, get one; another transformation's path is 404", async () => {
    const path = `${V}/transformations/${trs.id}/executions`;
    const excIds = (pred: (x: (typeof exc)[number]) => boolean) => sorted(exc.filter(pred).map((x) => x.id));
    const one = await api(fx, "GET", `${path}/${exc[0].id}`);
    expect(one.json).toEqual({
      id: exc[0].id,
      team_id: fx.teamId,
      transformation_id: trs.id,
      webhook_id: connOf.http.id,
      request_id: req.A,
      event_id: evs[0].id,
      log_level: "info",
      logs: [{ type: "log", message: "run 0" }],
      original_event_data: { headers: {}, body: { order: 1 }, path: "/orders", query: "", parsed_query: {} },
      transformed_event_data: { headers: {}, body: { order: 2 }, path: "/orders", query: "", parsed_query: {} },
      issue_id: null,
      created_at: T(40),
      updated_at: T(40),
    });
    expect((await api(fx, "GET", `${path}/${exc[1].id}`)).json).toMatchObject({ log_level: "fatal", event_id: null, transformed_event_data: null });
    expect(await listEv("", fx, path)).toEqual(excIds(() => true));
    expect(await listEv("log_level=fatal", fx, path)).toEqual([exc[1].id]);
    expect(await listEv("log_level[]=info&log_level[]=debug", fx, path)).toEqual(excIds((x) => x.log_level !== "fatal"));
    expect(await listEv(`webhook_id=${connOf.http.id}`, fx, path)).toEqual(excIds((x) => x.conn === "http"));
    expect(await listEv(`created_at[lt]=${T(42)}`, fx, path)).toEqual(excIds((x) => x.created_at < T(42)));
    expect(await listEv(`id=${exc[2].id}`, fx, path)).toEqual([exc[2].id]);
    expect((await api(fx, "GET", `${path}?log_level=loud`)).status).toBe(400);
    expect((await api(fx, "GET", `${path}?next=garbage`)).status).toBe(400);
    expect((await walk(fx, path, "limit=1")).flat()).toEqual([...exc].reverse().map((x) => x.id));
    // The other team's execution written under this transformation id is not listed (team isolation), nor readable.
    expect((await api(fx, "GET", `${path}/${foreign.execution}`)).status).toBe(404);
    const otherTrs = (await api(fx, "POST", `${V}/transformations`, { name: `fx2-${Date.now()}`, code: 'addHandler("transform", (r) => r)' })).json;
    expect((await api(fx, "GET", `${V}/transformations/${otherTrs.id}/executions/${exc[0].id}`)).status).toBe(404);
    expect((await api(fx, "GET", `${V}/transformations/${otherTrs.id}/executions`)).json.count).toBe(0);
    expect((await api(fx, "GET", `${V}/transformations/trs_unknown/executions`)).status).toBe(404);
  });

  it("requests – events_count (non-CLI), cli_events_count (cli_id or a CLI destination) and ignored_count, on get and list", async () => {
    const counts = (r: { events_count: number; cli_events_count: number; ignored_count: number }) => [r.events_count, r.cli_events_count, r.ignored_count];
    expect(counts((await api(fx, "GET", `${V}/requests/${req.A}`)).json)).toEqual([5, 1, 1]);
    expect(counts((await api(fx, "GET", `${V}/requests/${req.B}`)).json)).toEqual([3, 1, 0]);
    expect(counts((await api(fx, "GET", `${V}/requests/${req.C}`)).json)).toEqual([0, 0, 2]);
    const list = await api(fx, "GET", `${V}/requests?source_id=${source.id}&include=data`);
    const byId = Object.fromEntries(list.json.models.map((r: { id: string }) => [r.id, r]));
    expect(counts(byId[req.A])).toEqual([5, 1, 1]);
    expect(counts(byId[req.B])).toEqual([3, 1, 0]);
    expect(counts(byId[req.C])).toEqual([0, 0, 2]);
    expect(byId[req.A].data).toMatchObject({ body: { order: 1 }, body_encoding: "json", parsed_query: { x: "1", y: ["2"] } });
    expect(byId[req.B].data).toMatchObject({ body_encoding: "base64" });
    expect(byId[req.C].data).toMatchObject({ body: null, body_encoding: null });
  });

  it("team isolation – another team's events, attempts, ignored events and executions are never listed and answer 404", async () => {
    for (const path of [
      `/events/${evs[0].id}`,
      `/events/${evs[0].id}/raw_body`,
      `/attempts/${att[0].id}`,
      `/ignored-events/${ign[0].id}`,
      `/requests/${req.A}/events`,
      `/requests/${req.A}/ignored_events`,
      `/transformations/${trs.id}/executions`,
      `/transformations/${trs.id}/executions/${exc[0].id}`,
    ]) {
      const res = await api(fxOther, "GET", `${V}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toMatchObject({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND" });
    }
    for (const path of [
      `/events/${foreign.event}`,
      `/attempts/${foreign.attempt}`,
      `/ignored-events/${foreign.ignored}`,
      `/transformations/${foreign.transformation}/executions`,
    ]) {
      expect((await api(fx, "GET", `${V}${path}`)).status, path).toBe(404);
    }
    // Lists show only the caller's rows, whatever the filters name.
    expect(await listEv(`id[]=${foreign.event}&id[]=${evs[0].id}`)).toEqual([evs[0].id]);
    expect(await listEv(`id=${evs[0].id}`, fxOther)).toEqual([]);
    expect(await listEv("", fxOther)).toEqual([foreign.event]);
    expect(await listEv(`request_id=${req.A}`, fxOther)).toEqual([]);
    expect(await listEv(`event_id=${evs[0].id}`, fx, `${V}/attempts`)).toEqual([att[2].id]);
    expect(await listEv(`event_id=${evs[0].id}`, fxOther, `${V}/attempts`)).toEqual([foreign.attempt]);
    expect(await listEv(`id[]=${foreign.ignored}&id[]=${ign[0].id}`, fx, `${V}/ignored-events`)).toEqual([ign[0].id]);
    expect(await listEv(`request_id=${foreign.request}`, fx, `${V}/ignored-events`)).toEqual([]);
    expect(await listEv("", fxOther, `${V}/ignored-events`)).toEqual([foreign.ignored]);
    expect(await listEv("", fx, `${V}/transformations/${trs.id}/executions`)).not.toContain(foreign.execution);
    expect((await api(fxOther, "GET", `${V}/requests/${req.A}`)).status).toBe(404);
  });

  it("OpenAPI – the operations, their filters from the zod tables, the Request body_encoding and the run output", async () => {
    const { BASE_URL } = await import("./support/client");
    const d = await (await fetch(`${BASE_URL}/api/2025-07-01/openapi`)).json();
    const params = (path: string, method = "get") =>
      d.paths[path][method].parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name);
    expect(params("/events")).toEqual(
      expect.arrayContaining([
        "id",
        "status",
        "webhook_id",
        "source_id",
        "destination_id",
        "request_id",
        "attempts",
        "response_status",
        "error_code",
        "cli_id",
        "created_at",
        "last_attempt_at",
        "next_attempt_at",
        "successful_at",
        "include",
        "order_by",
        "dir",
        "limit",
        "next",
        "prev",
      ]),
    );
    expect(new Set(params("/events")).size).toBe(params("/events").length);
    expect(params("/requests/{id}/events")).toEqual(params("/events"));
    expect(params("/requests/{id}/ignored_events")).toEqual(["id", "order_by", "dir", "limit", "next", "prev"]);
    expect(params("/ignored-events")).toEqual(expect.arrayContaining(["id", "cause", "webhook_id", "request_id", "created_at"]));
    expect(params("/attempts")).toEqual(expect.arrayContaining(["id", "event_id", "destination_id", "status", "trigger", "created_at"]));
    expect(params("/transformations/{id}/executions")).toEqual(expect.arrayContaining(["log_level", "webhook_id", "created_at"]));
    const orderBy = d.paths["/events"].get.parameters.find((p: { name: string }) => p.name === "order_by");
    expect(orderBy.schema.enum).toEqual(["created_at", "last_attempt_at", "next_attempt_at"]);
    const status = d.paths["/attempts"].get.parameters.find((p: { name: string }) => p.name === "status");
    expect(status.schema.anyOf[0].enum).toEqual(["SUCCESFUL", "SUCCESSFUL", "FAILED"]);
    expect(d.components.schemas.EventAttempt.properties.status.enum).toEqual(["SUCCESFUL", "FAILED"]);
    for (const path of ["/events/{id}", "/events/{id}/raw_body", "/ignored-events/{id}", "/attempts/{id}", "/transformations/{id}/executions/{execution_id}"])
      expect(d.paths[path].get.responses["404"], path).toBeDefined();
    expect(d.paths["/events"].get.responses["200"].content["application/json"].schema.properties.models.items).toEqual({ $ref: "#/components/schemas/Event" });
    expect(d.components.schemas.Event.properties.data.properties.url).toBeDefined();
    expect(d.components.schemas.Request.properties.data.properties.body_encoding).toBeDefined();
    expect(d.paths["/transformations/run"].put.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/TransformationRunOutput",
    });
    expect(JSON.stringify(d)).not.toContain("__shared");
  });
});
