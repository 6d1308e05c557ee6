/**
 * Poison requests (docs/pipeline.md#poison-requests-one-record-never-stops-the-others): a request carrying text PostgreSQL cannot store as
 * such (U+0000, a lone surrogate) or a structure it cannot hold, sent to a source whose connections
 * have transform, filter, deduplicate rules or none, must never stop the fan-out of anyone else's
 * requests; each of its (request, connection) pairs ends as an event or an ignored event, and what is
 * stored keeps the data (docs/pipeline.md "Text PostgreSQL cannot store"). On the delivery side, an
 * event whose answer or destination cannot be recorded or used ends with an attempt saying why and
 * does not hold up the others.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { attemptsOf, connectionTo, eventsIn, eventsOf, ignoredOf, receivedBy, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

let teamA: TestTeam;
let teamB: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  teamA = await newTeam("poison A");
  teamB = await newTeam("poison B");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

/** Sends raw bytes (a string is sent as its UTF-8 bytes) to `url`; returns the request id. */
async function sendRaw(url: string, body: string | Buffer, contentType: string): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body: typeof body === "string" ? body : new Uint8Array(body) });
  const json = (await res.json()) as { request_id: string };
  expect(res.status).toBe(200);
  return json.request_id;
}

/** Sends `head` (request line and headers, latin1 bytes as given) and a small JSON body over a raw socket; returns the status and the request id if any. */
function sendSocket(url: string, requestLine: (path: string) => string, headers: string): Promise<{ status: number; requestId: string | null }> {
  const u = new URL(url);
  const body = '{"raw":true}';
  const head = `${requestLine(u.pathname)}\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${headers}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)])));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), requestId: /"request_id":"(req_[^"]+)"/.exec(text)?.[1] ?? null });
    });
  });
}

/** Every (request, connection) pair has ended: one event or one ignored event each. */
function settled(requestId: string, connections: number) {
  return eventually(async () => {
    const [events, ignored] = [await eventsOf(requestId), await ignoredOf(requestId)];
    return events.length + ignored.length >= connections ? { events, ignored } : null;
  }, 30_000);
}

const KEEP = `addHandler("transform", (request) => { request.headers["x-seen"] = "yes"; return request; })`;
// Puts the poison in every part of the output too: header value, path, query and a string body.
const POISONING = `addHandler("transform", (request) => {
  request.headers["x-nul"] = "a\\u0000b";
  request.path = "/p\\u0000q";
  request.query = "q=\\ud800";
  request.body = "text\\u0000with nul and \\udc00 lone";
  console.log("log \\u0000 line \\ud800");
  return request;
})`;

describe("poison requests", () => {
  it("never stall the pipeline: the other connections and teams get their events, and every poison request is recorded", async () => {
    const transform = await connectionTo(teamA, receiver, { rules: [{ type: "transform", transformation: { name: `keep-${Date.now()}`, code: KEEP } }] });
    const src = transform.source;
    const more = async (rules: unknown[]) => {
      const res = await api(teamA, "POST", "/2025-07-01/connections", {
        name: `c${Math.random().toString(36).slice(2, 10)}`,
        source_id: src.id,
        destination_id: transform.destination.id,
        rules,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json as { id: string };
    };
    const poisoning = await more([{ type: "transform", transformation: { name: `poisoning-${Date.now()}`, code: POISONING } }]);
    const filter = await more([{ type: "filter", body: { a: { $exist: true } } }]);
    const dedup = await more([{ type: "deduplicate", window: 60 }]);
    const plain = await more([]);
    const connectionCount = 5;

    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    const poison: [string, string | Buffer, string][] = [
      ["", '{"a":"\\u0000"}', "application/json"],
      ["", '{"a":"\\ud800","b":"x\\udfff"}', "application/json"],
      ["", '{"\\u0000key":["\\u0000",{"n":"\\ud83d"}]}', "application/json"],
      ["?a=%00&b=%ED%A0%80", "{}", "application/json"],
      ["/path%00here", "text with a \u0000 byte", "text/plain"],
      // Not UTF-8, in an accepted content type (application/octet-stream is refused at ingestion).
      ["", Buffer.from([0x61, 0x00, 0xed, 0xa0, 0x80, 0xff]), "text/plain"],
      ["", "a=%00&b=%ED%A0%80&c=ok", "application/x-www-form-urlencoded"],
      ["", deep, "application/json"],
    ];
    const poisonIds: string[] = [];
    for (const [suffix, body, type] of poison) poisonIds.push(await sendRaw(`${src.url}${suffix}`, body, type));
    // At the door: U+0000 cannot travel in a header or a request line, nor a raw byte over 0x7f in a
    // path (Node's parser answers 400 before anything is written); such bytes in header values are
    // kept (as latin1 characters) and fanned out.
    expect((await sendSocket(src.url, (p) => `POST ${p} HTTP/1.1`, "X-Nul: a\u0000b\r\n")).status).toBe(400);
    expect((await sendSocket(src.url, (p) => `POST ${p}/a\u0000b HTTP/1.1`, "")).status).toBe(400);
    expect((await sendSocket(src.url, (p) => `POST ${p}/caf\u00e9 HTTP/1.1`, "")).status).toBe(400);
    const latin = await sendSocket(src.url, (p) => `POST ${p} HTTP/1.1`, "X-Latin: caf\u00e9 \u00ff\r\n");
    expect(latin.status).toBe(200);
    poisonIds.push(latin.requestId!);
    const { rows: latinRaw } = await db().query("SELECT headers FROM request_raw_data WHERE request_id = $1", [latin.requestId]);
    expect(latinRaw[0].headers["x-latin"]).toBe("caf\u00e9 \u00ff");

    // A's other connection, and team B (with a transform rule, and without), sent after the poison.
    const other = await connectionTo(teamA, receiver);
    const bTransform = await connectionTo(teamB, receiver, { rules: [{ type: "transform", transformation: { name: `b-${Date.now()}`, code: KEEP } }] });
    const bPlain = await connectionTo(teamB, receiver);
    const okA = await send(other.source.url, { team: "A" });
    const okB1 = await send(bTransform.source.url, { team: "B" });
    const okB2 = await send(bPlain.source.url, { team: "B", plain: true });
    await eventsIn(okB1.requestId, ["SUCCESSFUL"], 1, 30_000);
    await eventsIn(okB2.requestId, ["SUCCESSFUL"], 1, 30_000);
    await eventsIn(okA.requestId, ["SUCCESSFUL"], 1, 30_000);
    expect(receivedBy(receiver, bTransform.tag)[0].headers["x-seen"]).toBe("yes");

    // Every poison request ends on all five connections: no pair is left behind or failed twice.
    for (const [i, id] of poisonIds.entries()) {
      const { events, ignored } = await settled(id, connectionCount);
      expect(events.length + ignored.length, `request ${i}`).toBe(connectionCount);
      const byConnection = new Set([...events, ...ignored].map((r) => r.webhook_id));
      expect(byConnection.size, `request ${i}`).toBe(connectionCount);
    }

    // The first request: the event of the plain connection delivers the exact bytes received; the
    // transform connection's event delivers them too (the escape survives as JSON text).
    const [first] = poisonIds;
    const events = await eventsIn(first, ["SUCCESSFUL"], connectionCount, 30_000);
    expect(events.map((e) => e.webhook_id).sort()).toEqual([transform.id, poisoning.id, filter.id, dedup.id, plain.id].sort());
    const plainEvent = events.find((e) => e.webhook_id === plain.id)!;
    const plainGot = receiver.received.find((r) => r.headers["x-gateway-event-id"] === plainEvent.id)!;
    expect(plainGot.body.toString()).toBe('{"a":"\\u0000"}');
    const keepEvent = events.find((e) => e.webhook_id === transform.id)!;
    const keepGot = receiver.received.find((r) => r.headers["x-gateway-event-id"] === keepEvent.id)!;
    expect(JSON.parse(keepGot.body.toString())).toEqual({ a: "\u0000" });
    expect(keepGot.headers["x-seen"]).toBe("yes");

    // The transformation that writes NUL and lone surrogates into every part: its event is stored
    // (escaped header, path and query; the body byte-exact) and delivered, its log kept escaped.
    const poisoned = events.find((e) => e.webhook_id === poisoning.id)!;
    expect(poisoned.data.headers["x-nul"]).toBe("a\\u0000b");
    expect(poisoned.data.path).toBe("/p\\u0000q");
    expect(poisoned.data.query).toBe("q=\\ud800");
    const poisonedGot = receiver.received.find((r) => r.headers["x-gateway-event-id"] === poisoned.id)!;
    expect(poisonedGot.headers["x-nul"]).toBe("a\\u0000b");
    expect(poisonedGot.body).toEqual(Buffer.from("text\u0000with nul and \uFFFD lone", "utf8"));
    const { rows: executions } = await db().query("SELECT * FROM transformation_executions WHERE request_id = $1 ORDER BY webhook_id", [first]);
    expect(executions).toHaveLength(2);
    const poisonedRun = executions.find((x) => x.webhook_id === poisoning.id)!;
    expect(poisonedRun.original_data.body).toEqual({ a: "\\u0000" });
    // (The sandbox cuts console output at U+0000; what reaches the log is stored.)
    expect(poisonedRun.logs).toHaveLength(1);
    expect(poisonedRun.logs[0].message).toMatch(/^log /);
    // The API shows the event's body as the transformation left it.
    const shown = await api(teamA, "GET", `/2025-07-01/events/${poisoned.id}`);
    expect(shown.status).toBe(200);
    expect(shown.json.data.body).toBe("text\u0000with nul and \uFFFD lone");

    // Lone surrogates in parsed JSON are stored as their escapes too.
    const { rows: surrogateRuns } = await db().query("SELECT original_data FROM transformation_executions WHERE request_id = $1 AND webhook_id = $2", [
      poisonIds[1],
      transform.id,
    ]);
    expect(surrogateRuns[0].original_data.body).toEqual({ a: "\\ud800", b: "x\\udfff" });
    // The parsed query keeps %00 as the escape; the raw query is stored as received.
    const { rows: queryRuns } = await db().query("SELECT original_data FROM transformation_executions WHERE request_id = $1 AND webhook_id = $2", [
      poisonIds[3],
      transform.id,
    ]);
    expect(queryRuns[0].original_data.parsed_query.a).toBe("\\u0000");
    expect(queryRuns[0].original_data.query).toBe("a=%00&b=%ED%A0%80");

    // Raw bodies stay byte-exact.
    const raw = await api(teamA, "GET", `/2025-07-01/requests/${poisonIds[5]}/raw_body`);
    const { rows: rawRows } = await db().query("SELECT body FROM request_raw_data WHERE request_id = $1", [poisonIds[5]]);
    expect(rawRows[0].body).toEqual(Buffer.from([0x61, 0x00, 0xed, 0xa0, 0x80, 0xff]));
    expect(raw.status).toBeLessThan(500);
  }, 120_000);
});

describe("a record PostgreSQL refuses all the same", () => {
  // Whatever the next class of poison is, one pair that cannot be written fails alone: a trigger
  // makes PostgreSQL refuse one event (as it would refuse data it cannot store), with SQLSTATE 22023.
  it("fails only its own (request, connection) pair: stored without the execution's data, else ignored as TRANSFORMATION_FAILED, else left pending", async () => {
    const marker = `refused-${Date.now()}`;
    const code = `addHandler("transform", (request) => { if (request.body.poison) request.path = "/${marker}"; return request; })`;
    const c = await connectionTo(teamA, receiver, { rules: [{ type: "transform", transformation: { name: `refused-${Date.now()}`, code } }] });
    const plain = await api(teamA, "POST", "/2025-07-01/connections", {
      name: `plain-${Date.now()}`,
      source_id: c.source.id,
      destination_id: c.destination.id,
    });
    expect(plain.status).toBe(200);
    const stuck = await connectionTo(teamA, receiver, { rules: [{ type: "transform", transformation: { name: `stuck-${Date.now()}`, code } }] });
    const other = await connectionTo(teamB, receiver);
    // Refuses: events with the marker path; executions of requests whose body says refuse; and every
    // ignored event of the connection "stuck" (so even its failure cannot be written).
    // The tables are partitioned by day (docs/scaling.md#retention-and-sizing): the trigger runs on a partition, named after its table.
    await db().query(`CREATE OR REPLACE FUNCTION hookyard_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE tbl text := regexp_replace(TG_TABLE_NAME, '_(p[0-9]{8}|default)$', '');
      BEGIN
        IF tbl = 'events' THEN
          IF NEW.data->>'path' = '/${marker}' THEN RAISE EXCEPTION 'test refuses this row' USING ERRCODE = '22023'; END IF;
        ELSIF tbl = 'transformation_executions' THEN
          IF NEW.original_data->'body'->>'refuse' = '${marker}' THEN RAISE EXCEPTION 'test refuses this row' USING ERRCODE = '22023'; END IF;
        ELSIF NEW.webhook_id = '${stuck.id}' THEN
          RAISE EXCEPTION 'test refuses this row' USING ERRCODE = '22023';
        END IF;
        RETURN NEW;
      END $$`);
    // A trigger's DDL locks its table (and each partition) against every other file's queries on this shared
    // database, which may hold locks on them in another order. Waiting in the lock queue, the DDL would hold
    // those queries back, and PostgreSQL's deadlock check (after 1 s) could end one of them instead of the DDL.
    // So the DDL gives up after 200 ms (lock_timeout, before any deadlock check) and is tried again.
    const ddl = async (sql: string) => {
      for (let attempt = 1; ; attempt++) {
        const client = await db().connect();
        try {
          await client.query("BEGIN");
          await client.query("SET LOCAL lock_timeout = '200ms'");
          const result = await client.query(sql);
          await client.query("COMMIT");
          return result;
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          if (!["40P01", "55P03"].includes((err as { code?: string }).code ?? "") || attempt === 40) throw err;
          await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 300)));
        } finally {
          client.release();
        }
      }
    };
    for (const table of ["events", "transformation_executions", "ignored_events"]) {
      await ddl(`CREATE TRIGGER hookyard_test_refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION hookyard_test_refuse()`);
    }
    const dropTriggers = async () => {
      for (const table of ["events", "transformation_executions", "ignored_events"]) await ddl(`DROP TRIGGER IF EXISTS hookyard_test_refuse ON ${table}`);
      await db().query("DROP FUNCTION IF EXISTS hookyard_test_refuse()");
    };
    try {
      const sent = await Promise.all([
        send(c.source.url, { poison: true }),
        send(c.source.url, { refuse: marker }),
        send(stuck.source.url, { poison: true }),
        send(c.source.url, { poison: false }),
        send(other.source.url, { n: 1 }),
      ]);
      const [poisoned, refusedRun, stuckRequest, fine, otherTeam] = sent;
      await eventsIn(otherTeam.requestId, ["SUCCESSFUL"], 1, 30_000);
      await eventsIn(fine.requestId, ["SUCCESSFUL"], 2, 30_000);

      // The event refused: the pair is ignored, the execution says why.
      const { events, ignored } = await settled(poisoned.requestId, 2);
      expect(events).toHaveLength(1);
      expect(events[0].webhook_id).toBe(plain.json.id);
      expect(ignored).toHaveLength(1);
      expect(ignored[0]).toMatchObject({ webhook_id: c.id, cause: "TRANSFORMATION_FAILED" });
      expect(ignored[0].meta.transformation_id).toMatch(/^trs_/);
      const { rows } = await db().query("SELECT * FROM transformation_executions WHERE request_id = $1", [poisoned.requestId]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ log_level: "error", event_id: null, transformation_id: ignored[0].meta.transformation_id, original_data: null });
      expect(rows[0].logs[0].message).toContain("test refuses this row");
      await eventsIn(poisoned.requestId, ["SUCCESSFUL"], 1, 30_000);

      // Only the execution's data refused: the event is kept and delivered, the execution without its data.
      const kept = await eventsIn(refusedRun.requestId, ["SUCCESSFUL"], 2, 30_000);
      expect(await ignoredOf(refusedRun.requestId)).toEqual([]);
      const { rows: runs } = await db().query("SELECT * FROM transformation_executions WHERE request_id = $1", [refusedRun.requestId]);
      expect(runs).toHaveLength(1);
      expect(kept.map((e) => e.id)).toContain(runs[0].event_id);
      expect(runs[0]).toMatchObject({ original_data: null, transformed_data: null });
      expect(runs[0].logs.at(-1).message).toMatch(/input and output could not be stored: test refuses this row/);

      // Not even the failure can be written: nothing is lost, the request stays pending...
      expect(await eventsOf(stuckRequest.requestId)).toEqual([]);
      expect(await ignoredOf(stuckRequest.requestId)).toEqual([]);
      expect((await db().query("SELECT 1 FROM request_fanouts WHERE request_id = $1", [stuckRequest.requestId])).rowCount).toBe(1);
      // ...while later requests still go through, and it is fanned out once PostgreSQL takes it.
      const later = await send(other.source.url, { n: 2 });
      await eventsIn(later.requestId, ["SUCCESSFUL"], 1, 30_000);
      await dropTriggers();
      await eventsIn(stuckRequest.requestId, ["SUCCESSFUL"], 1, 30_000);
    } finally {
      await dropTriggers();
    }
  }, 120_000);
});

describe("delivery of events that cannot be recorded or sent as they are", () => {
  it("records an answer holding NUL (escaped) once, and delivers the others of the batch", async () => {
    const nul = await connectionTo(teamB, receiver);
    const fine = await connectionTo(teamB, receiver);
    receiver.respond((req) => (req.url.startsWith(`/${nul.tag}`) ? { status: 200, body: "ok\u0000done" } : { status: 200, body: "ok" }));
    try {
      const sent = await Promise.all([send(nul.source.url, { n: 1 }), send(fine.source.url, { n: 2 }), send(nul.source.url, { n: 3 })]);
      for (const s of sent) {
        const [event] = await eventsIn(s.requestId, ["SUCCESSFUL"], 1, 30_000);
        const attempts = await attemptsOf(event.id);
        expect(attempts).toHaveLength(1);
        expect(attempts[0].body).toBe(s === sent[1] ? "ok" : "ok\\u0000done");
      }
      // Each event was delivered exactly once: the attempt was recorded, not left to the lease to expire.
      await new Promise((r) => setTimeout(r, 1500));
      expect(receivedBy(receiver, nul.tag)).toHaveLength(2);
    } finally {
      receiver.respond({ status: 200, body: "ok" });
    }
  }, 60_000);

  it("an event whose stored data or destination cannot be used fails with an attempt saying why, and the others are delivered", async () => {
    const odd = await connectionTo(teamB, receiver, {
      destination: { config: { url: `${receiver.url}/odd`, auth_type: "API_KEY", auth: { key: "k", api_key: "v", to: "query" } } },
    });
    const oddData = await connectionTo(teamB, receiver, { rules: [{ type: "delay", delay: 1500 }] });
    const oddSecret = await connectionTo(teamB, receiver, {
      destination: { config: { url: `${receiver.url}/odd-secret`, auth_type: "BEARER_TOKEN", auth: { token: "t" } } },
    });
    const fine = await connectionTo(teamB, receiver);
    // Destination credentials that no longer decrypt.
    await db().query("UPDATE destinations SET auth_encrypted = 'not-a-sealed-secret' WHERE id = $1", [oddSecret.destination.id]);
    // A destination row no API would write: API_KEY auth to the query of a URL that does not parse.
    await db().query(`UPDATE destinations SET config = jsonb_set(config, '{url}', '"http://[bad"') WHERE id = $1`, [odd.destination.id]);
    const a = await send(odd.source.url, { n: 1 });
    const b = await send(oddData.source.url, { n: 2 });
    const [scheduled] = await eventsIn(b.requestId, ["SCHEDULED"]);
    // Transformed data whose body is not a string: nothing can be sent from it.
    await db().query(`UPDATE events SET data = '{"path":"/","query":"","headers":{},"body":{"not":"a string"}}'::jsonb WHERE id = $1`, [scheduled.id]);
    const d = await send(oddSecret.source.url, { n: 4 });
    const c = await send(fine.source.url, { n: 3 });
    await eventsIn(c.requestId, ["SUCCESSFUL"], 1, 30_000);
    for (const id of [a.requestId, b.requestId, d.requestId]) {
      const [event] = await eventsIn(id, ["FAILED"], 1, 30_000);
      const attempts = await attemptsOf(event.id);
      expect(attempts).toHaveLength(1);
      expect(attempts[0].status).toBe("FAILED");
      expect(attempts[0].error_code).toMatch(/^(INVALID_URL|UNKNOWN)$/);
      expect(attempts[0].body).toMatch(/could not be (sent|prepared)/);
      expect(event.error_code).toBe(attempts[0].error_code);
    }
  }, 60_000);
});
