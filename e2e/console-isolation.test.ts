/**
 * Isolation of the console (docs/console-api.md#who-may-read-and-change-a-test-url): console routes serve
 * guest-workspace test URLs only, and a gateway team's source answers every one of them exactly as an
 * unknown id does (404, no data, existence not revealed); every state-changing console route (retry)
 * needs the session cookie of the workspace that owns the test URL: without it, or with another
 * workspace's, it is refused and nothing is delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "@/lib/gateway/connections/connection-store";
import { createId, publicSourceId } from "@/lib/ids";
import { BASE_URL, db, newTestUrl, uniqueIp } from "./support/client";
import { newTeam } from "./support/gateway";
import { connectionTo, eventsIn, eventsOf, receivedBy, send } from "./support/pipeline";
import { type Receiver, startReceiver } from "./support/receiver";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond({ status: 200, body: "destination-says-TOPSECRET-RESPONSE" });
});
afterAll(async () => receiver.close());

/** How long a refused retry is given to (wrongly) reach the destination before we look. */
const SETTLE_MS = 2_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Answer = { status: number; contentType: string | null; text: string };
/** `method path` on the console with optional headers; the body is read in full (or cut at 2 s for a stream). */
async function call(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const controller = new AbortController();
  const res = await fetch(`${BASE_URL}${path}`, { method, headers: { "x-forwarded-for": uniqueIp(), ...headers }, signal: controller.signal });
  let text = "";
  if (method !== "HEAD") {
    const timer = setTimeout(() => controller.abort(), 2_000);
    try {
      text = await res.text();
    } catch {
      /* a stream that never ends (what /live would be if it served the source): keep what arrived */
    } finally {
      clearTimeout(timer);
    }
  }
  return { status: res.status, contentType: res.headers.get("content-type"), text };
}

/** A public source id that no source has (22 base62 characters). */
const unknownPublicId = () => publicSourceId(createId("source"));

describe("a gateway team's source through the console", () => {
  let teamSourceId: string;
  let requestId: string;
  let tag: string;
  const SECRET = `signed-payload-${Date.now()}`;

  beforeAll(async () => {
    const team = await newTeam("isolation team");
    const c = await connectionTo(team, receiver);
    tag = c.tag;
    teamSourceId = new URL(c.source.url).pathname.split("/").pop()!;
    const sent = await send(c.source.url, { secret: SECRET }, { headers: { "x-signature": `sig-${SECRET}` } });
    expect(sent.status).toBe(200);
    requestId = sent.requestId;
    await eventsIn(requestId, ["SUCCESSFUL"]);
    expect(receivedBy(receiver, tag)).toHaveLength(1);
  });

  const routes = () =>
    [
      ["GET /{id} (JSON preview)", "GET", `/${teamSourceId}`, { accept: "application/json" }],
      ["HEAD /{id} (JSON preview)", "HEAD", `/${teamSourceId}`, { accept: "application/json" }],
      ["GET /{id} (HTML page)", "GET", `/${teamSourceId}`, { accept: "text/html" }],
      ["GET /{id} (page, no Accept)", "GET", `/${teamSourceId}`, {}],
      ["GET /{id}/live", "GET", `/${teamSourceId}/live`, { accept: "text/event-stream" }],
      ["GET /{id}/requests/{req}/raw", "GET", `/${teamSourceId}/requests/${requestId}/raw`, {}],
      ["GET /{id}/requests/{req}/events", "GET", `/${teamSourceId}/requests/${requestId}/events`, { accept: "application/json" }],
    ] as const;

  it("every console read answers 404 with no data, exactly as for an unknown id", async () => {
    const unknown = unknownPublicId();
    for (const [name, method, path, headers] of routes()) {
      const answer = await call(method, path, headers);
      const asUnknown = await call(method, path.replace(teamSourceId, unknown), headers);
      expect(answer.status, name).toBe(404);
      expect(answer.contentType, name).toBe(asUnknown.contentType);
      // Pages carry a fresh CSP nonce each (docs/security-headers.md): the only part that may differ.
      const same = (text: string, id: string) => {
        const nonce = /nonce="([^"]+)"/.exec(text)?.[1];
        return (nonce ? text.replaceAll(nonce, "NONCE") : text).replaceAll(id, "ID");
      };
      expect(same(answer.text, teamSourceId), name).toBe(same(asUnknown.text, unknown));
      for (const leak of [SECRET, requestId, "TOPSECRET", tag]) expect(answer.text, `${name} leaks ${leak}`).not.toContain(leak);
    }
  });

  it("a retry is refused without a cookie and with a guest workspace's cookie (404, as an unknown id), and delivers nothing", async () => {
    const guest = await newTestUrl({}, { ip: uniqueIp() });
    for (const cookie of [undefined, guest.cookie!]) {
      const answer = await call("POST", `/${teamSourceId}/requests/${requestId}/retry`, { accept: "application/json", ...(cookie ? { cookie } : {}) });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.text)).toEqual({ code: "NOT_FOUND", status: 404, data: [`No test URL with id "${teamSourceId}"`] });
    }
    await sleep(SETTLE_MS);
    expect(await eventsOf(requestId)).toHaveLength(1);
    expect(receivedBy(receiver, tag)).toHaveLength(1);
  });
});

describe("retry of a test URL needs its workspace's session cookie", () => {
  /** A test URL (its creator's cookie) with a connection to the receiver, and one request delivered. */
  async function deliveredTestUrl() {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const { rows } = await db().query("SELECT id, team_id FROM sources WHERE id = $1", [`src_${t.id}`]);
    const tag = `iso-${t.id}`;
    await createConnection(
      rows[0].team_id,
      { name: "local", source_id: rows[0].id, destination: { name: tag, config: { url: `${receiver.url}/${tag}` } } },
      "2025-07-01",
    );
    // The ingestion cache keeps a source (and its connections) for a second.
    await sleep(1_100);
    const sent = await send(t.ingest_url, { hello: "owner" });
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    expect(receivedBy(receiver, tag)).toHaveLength(1);
    return { ...t, tag, requestId: sent.requestId };
  }

  const retry = (id: string, requestId: string, cookie?: string) =>
    call("POST", `/${id}/requests/${requestId}/retry`, { accept: "application/json", ...(cookie ? { cookie } : {}) });

  it("without a cookie, with an unknown cookie or with another workspace's cookie: 403 FORBIDDEN and nothing is delivered", async () => {
    const t = await deliveredTestUrl();
    const other = await newTestUrl({}, { ip: uniqueIp() });
    expect(other.cookie).toBeTruthy();
    expect(other.cookie).not.toBe(t.cookie);
    for (const cookie of [undefined, other.cookie!, "hookyard_session=this-token-was-never-issued-by-hookyard-000000"]) {
      const answer = await retry(t.id, t.requestId, cookie);
      expect(answer.status, String(cookie)).toBe(403);
      const body = JSON.parse(answer.text);
      expect(body).toMatchObject({ code: "FORBIDDEN", status: 403 });
      expect(body.data).toEqual([expect.stringContaining("hookyard_session")]);
    }
    await sleep(SETTLE_MS);
    expect(await eventsOf(t.requestId)).toHaveLength(1);
    expect(receivedBy(receiver, t.tag)).toHaveLength(1);
  });

  it("with the cookie of the workspace that created it: 200 and delivered again (a second test URL of the same workspace too)", async () => {
    const t = await deliveredTestUrl();
    const answer = await retry(t.id, t.requestId, t.cookie);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body.request_id).toBe(t.requestId);
    expect(body.event_ids).toHaveLength(1);
    await eventsIn(t.requestId, ["SUCCESSFUL"], 2);
    await expect.poll(() => receivedBy(receiver, t.tag).length, { timeout: 15_000 }).toBe(2);

    // The same cookie owns every test URL of its workspace, and only those: a request of another
    // workspace's test URL is still 403 with it.
    const sibling = await newTestUrl({}, { ip: uniqueIp(), cookie: t.cookie });
    const { requestId } = await send(sibling.ingest_url, "x");
    expect((await retry(sibling.id, requestId, t.cookie)).status).toBe(200);
    const stranger = await deliveredTestUrl();
    expect((await retry(stranger.id, stranger.requestId, t.cookie)).status).toBe(403);
  });

  it("a retry with the owner's cookie on a request of another test URL or an unknown request is 404", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const other = await newTestUrl({}, { ip: uniqueIp() });
    const { requestId } = await send(other.ingest_url, "x");
    const answer = await retry(t.id, requestId, t.cookie);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).code).toBe("NOT_FOUND");
    expect((await retry(t.id, "req_unknown", t.cookie)).status).toBe(404);
  });
});
