/**
 * The console's view of deliveries (docs/console-api.md#endpoints: in the
 * console inspect view each captured request shows its events and attempts, and can be retried there): `GET /{id}/requests/{req}/events`
 * and `POST /{id}/requests/{req}/retry`, reached with the test URL's id (a retry also with its workspace's session cookie).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "@/lib/gateway/connections/connection-store";
import { BASE_URL, db, newTestUrl, uniqueIp } from "./support/client";
import { eventsIn } from "./support/pipeline";
import { type Receiver, startReceiver } from "./support/receiver";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

async function testUrlWithConnection() {
  const t = await newTestUrl({}, { ip: uniqueIp() });
  const { rows } = await db().query("SELECT id, team_id, name FROM sources WHERE id = $1", [`src_${t.id}`]);
  const source = rows[0];
  await createConnection(
    source.team_id,
    { name: "local", source_id: source.id, destination: { name: `local-${t.id}`, config: { url: `${receiver.url}/${t.id}` } } },
    "2025-07-01",
  );
  return { ...t, teamId: source.team_id as string };
}

const get = (path: string) => fetch(`${BASE_URL}${path}`, { headers: { accept: "application/json" } });
/** POST with the session cookie of the test URL's workspace (a retry needs it: docs/console-api.md#workspaces-and-the-session-cookie). */
const post = (path: string, cookie: string | undefined) =>
  fetch(`${BASE_URL}${path}`, { method: "POST", headers: { accept: "application/json", "x-forwarded-for": uniqueIp(), ...(cookie ? { cookie } : {}) } });

describe("console deliveries", () => {
  it("lists a request's events with their attempts", async () => {
    const t = await testUrlWithConnection();
    receiver.respond((r) =>
      r.url.startsWith(`/${t.id}`) && receiver.received.filter((x) => x.url.startsWith(`/${t.id}`)).length === 1
        ? { status: 500, body: "first fails" }
        : { status: 200, body: "ok" },
    );
    const sent = await fetch(t.ingest_url, { method: "POST", body: '{"hello":1}', headers: { "content-type": "application/json" } });
    const { request_id } = await sent.json();
    await eventsIn(request_id, ["FAILED"]);
    const res = await get(`/${t.id}/requests/${request_id}/events`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.request_id).toBe(request_id);
    expect(body.rejection_cause).toBeNull();
    expect(body.events).toHaveLength(1);
    expect(body.events[0]).toMatchObject({ status: "FAILED", connection: { name: "local" }, destination: { type: "HTTP" }, response_status: 500 });
    expect(body.events[0].attempts).toEqual([
      expect.objectContaining({ attempt_number: 1, trigger: "INITIAL", status: "FAILED", response_status: 500, body: "first fails" }),
    ]);

    const retried = await post(`/${t.id}/requests/${request_id}/retry`, t.cookie);
    expect(retried.status).toBe(200);
    const { event_ids } = await retried.json();
    expect(event_ids).toHaveLength(1);
    await eventsIn(request_id, ["FAILED", "SUCCESSFUL"], 2);
    const after = await (await get(`/${t.id}/requests/${request_id}/events`)).json();
    expect(after.events.map((e: { status: string }) => e.status).sort()).toEqual(["FAILED", "SUCCESSFUL"]);
    receiver.respond({ status: 200, body: "ok" });
  });

  it("shows NO_CONNECTION and no events for a test URL nothing listens to; a retry creates none", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const { request_id } = await (await fetch(t.ingest_url, { method: "POST", body: "x" })).json();
    const body = await (await get(`/${t.id}/requests/${request_id}/events`)).json();
    expect(body).toEqual({ request_id, rejection_cause: "NO_CONNECTION", events: [], ignored_events: [] });
    const retried = await (await post(`/${t.id}/requests/${request_id}/retry`, t.cookie)).json();
    expect(retried).toEqual({ request_id, event_ids: [] });
  });

  it("answers 404 for a request of another test URL or an unknown one", async () => {
    const a = await newTestUrl({}, { ip: uniqueIp() });
    const b = await newTestUrl({}, { ip: uniqueIp() });
    const { request_id } = await (await fetch(a.ingest_url, { method: "POST", body: "x" })).json();
    for (const path of [`/${b.id}/requests/${request_id}/events`, `/${a.id}/requests/req_unknown/events`]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
    expect((await post(`/${b.id}/requests/${request_id}/retry`, b.cookie)).status).toBe(404);
  });
});
