/**
 * Bulk operations through the gateway API against the running server and the real pipeline
 * (docs/gateway-api.md#bulk-operations): each family's five operations and its 422s, the record's fields per version,
 * the fixed matched set, BULK_RETRY attempts, `bulk_retry_id` filters, replay onto a connection made
 * after the requests arrived, cancel after completion, and team isolation. The crash and the
 * cancel-while-running cases need a server of their own: e2e/gateway-bulk-crash.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsIn, ignoredIn, send, type TestConnection } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
let team: TestTeam;
let other: TestTeam;
let receiver: Receiver;
let failing: TestConnection & { tag: string };
const failedRequests: string[] = [];
const q = (query: unknown) => encodeURIComponent(JSON.stringify(query));
/** One operation of each family, for the team isolation checks. */
const opsByFamily: Record<string, string> = {};

/** Polls operation `id` of `family` until it completed; returns the record. */
async function completed(family: string, id: string, who: TestTeam = team) {
  return eventually(async () => {
    const { json } = await api(who, "GET", `${V}/bulk/${family}/${id}`);
    return json.completed_at ? json : null;
  }, 30_000);
}

beforeAll(async () => {
  team = await newTeam("bulk");
  other = await newTeam("bulk-other");
  receiver = await startReceiver();
  // Fails every delivery once (no retry rule): 6 FAILED events.
  receiver.respond((req) => ({ status: req.url.includes("/down") ? 500 : 200, body: "x" }));
  failing = await connectionTo(team, receiver, { destination: { config: { url: `${receiver.url}/down` } } });
  for (let i = 0; i < 6; i++) failedRequests.push((await send(failing.source.url, { i })).requestId);
  for (const id of failedRequests) await eventsIn(id, ["FAILED"]);
}, 60_000);
afterAll(async () => receiver.close());

describe("events retry", () => {
  let opId = "";
  it("plans, creates, processes with BULK_RETRY attempts, and completes", async () => {
    const query = { status: "FAILED", webhook_id: failing.id };
    const plan = await api(team, "GET", `${V}/bulk/events/retry/plan?query=${q(query)}`);
    expect(plan.status).toBe(200);
    expect(plan.json).toEqual({ estimated_count: 6, estimated_batch: 1, progress: 0 });
    // The bracket form of the plan's query is the same filter.
    expect((await api(team, "GET", `${V}/bulk/events/retry/plan?query[status]=FAILED&query[webhook_id]=${failing.id}`)).json.estimated_count).toBe(6);

    // The destination is back: the retried events succeed.
    await api(team, "PUT", `${V}/destinations/${failing.destination.id}`, { config: { url: `${receiver.url}/up` } });
    const created = await api(team, "POST", `${V}/bulk/events/retry`, { query });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const op = created.json;
    opId = op.id;
    expect(op.id).toMatch(/^bch_[0-9A-Za-z]{22}$/);
    expect(Object.keys(op).sort()).toEqual(
      [
        "cancelled_at",
        "completed_at",
        "completed_count",
        "created_at",
        "estimated_batch",
        "estimated_count",
        "failed_count",
        "id",
        "in_progress",
        "number",
        "processed_batch",
        "progress",
        "query",
        "team_id",
        "type",
        "updated_at",
      ].sort(),
    );
    expect(op).toMatchObject({ team_id: team.teamId, type: "events.retry", query, estimated_count: 6, estimated_batch: 1, number: 1, cancelled_at: null });
    // The state table's "(none) → POST create" row: in progress, nothing processed yet, failed_count null.
    expect(op).toMatchObject({ in_progress: true, completed_at: null, progress: 0, processed_batch: 0, completed_count: 0, failed_count: null });
    opsByFamily["events/retry"] = op.id;

    const done = await completed("events/retry", op.id);
    expect(done).toMatchObject({ in_progress: false, progress: 1, processed_batch: 1, completed_count: 6, failed_count: 0, cancelled_at: null });
    const events = await eventually(async () => {
      const { json } = await api(team, "GET", `${V}/events?bulk_retry_id=${op.id}&status=SUCCESSFUL`);
      return json.count === 6 ? json.models : null;
    });
    for (const e of events) {
      const { rows } = await db().query("SELECT trigger, status, bulk_retry_id FROM attempts WHERE event_id = $1 ORDER BY attempt_number", [e.id]);
      expect(rows).toEqual([
        { trigger: "INITIAL", status: "FAILED", bulk_retry_id: null },
        { trigger: "BULK_RETRY", status: "SUCCESSFUL", bulk_retry_id: op.id },
      ]);
    }
    const attempts = await api(team, "GET", `${V}/attempts?event_id=${events[0].id}`);
    expect(attempts.json.models.find((a: { trigger: string }) => a.trigger === "BULK_RETRY").bulk_retry_id).toBe(op.id);
  }, 60_000);

  it("lists with the spec's filters and paging; numbers count up per team", async () => {
    const second = await api(team, "POST", `${V}/bulk/events/retry`, { query: { webhook_id: failing.id, attempts: { gte: 2 } } });
    expect(second.json.number).toBe(2);
    await completed("events/retry", second.json.id);
    const list = await api(team, "GET", `${V}/bulk/events/retry`);
    expect(list.status).toBe(200);
    expect(list.json.pagination).toMatchObject({ order_by: "created_at", dir: "desc", limit: 100 });
    expect(list.json.models.map((m: { id: string }) => m.id)).toEqual([second.json.id, opId]);
    expect(list.json.count).toBe(2);
    expect(
      (await api(team, "GET", `${V}/bulk/events/retry?query=${q({ status: "FAILED", webhook_id: failing.id })}`)).json.models.map((m: { id: string }) => m.id),
    ).toEqual([opId]);
    expect((await api(team, "GET", `${V}/bulk/events/retry?query=${q({ status: "FAILED" })}`)).json.count).toBe(0);
    expect(
      (await api(team, "GET", `${V}/bulk/events/retry?query=${q({ status: "FAILED" })}&query_partial_match=true`)).json.models.map((m: { id: string }) => m.id),
    ).toEqual([opId]);
    // The bracket form of `query` (how SDKs send objects) holds text: 2 matches the stored number 2.
    const ids = async (qs: string) => (await api(team, "GET", `${V}/bulk/events/retry?${qs}`)).json.models.map((m: { id: string }) => m.id);
    expect(await ids(`query[webhook_id]=${failing.id}&query[attempts][gte]=2`)).toEqual([second.json.id]);
    expect(await ids(`query[attempts][gte]=2&query_partial_match=true`)).toEqual([second.json.id]);
    expect(await ids(`query[attempts][gte]=3&query_partial_match=true`)).toEqual([]);
    expect(await ids(`query[attempts][gte]=2`)).toEqual([]);
    expect(await ids(`query[status]=FAILED&query[webhook_id]=${failing.id}`)).toEqual([opId]);
    expect(await ids(`query[webhook_id]=${failing.id}&query_partial_match=true`)).toEqual([second.json.id, opId]);
    expect((await api(team, "GET", `${V}/bulk/events/retry?in_progress=true`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/bulk/events/retry?id=${opId}`)).json.count).toBe(1);
    const page = await api(team, "GET", `${V}/bulk/events/retry?limit=1`);
    expect(page.json.models[0].id).toBe(second.json.id);
    expect((await api(team, "GET", `${V}/bulk/events/retry?limit=1&next=${page.json.pagination.next}`)).json.models[0].id).toBe(opId);
    expect((await api(team, "GET", `${V}/bulk/events/retry?next=garbage`)).status).toBe(400);
    // dir=asc, the prev cursor, id as an array, the date operators.
    const asc = await api(team, "GET", `${V}/bulk/events/retry?dir=asc&limit=1`);
    expect(asc.json.pagination).toMatchObject({ order_by: "created_at", dir: "asc", limit: 1 });
    expect(asc.json.models[0].id).toBe(opId);
    const second2 = await api(team, "GET", `${V}/bulk/events/retry?dir=asc&limit=1&next=${asc.json.pagination.next}`);
    expect(second2.json.models.map((m: { id: string }) => m.id)).toEqual([second.json.id]);
    expect(
      (await api(team, "GET", `${V}/bulk/events/retry?dir=asc&limit=1&prev=${second2.json.pagination.prev}`)).json.models.map((m: { id: string }) => m.id),
    ).toEqual([opId]);
    expect((await api(team, "GET", `${V}/bulk/events/retry?id[]=${opId}&id[]=${second.json.id}`)).json.count).toBe(2);
    const created = (await api(team, "GET", `${V}/bulk/events/retry/${second.json.id}`)).json.created_at;
    expect((await api(team, "GET", `${V}/bulk/events/retry?created_at[gte]=${created}`)).json.models.map((m: { id: string }) => m.id)).toEqual([
      second.json.id,
    ]);
    expect((await api(team, "GET", `${V}/bulk/events/retry?created_at[lt]=${created}`)).json.models.map((m: { id: string }) => m.id)).toEqual([opId]);
    expect((await api(team, "GET", `${V}/bulk/events/retry?completed_at[any]=true`)).json.count).toBe(2);
    expect((await api(team, "GET", `${V}/bulk/events/retry?completed_at[lte]=2000-01-01`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/bulk/events/retry?cancelled_at[any]=true`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/bulk/events/retry?in_progress=false`)).json.count).toBe(2);
    // Bad list parameters are 400s naming the parameter.
    for (const bad of [
      "created_at[gte]=yesterday",
      "in_progress=maybe",
      "limit=251",
      "dir=up",
      "order_by=number",
      "cancelled_at[near]=1",
      "query=%7Bnope",
      "query=%5B1%5D",
      "query_partial_match=perhaps",
    ]) {
      const r = await api(team, "GET", `${V}/bulk/events/retry?${bad}`);
      expect(r.status, `${bad}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json).toMatchObject({ handled: true, status: 400 });
    }
    // Other families list only their own operations.
    expect((await api(team, "GET", `${V}/bulk/requests/retry`)).json.count).toBe(0);
  }, 60_000);

  it("sweeps in no record that arrived after creation", async () => {
    const before = await api(team, "POST", `${V}/bulk/events/retry`, { query: { webhook_id: failing.id } });
    const late = (await send(failing.source.url, { late: true })).requestId;
    const [lateEvent] = await eventsIn(late, ["SUCCESSFUL"]);
    const done = await completed("events/retry", before.json.id);
    expect(done.completed_count).toBe(6);
    expect((await db().query("SELECT bulk_retry_id FROM events WHERE id = $1", [lateEvent.id])).rows[0].bulk_retry_id).toBeNull();
  }, 60_000);

  it("cancelling a completed operation sets cancelled_at and keeps completed_at", async () => {
    const cancelled = await api(team, "POST", `${V}/bulk/events/retry/${opId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.cancelled_at).not.toBeNull();
    expect(cancelled.json.completed_at).not.toBeNull();
    expect(cancelled.json.in_progress).toBe(false);
    expect(cancelled.json.progress).toBe(1);
    const again = await api(team, "POST", `${V}/bulk/events/retry/${opId}/cancel`);
    expect(again.json.cancelled_at).toBe(cancelled.json.cancelled_at);
  });

  it("older versions have no `type`; events cancel exists from 2025-07-01; metrics only in 2025-07-01", async () => {
    for (const version of ["2024-09-01", "2025-01-01"]) {
      const old = await api(team, "GET", `/${version}/bulk/events/retry/${opId}`);
      expect(old.status).toBe(200);
      expect("type" in old.json).toBe(false);
      const list = await api(team, "GET", `/${version}/bulk/events/retry`);
      expect(list.status).toBe(200);
      expect(list.json.models.every((m: object) => !("type" in m))).toBe(true);
      const made = await api(team, "POST", `/${version}/bulk/events/retry`, { query: { webhook_id: "web_nothing" } });
      expect(made.status).toBe(200);
      expect("type" in made.json).toBe(false);
      for (const [method, path] of [
        ["GET", "bulk/events/cancel"],
        ["POST", "bulk/events/cancel"],
        ["GET", "bulk/events/cancel/plan"],
        ["GET", `bulk/events/cancel/${opId}`],
        ["POST", `bulk/events/cancel/${opId}/cancel`],
      ]) {
        const r = await api(team, method, `/${version}/${path}`, method === "POST" ? { query: { webhook_id: failing.id } } : undefined);
        expect(r.status, `${version} ${method} ${path}`).toBe(404);
        expect(r.json).toMatchObject({ handled: true, status: 404 });
      }
      const range = `date_range[start]=${new Date(Date.now() - 3_600_000).toISOString()}&date_range[end]=${new Date().toISOString()}&measures[]=count`;
      for (const m of ["requests", "events", "attempts", "events-by-issue", "queue-depth", "transformations", "events-pending-timeseries"]) {
        expect((await api(team, "GET", `/${version}/metrics/${m}?${range}`)).status, `${version} metrics/${m}`).toBe(404);
      }
    }
    expect((await api(team, "GET", `${V}/bulk/events/retry/${opId}`)).json.type).toBe("events.retry");
  });

  it("an empty query is a 400: a bulk operation never acts on everything by accident", async () => {
    for (const family of ["events/retry", "events/cancel", "ignored-events/retry", "requests/retry", "requests/replay"]) {
      const { status, json } = await api(team, "POST", `${V}/bulk/${family}`, { query: {} });
      expect(status, family).toBe(400);
      expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST", message: "Empty query object is not allowed", data: { query: {} } });
    }
  });

  it("a query that matches nothing still makes an events retry, completed at once", async () => {
    const { status, json } = await api(team, "POST", `${V}/bulk/events/retry`, { query: { webhook_id: "web_nothing" } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ estimated_count: 0, in_progress: false, progress: 1, completed_count: 0, failed_count: 0 });
    expect(json.completed_at).not.toBeNull();
  });
});

describe("invalid queries are 422s naming the field", () => {
  it.each([
    ["unknown filter", { nope: 1 }, "query.nope"],
    ["bad enum value", { status: "NOPE" }, "query.status"],
    ["bad operator", { attempts: { most: 2 } }, "query.attempts"],
    ["bad date", { created_at: { gte: "yesterday" } }, "query.created_at.gte"],
    ["nested too deep", { id: [[["x"]]] }, "query.id.0.0"],
  ])("%s", async (_name, query, field) => {
    const { status, json } = await api(team, "POST", `${V}/bulk/events/retry`, { query });
    expect(status, JSON.stringify(json)).toBe(422);
    expect(json).toMatchObject({ handled: true, status: 422, code: "UNPROCESSABLE_ENTITY" });
    expect(json.data.field).toBe(field);
    expect(typeof json.data.message).toBe("string");
    // The plan checks the same way.
    expect((await api(team, "GET", `${V}/bulk/events/retry/plan?query=${q(query)}`)).status).toBe(422);
  });

  it("a missing or non-object query, invalid JSON, and unknown body fields", async () => {
    expect((await api(team, "POST", `${V}/bulk/events/retry`, {})).status).toBe(422);
    expect((await api(team, "POST", `${V}/bulk/events/retry`, { query: [] })).status).toBe(422);
    expect((await api(team, "POST", `${V}/bulk/events/retry`, { query: {}, extra: 1 })).status).toBe(422);
    expect((await api(team, "POST", `${V}/bulk/events/retry`, "{not json")).status).toBe(400);
    expect((await api(team, "GET", `${V}/bulk/events/retry/plan?query=%7Bnope`)).status).toBe(400);
  });

  it.each([["events/cancel"], ["ignored-events/retry"], ["requests/retry"]])(
    "%s: matching nothing is a 422 UNPROCESSABLE_ENTITY with data.message",
    async (family) => {
      const query =
        family === "requests/retry"
          ? { source_id: ["src_nothing"] }
          : family === "ignored-events/retry"
            ? { webhook_id: "web_nothing" }
            : { webhook_id: "web_nothing" };
      const { status, json } = await api(team, "POST", `${V}/bulk/${family}`, { query });
      expect(status).toBe(422);
      expect(json.code).toBe("UNPROCESSABLE_ENTITY");
      expect(json.data.message).toMatch(/matches no records/);
      expect((await api(team, "GET", `${V}/bulk/${family}`)).json.count).toBe(0);
    },
  );

  it("unknown families, operations and ids are 404s", async () => {
    expect((await api(team, "GET", `${V}/bulk/events/replay`)).status).toBe(404);
    expect((await api(team, "GET", `${V}/bulk/events/retry/bch_unknown`)).status).toBe(404);
    expect((await api(team, "POST", `${V}/bulk/events/retry/bch_unknown/cancel`)).status).toBe(404);
    expect((await api(team, "DELETE", `${V}/bulk/events/retry`)).status).toBe(405);
  });
});

describe("events cancel", () => {
  it("cancels the pending deliveries of matching events and keeps delivered ones", async () => {
    const delayed = await connectionTo(team, receiver, { rules: [{ type: "delay", delay: 600_000 }] });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await send(delayed.source.url, { i })).requestId);
    for (const id of ids) await eventsIn(id, ["SCHEDULED"]);
    const plan = await api(team, "GET", `${V}/bulk/events/cancel/plan?query=${q({ webhook_id: delayed.id })}`);
    expect(plan.json).toEqual({ estimated_count: 3, estimated_batch: 1 });
    const { status, json } = await api(team, "POST", `${V}/bulk/events/cancel`, { query: { webhook_id: delayed.id } });
    expect(status).toBe(200);
    expect(json.type).toBe("events.cancel");
    opsByFamily["events/cancel"] = json.id;
    const done = await completed("events/cancel", json.id);
    expect(done.completed_count).toBe(3);
    const { rows } = await db().query("SELECT status, error_code FROM events WHERE webhook_id = $1", [delayed.id]);
    expect(rows).toEqual([0, 1, 2].map(() => ({ status: "CANCELLED", error_code: "CANCELLED" })));
  }, 60_000);
});

describe("ignored events retry", () => {
  it("runs ignored requests through their connection again with today's rules", async () => {
    const filtered = await connectionTo(team, receiver, { rules: [{ type: "filter", body: { keep: true } }] });
    const requestId = (await send(filtered.source.url, { keep: false, n: 1 })).requestId;
    await ignoredIn(requestId);
    const query = { cause: "FILTERED", webhook_id: filtered.id };
    expect((await api(team, "GET", `${V}/bulk/ignored-events/retry/plan?query=${q(query)}`)).json).toEqual({ estimated_count: 1, estimated_batch: 1 });
    await api(team, "PUT", `${V}/connections/${filtered.id}`, { rules: [] });
    const { status, json } = await api(team, "POST", `${V}/bulk/ignored-events/retry`, { query });
    expect(status, JSON.stringify(json)).toBe(200);
    expect("type" in json).toBe(false);
    opsByFamily["ignored-events/retry"] = json.id;
    const done = await completed("ignored-events/retry", json.id);
    expect(done).toMatchObject({ completed_count: 1, failed_count: 0 });
    const [event] = await eventsIn(requestId, ["SUCCESSFUL"]);
    expect(event.webhook_id).toBe(filtered.id);
    expect(event.bulk_retry_id).toBe(json.id);
  }, 60_000);
});

describe("ignored events retry after fixing a transformation", () => {
  it("cause TRANSFORMATION_FAILED and transformation_id select them; the fixed code makes the events", async () => {
    const broken = await connectionTo(team, receiver, {
      rules: [{ type: "transform", transformation: { name: `fix-me-${Date.now()}`, code: 'addHandler("transform", () => { throw new Error("bug") })' } }],
    });
    const transformationId = (await api(team, "GET", `${V}/connections/${broken.id}`)).json.rules[0].transformation_id;
    expect(transformationId).toMatch(/^trs_/);
    const requestIds = [(await send(broken.source.url, { k: 1 })).requestId, (await send(broken.source.url, { k: 2 })).requestId];
    for (const id of requestIds) expect((await ignoredIn(id))[0].cause).toBe("TRANSFORMATION_FAILED");
    const query = { cause: "TRANSFORMATION_FAILED", transformation_id: transformationId };
    expect((await api(team, "GET", `${V}/bulk/ignored-events/retry/plan?query=${q(query)}`)).json).toEqual({ estimated_count: 2, estimated_batch: 1 });
    expect((await api(team, "GET", `${V}/bulk/ignored-events/retry/plan?query=${q({ ...query, transformation_id: "trs_other" })}`)).json.estimated_count).toBe(
      0,
    );
    const fixed = await api(team, "PUT", `${V}/transformations/${transformationId}`, {
      code: 'addHandler("transform", (request) => { request.body.fixed = true; return request; })',
    });
    expect(fixed.status, JSON.stringify(fixed.json)).toBe(200);
    const { status, json } = await api(team, "POST", `${V}/bulk/ignored-events/retry`, { query });
    expect(status, JSON.stringify(json)).toBe(200);
    const done = await completed("ignored-events/retry", json.id);
    expect(done).toMatchObject({ completed_count: 2, failed_count: 0 });
    for (const id of requestIds) {
      const [event] = await eventsIn(id, ["SUCCESSFUL"]);
      expect(event.bulk_retry_id).toBe(json.id);
    }
    const bodies = receiver.received.filter((r) => r.url.startsWith(`/${broken.tag}`)).map((r) => JSON.parse(r.body.toString()));
    expect(bodies.sort((a, b) => a.k - b.k)).toEqual([
      { k: 1, fixed: true },
      { k: 2, fixed: true },
    ]);
  }, 60_000);
});

describe("requests retry and replay", () => {
  let source: TestConnection & { tag: string };
  const requestIds: string[] = [];
  beforeAll(async () => {
    source = await connectionTo(team, receiver);
    for (let i = 0; i < 3; i++) requestIds.push((await send(source.source.url, { r: i })).requestId);
    for (const id of requestIds) await eventsIn(id, ["SUCCESSFUL"]);
  }, 60_000);

  it("requests retry fans each request out again on the source's current connections", async () => {
    const query = { source_id: [source.source.id] };
    expect((await api(team, "GET", `${V}/bulk/requests/retry/plan?query=${q(query)}`)).json).toEqual({ estimated_count: 3, estimated_batch: 1 });
    const { status, json } = await api(team, "POST", `${V}/bulk/requests/retry`, { query });
    expect(status).toBe(200);
    expect(json.type).toBe("requests.retry");
    opsByFamily["requests/retry"] = json.id;
    const done = await completed("requests/retry", json.id);
    expect(done.completed_count).toBe(3);
    for (const id of requestIds) await eventsIn(id, ["SUCCESSFUL"], 2);
    expect((await api(team, "GET", `${V}/requests?bulk_retry_id=${json.id}`)).json.count).toBe(3);
    expect((await api(team, "GET", `${V}/events?bulk_retry_id=${json.id}`)).json.count).toBe(3);
  }, 60_000);

  it("replays history onto a connection created after the requests arrived", async () => {
    const fresh = await connectionTo(team, receiver);
    const query = { source_id: [source.source.id], target: { source_id: fresh.source.id, webhook_ids: [fresh.id] } };
    // The plan ignores the target.
    expect((await api(team, "GET", `${V}/bulk/requests/replay/plan?query=${q({ source_id: [source.source.id] })}`)).json).toEqual({
      estimated_count: 3,
      estimated_batch: 1,
    });
    const { status, json } = await api(team, "POST", `${V}/bulk/requests/replay`, { query });
    expect(status, JSON.stringify(json)).toBe(200);
    expect("type" in json).toBe(false);
    expect(json.query).toEqual(query);
    opsByFamily["requests/replay"] = json.id;
    const done = await completed("requests/replay", json.id);
    expect(done).toMatchObject({ completed_count: 3, failed_count: 0 });
    const events = await eventually(async () => {
      const { json: page } = await api(team, "GET", `${V}/events?webhook_id=${fresh.id}&status=SUCCESSFUL`);
      return page.count === 3 ? page.models : null;
    });
    expect(events.map((e: { request_id: string }) => e.request_id).sort()).toEqual([...requestIds].sort());
    expect(events.every((e: { source_id: string }) => e.source_id === fresh.source.id)).toBe(true);
    const bodies = receiver.received.filter((r) => r.url.startsWith(`/${fresh.tag}`)).map((r) => JSON.parse(r.body.toString()).r);
    expect(bodies.sort()).toEqual([0, 1, 2]);
    // The replayed requests carry the operation's id.
    expect((await api(team, "GET", `${V}/requests?bulk_retry_id=${json.id}`)).json.count).toBe(3);
  }, 60_000);

  it("a target with source_id alone replays onto every active connection of that source, resolved while it runs", async () => {
    const target = await connectionTo(team, receiver);
    const second = await api(team, "POST", `${V}/connections`, {
      name: `second-${target.tag}`,
      source_id: target.source.id,
      destination: { name: `dst2-${target.tag}`, config: { url: `${receiver.url}/${target.tag}-2` } },
    });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    const off = await api(team, "POST", `${V}/connections`, {
      name: `off-${target.tag}`,
      source_id: target.source.id,
      destination: { name: `dst3-${target.tag}`, config: { url: `${receiver.url}/${target.tag}-off` } },
    });
    await api(team, "PUT", `${V}/connections/${off.json.id}/disable`);
    const { status, json } = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { id: requestIds, target: { source_id: target.source.id } } });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.query.target).toEqual({ source_id: target.source.id });
    await completed("requests/replay", json.id);
    for (const conn of [target.id, second.json.id]) {
      await eventually(async () => (await api(team, "GET", `${V}/events?webhook_id=${conn}&status=SUCCESSFUL`)).json.count === 3);
    }
    expect((await api(team, "GET", `${V}/events?webhook_id=${off.json.id}`)).json.count).toBe(0);
  }, 60_000);

  it("a missing, foreign or disabled target is a 422 with data.id", async () => {
    const otherConn = await connectionTo(other, receiver);
    const missing = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { target: { source_id: source.source.id, webhook_ids: ["web_missing"] } } });
    expect(missing.status).toBe(422);
    expect(missing.json.data.id).toBe("web_missing");
    const foreign = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { target: { source_id: otherConn.source.id } } });
    expect(foreign.status).toBe(422);
    expect(foreign.json.data.id).toBe(otherConn.source.id);
    const disabled = await connectionTo(team, receiver);
    await api(team, "PUT", `${V}/connections/${disabled.id}/disable`);
    const off = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { target: { source_id: disabled.source.id, webhook_ids: [disabled.id] } } });
    expect(off.status).toBe(422);
    expect(off.json.data.id).toBe(disabled.id);
    // An active connection of the team, but of another source than the target's.
    const another = await connectionTo(team, receiver);
    const elsewhere = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { target: { source_id: source.source.id, webhook_ids: [another.id] } } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json).toMatchObject({ code: "UNPROCESSABLE_ENTITY", data: { id: another.id } });
    const foreignConn = await api(team, "POST", `${V}/bulk/requests/replay`, {
      query: { target: { source_id: source.source.id, webhook_ids: [otherConn.id] } },
    });
    expect(foreignConn.status).toBe(422);
    expect(foreignConn.json.data.id).toBe(otherConn.id);
    for (const [target, field] of [
      ["src_x", "query.target"],
      [{ source_id: 5 }, "query.target.source_id"],
      [{ source_id: source.source.id, webhook_ids: "web_x" }, "query.target.webhook_ids"],
      [{ source_id: source.source.id, extra: 1 }, "query.target.extra"],
    ] as const) {
      const bad = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { target } });
      expect(bad.status, JSON.stringify(target)).toBe(422);
      expect(bad.json.data.field).toBe(field);
    }
    // `target` belongs to replays only.
    const retryTarget = await api(team, "POST", `${V}/bulk/requests/retry`, {
      query: { source_id: [source.source.id], target: { source_id: source.source.id } },
    });
    expect(retryTarget.status).toBe(422);
    expect(retryTarget.json.data.field).toBe("query.target");
    const noTarget = await api(team, "POST", `${V}/bulk/requests/replay`, { query: { source_id: [source.source.id] } });
    expect(noTarget.status).toBe(422);
    expect(noTarget.json.data.field).toBe("query.target");
  }, 60_000);
});

describe("team isolation", () => {
  it.each([["events/retry"], ["events/cancel"], ["ignored-events/retry"], ["requests/retry"], ["requests/replay"]])(
    "%s: another team gets 404 for this team's operation",
    async (family) => {
      const id = opsByFamily[family];
      expect(id, `an operation of ${family} was made above`).toMatch(/^bch_/);
      const before = await api(team, "GET", `${V}/bulk/${family}/${id}`);
      expect(before.status).toBe(200);
      for (const [method, path] of [
        ["GET", `${id}`],
        ["POST", `${id}/cancel`],
      ]) {
        const r = await api(other, method, `${V}/bulk/${family}/${path}`);
        expect(r.status).toBe(404);
        expect(r.json).toMatchObject({ handled: true, status: 404 });
      }
      expect((await api(other, "GET", `${V}/bulk/${family}?id=${id}`)).json.count).toBe(0);
      // The operation of one family is not found under another.
      const elsewhere = family === "events/retry" ? "requests/retry" : "events/retry";
      expect((await api(team, "GET", `${V}/bulk/${elsewhere}/${id}`)).status).toBe(404);
      // The other team's cancel changed nothing.
      expect((await api(team, "GET", `${V}/bulk/${family}/${id}`)).json).toEqual(before.json);
      // This team's cancel of its completed operation: cancelled_at set, completed_at kept (every family).
      const cancelled = await api(team, "POST", `${V}/bulk/${family}/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json).toMatchObject({ id, in_progress: false, progress: 1, completed_at: before.json.completed_at });
      expect(cancelled.json.cancelled_at ?? "").not.toBe("");
    },
  );

  it("another team neither sees, cancels nor sweeps in this team's records", async () => {
    const { json: list } = await api(team, "GET", `${V}/bulk/events/retry?limit=1`);
    const id = list.models[0].id;
    expect((await api(other, "GET", `${V}/bulk/events/retry/${id}`)).status).toBe(404);
    expect((await api(other, "POST", `${V}/bulk/events/retry/${id}/cancel`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/bulk/events/retry`)).json.count).toBe(0);
    // The same query in the other team matches none of this team's events.
    expect((await api(other, "GET", `${V}/bulk/events/retry/plan?query=${q({ webhook_id: failing.id })}`)).json.estimated_count).toBe(0);
    const made = await api(other, "POST", `${V}/bulk/events/retry`, { query: { webhook_id: failing.id } });
    expect(made.json).toMatchObject({ number: 1, estimated_count: 0 });
  });
});
