/**
 * Connection rules in the pipeline (docs/pipeline.md#connection-rules): filter with the
 * simple-json-match syntax, transform in the sandbox, deduplicate, delay, their order by rules_version,
 * pause/unpause, and NO_CONNECTION / disabled connections.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createId } from "@/lib/ids";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { attemptsOf, connectionTo, eventsIn, eventsOf, ignoredIn, ignoredOf, receivedBy, requestRow, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

let team: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  team = await newTeam("rules");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("filter rule", () => {
  it("delivers matching requests and records FILTERED ignored events naming the failed parts", async () => {
    const c = await connectionTo(team, receiver, {
      rules: [{ type: "filter", body: { type: { $startsWith: "order." }, amount: { $gte: 10 } }, headers: { "x-shop": "alpha" } }],
    });
    const pass = await send(`${c.source.url}/x`, { type: "order.created", amount: 12 }, { headers: { "x-shop": "alpha" } });
    const failBody = await send(c.source.url, { type: "user.created", amount: 12 }, { headers: { "x-shop": "alpha" } });
    const failBoth = await send(c.source.url, { type: "order.created", amount: 1 }, { headers: { "x-shop": "beta" } });
    await eventsIn(pass.requestId, ["SUCCESSFUL"]);
    const [ignored] = await ignoredIn(failBody.requestId);
    expect(ignored).toMatchObject({ cause: "FILTERED", webhook_id: c.id, meta: ["body"] });
    expect((await ignoredIn(failBoth.requestId))[0].meta).toEqual(["body", "headers"]);
    expect(await eventsOf(failBody.requestId)).toEqual([]);
    expect(receivedBy(receiver, c.tag)).toHaveLength(1);
  });

  it("filters on query and path", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "filter", query: { mode: "live" }, path: { $startsWith: "/orders" } }] });
    const ok = await send(`${c.source.url}/orders/1?mode=live`);
    const badQuery = await send(`${c.source.url}/orders/1?mode=test`);
    const badPath = await send(`${c.source.url}/users/1?mode=live`);
    await eventsIn(ok.requestId, ["SUCCESSFUL"]);
    expect((await ignoredIn(badQuery.requestId))[0].meta).toEqual(["query"]);
    expect((await ignoredIn(badPath.requestId))[0].meta).toEqual(["path"]);
  });
});

describe("transform rule", () => {
  it("changes body, headers and path before delivery, with env, and logs the execution", async () => {
    const code = `addHandler("transform", (request, context) => {
      console.log("seen", request.body.n);
      request.body = { wrapped: request.body, by: process.env.WHO, connection: context.connection.name };
      request.headers["x-transformed"] = "yes";
      request.path = "/rewritten";
      return request;
    });`;
    const c = await connectionTo(team, receiver, {
      rules: [{ type: "transform", transformation: { name: `t-${Date.now()}`, code, env: { WHO: "hookyard" } } }],
    });
    const sent = await send(`${c.source.url}/orig`, { n: 7 });
    const [event] = await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    expect(got.url).toBe(`/${c.tag}/rewritten`);
    expect(JSON.parse(got.body.toString())).toEqual({ wrapped: { n: 7 }, by: "hookyard", connection: c.name });
    expect(got.headers["x-transformed"]).toBe("yes");
    expect(event.data).toMatchObject({ path: "/rewritten" });
    const { rows } = await db().query("SELECT * FROM transformation_executions WHERE request_id = $1", [sent.requestId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ webhook_id: c.id, event_id: event.id, log_level: "info" });
    expect(rows[0].logs).toEqual([{ type: "log", message: "seen 7" }]);
  });

  it("a throw or a falsy result ignores the event with TRANSFORMATION_FAILED and its transformation_id", async () => {
    const throwing = await connectionTo(team, receiver, {
      rules: [{ type: "transform", transformation: { name: `throw-${Date.now()}`, code: `addHandler("transform", () => { throw new Error("nope") })` } }],
    });
    const falsy = await connectionTo(team, receiver, {
      rules: [{ type: "transform", transformation: { name: `falsy-${Date.now()}`, code: `addHandler("transform", () => null)` } }],
    });
    const a = await send(throwing.source.url, { a: 1 });
    const b = await send(falsy.source.url, { a: 1 });
    const [ia] = await ignoredIn(a.requestId);
    const [ib] = await ignoredIn(b.requestId);
    expect(ia.cause).toBe("TRANSFORMATION_FAILED");
    expect(ia.meta.transformation_id).toMatch(/^trs_/);
    expect(ib.cause).toBe("TRANSFORMATION_FAILED");
    const { rows } = await db().query("SELECT log_level, logs FROM transformation_executions WHERE request_id = $1", [a.requestId]);
    expect(rows[0].log_level).toBe("fatal");
    expect(JSON.stringify(rows[0].logs)).toContain("nope");
    expect(receivedBy(receiver, throwing.tag)).toHaveLength(0);
  });

  it("runs transformations and filters in array order from 2025-07-01, transformations first for older rules", async () => {
    const code = `addHandler("transform", (r) => { r.body.stage = "transformed"; return r; })`;
    const rules = (name: string) => [
      { type: "filter", body: { stage: "raw" } },
      { type: "transform", transformation: { name, code } },
    ];
    const newer = await connectionTo(team, receiver, { rules: rules(`order-new-${Date.now()}`) });
    const older = await connectionTo(team, receiver, { rules: [] });
    const put = await api(team, "PUT", `/2024-09-01/connections/${older.id}`, { rules: rules(`order-old-${Date.now()}`) });
    expect(put.status).toBe(200);
    const a = await send(newer.source.url, { stage: "raw" });
    const b = await send(older.source.url, { stage: "raw" });
    await eventsIn(a.requestId, ["SUCCESSFUL"]);
    expect((await ignoredIn(b.requestId))[0].cause).toBe("FILTERED");
  });
});

describe("deduplicate rule", () => {
  it("delivers only the first occurrence within the window, comparing include_fields", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "deduplicate", window: 60, include_fields: ["body.id"] }] });
    const first = await send(c.source.url, { id: "a", t: 1 });
    const dup = await send(c.source.url, { id: "a", t: 2 });
    const other = await send(c.source.url, { id: "b", t: 3 });
    await eventsIn(first.requestId, ["SUCCESSFUL"]);
    await eventsIn(other.requestId, ["SUCCESSFUL"]);
    expect((await ignoredIn(dup.requestId))[0].cause).toBe("DEDUPLICATED");
    expect(await eventsOf(dup.requestId)).toEqual([]);
  });

  it("the earlier of two equal requests is the one delivered, whichever worker fans out which (two servers' workers share the work)", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "deduplicate", window: 60, include_fields: ["body.id"] }] });
    // Pairs sent back to back, each pair's second right after the first is accepted: the workers of both
    // test servers wake for each and may claim one each.
    const pairs = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const first = await send(c.source.url, { id: `pair-${i}`, n: 1 });
        const second = await send(c.source.url, { id: `pair-${i}`, n: 2 });
        return { first: first.requestId, second: second.requestId };
      }),
    );
    for (const p of pairs) {
      expect(p.first < p.second, "request ids follow arrival").toBe(true);
      await eventsIn(p.first, ["SUCCESSFUL"]);
      expect((await ignoredIn(p.second))[0].cause).toBe("DEDUPLICATED");
    }
  });

  it("an earlier request whose fan-out was rolled back (a deadlock, a lost connection) is still the one delivered", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "deduplicate", window: 60, include_fields: ["body.id"] }] });
    const holder = await db().connect();
    try {
      // The earlier request, pending and held as a worker's fan-out holds it. A test server's worker that
      // drains it between the insert and the lock fans it out; then the next try takes a new body.
      let earlier = "";
      let body = "";
      for (let attempt = 0, locked = 0; locked === 0; attempt++) {
        await holder.query("ROLLBACK").catch(() => {});
        earlier = createId("request");
        body = JSON.stringify({ id: `held-${c.tag}-${attempt}`, n: 1 });
        await db().query(
          `WITH r AS (INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at)
                      VALUES ($1, $2, $3, true, now(), now(), now()))
           INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size, content_type)
           VALUES ($1, 'POST', '/', '', '{"content-type": "application/json"}', $4, $5, 'application/json')`,
          [earlier, team.teamId, c.source.id, Buffer.from(body), Buffer.byteLength(body)],
        );
        await db().query("INSERT INTO request_fanouts (request_id, created_at) VALUES ($1, now())", [earlier]);
        await holder.query("BEGIN");
        locked = (await holder.query("SELECT 1 FROM request_fanouts WHERE request_id = $1 FOR UPDATE", [earlier])).rowCount ?? 0;
      }
      const later = await send(c.source.url, { ...JSON.parse(body), n: 2 });
      expect(later.requestId > earlier, "request ids follow arrival").toBe(true);
      // A worker claims the later request and waits for the earlier one's fan-out to end.
      const { rows } = await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await eventually(async () => {
        const { rows: waiting } = await db().query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [rows[0].pid]);
        return waiting.length > 0 || null;
      }, 10_000);
      // That fan-out ends without committing: the earlier request is pending again, and is the first.
      await holder.query("ROLLBACK");
      await eventsIn(earlier, ["SUCCESSFUL"]);
      expect((await ignoredIn(later.requestId))[0].cause).toBe("DEDUPLICATED");
      expect(receivedBy(receiver, c.tag).map((r) => JSON.parse(r.body.toString()).n)).toEqual([1]);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      holder.release();
    }
  });

  it("compares every field by default, minus exclude_fields", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "deduplicate", window: 60, exclude_fields: ["headers", "body.sent_at"] }] });
    const first = await send(c.source.url, { id: 1, sent_at: 1 });
    const dup = await send(c.source.url, { id: 1, sent_at: 2 }, { headers: { "x-noise": "1" } });
    const differs = await send(c.source.url, { id: 2, sent_at: 1 });
    await eventsIn(first.requestId, ["SUCCESSFUL"]);
    await eventsIn(differs.requestId, ["SUCCESSFUL"]);
    expect((await ignoredIn(dup.requestId))[0].cause).toBe("DEDUPLICATED");
  });

  it("delivers again once the window has passed", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "deduplicate", window: 1 }] });
    const first = await send(c.source.url, { same: true });
    await eventsIn(first.requestId, ["SUCCESSFUL"]);
    await sleep(1100);
    const again = await send(c.source.url, { same: true });
    await eventsIn(again.requestId, ["SUCCESSFUL"]);
  });
});

describe("delay rule", () => {
  it("keeps the event SCHEDULED until the delay has passed", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "delay", delay: 1500 }] });
    const sentAt = Date.now();
    const sent = await send(c.source.url);
    const [scheduled] = await eventsIn(sent.requestId, ["SCHEDULED"]);
    expect(new Date(scheduled.next_attempt_at).getTime()).toBeGreaterThanOrEqual(sentAt + 1400);
    await eventsIn(sent.requestId, ["SUCCESSFUL"], 1, 10_000);
    expect(receivedBy(receiver, c.tag)[0].at - sentAt).toBeGreaterThanOrEqual(1400);
  });
});

describe("pause and connections", () => {
  it("a paused connection holds events, delivered on unpause with trigger UNPAUSE", async () => {
    const c = await connectionTo(team, receiver);
    expect((await api(team, "PUT", `/2025-07-01/connections/${c.id}/pause`)).status).toBe(200);
    const sent = await send(c.source.url);
    const [held] = await eventsIn(sent.requestId, ["HOLD"]);
    await sleep(500);
    expect(receivedBy(receiver, c.tag)).toHaveLength(0);
    expect((await api(team, "PUT", `/2025-07-01/connections/${c.id}/unpause`)).status).toBe(200);
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const [attempt] = await attemptsOf(held.id);
    expect(attempt.trigger).toBe("UNPAUSE");
  });

  it("a source without active connections rejects with NO_CONNECTION; a disabled connection among others is an ignored DISABLED", async () => {
    const c = await connectionTo(team, receiver);
    expect((await api(team, "PUT", `/2025-07-01/connections/${c.id}/disable`)).status).toBe(200);
    const lonely = await send(c.source.url);
    expect(lonely.status).toBe(200);
    expect((await requestRow(lonely.requestId)).rejection_cause).toBe("NO_CONNECTION");
    const second = await api(team, "POST", "/2025-07-01/connections", {
      name: "second",
      source_id: c.source.id,
      destination: { name: `dst2-${c.tag}`, config: { url: `${receiver.url}/${c.tag}-2` } },
    });
    expect(second.status).toBe(200);
    const both = await send(c.source.url);
    expect((await requestRow(both.requestId)).rejection_cause).toBeNull();
    await eventsIn(both.requestId, ["SUCCESSFUL"]);
    expect((await ignoredIn(both.requestId))[0]).toMatchObject({ cause: "DISABLED", webhook_id: c.id });
    expect(await ignoredOf(lonely.requestId)).toEqual([]);
  });

  it("fans one request out to every active connection of its source", async () => {
    const c = await connectionTo(team, receiver);
    await api(team, "POST", "/2025-07-01/connections", {
      name: "fan-2",
      source_id: c.source.id,
      destination: { name: `fan2-${c.tag}`, config: { url: `${receiver.url}/${c.tag}-b` } },
    });
    await api(team, "POST", "/2025-07-01/connections", { name: "fan-3", source_id: c.source.id, destination: { name: `fan3-${c.tag}`, type: "MOCK_API" } });
    const sent = await send(c.source.url, { fan: "out" });
    const events = await eventsIn(sent.requestId, ["SUCCESSFUL"], 3);
    expect(new Set(events.map((e) => e.webhook_id)).size).toBe(3);
    await eventually(() => receiver.received.some((r) => r.url === `/${c.tag}-b`));
  });
});
