/**
 * Prototype pollution, malformed input (docs/gateway-api.md "Input limits") and the fuzz suite, against the real test
 * servers: polluting keys through every surface, one request of each malformed-input class per surface
 * (each answers that surface's error body with a 4xx), then a fast-check fuzz of every endpoint with a
 * fixed seed (no 5xx, no hang). After each part, ordinary requests must still behave: a create with
 * valid fields is not refused for an "Unrecognized key", a fresh team's list validates, the console
 * creates test URLs and ingestion captures. The fuzz covers the outbound API (both forms, admin key and
 * tenant JWT), the portal, the dashboard and its API, and every metrics endpoint, and checks that each JSON
 * 4xx is in the body of the surface addressed. The fixed input classes of those routes, one by one:
 * input-errors.test.ts. Socket timeouts: fuzz-sockets.test.ts. `npm run fuzz` runs the same generator
 * longer (scripts/fuzz.ts).
 */
import net from "node:net";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/teams/api-keys";
import { OUTBOUND_ROUTES } from "@/lib/outbound/routes";
import { createTeam } from "@/lib/teams/bootstrap";
import { API_VERSIONS } from "@/lib/gateway/versions";
import { BASE_URL, newTestUrl } from "./support/client";
import {
  describeRequest,
  encodeCursor,
  FORGED_CURSOR_PAYLOADS,
  type FuzzContext,
  type FuzzRequest,
  OUTBOUND_TEMPLATES,
  outboundFuzzContext,
  requestArb,
  send,
  shapeProblem,
} from "./support/fuzz";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { connectionTo, eventsOf, ignoredIn } from "./support/pipeline";

/** Fixed in `npm test`; FUZZ_SEED overrides it to replay a run of `npm run fuzz`. */
const SEED = Number(process.env.FUZZ_SEED ?? 150_001);
const V = "/2025-07-01";
const PREFIXES = [...API_VERSIONS.map((v) => `/${v}`), ""];

type Team = TestTeam & { cliKey: string };
async function fuzzTeam(name: string): Promise<Team> {
  const { teamId, signingSecret, cliKey } = await createTeam(name);
  const { key } = await createApiKey(teamId, "fuzz");
  return { teamId, apiKey: key, signingSecret, cliKey };
}

const req = (method: string, path: string, headers: Record<string, string> = {}, body?: string): FuzzRequest => ({
  method,
  path,
  headers: { "x-forwarded-for": `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`, ...headers },
  ...(body !== undefined ? { body: Buffer.from(body) } : {}),
});

/** Ordinary requests that must keep working whatever was sent before (pollution shows here from outside). */
async function expectServiceNormal() {
  const team = await newTeam("after");
  for (const prefix of PREFIXES) {
    const created = await api(team, "POST", `${prefix}/sources`, { name: `plain-${prefix.slice(1) || "none"}-${Date.now()}` });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const listed = await api(team, "GET", `${prefix}/sources`);
    expect(listed.status, JSON.stringify(listed.json)).toBe(200);
  }
  const conn = await api(team, "POST", `${V}/connections`, {
    name: "c",
    source: { name: "s-after" },
    destination: { name: "d-after", config: { url: "http://127.0.0.1:9/x" } },
    rules: [{ type: "filter", body: { a: 1 } }],
  });
  expect(conn.status, JSON.stringify(conn.json)).toBe(200);
  const upd = await api(team, "PUT", `${V}/connections/${conn.json.id}`, { description: "updated" });
  expect(upd.status, JSON.stringify(upd.json)).toBe(200);
  const fresh = await newTeam("fresh");
  const list = await api(fresh, "GET", `${V}/sources`);
  expect(list.status).toBe(200);
  expect(list.json.count).toBe(0);
  const url = await newTestUrl({});
  const ingested = await fetch(url.ingest_url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"ok":true}' });
  expect(ingested.status).toBe(200);
  const t = await fuzzTeam("cli-after");
  const cli = await send(
    BASE_URL,
    req("POST", "/cli/sessions", { authorization: `Bearer ${t.cliKey}`, "content-type": "application/json" }, JSON.stringify({ source_name: "after" })),
  );
  expect(cli.status, cli.body).toBe(200);
}

describe("prototype pollution through every surface", () => {
  let team: Team;
  let testUrl: Awaited<ReturnType<typeof newTestUrl>>;
  beforeAll(async () => {
    team = await fuzzTeam("pollution");
    testUrl = await newTestUrl({});
  });

  const KEYS = ["__proto__[x]=1", "__proto__[status]=1", "constructor[prototype][y]=1", "a[__proto__][z]=1", "__proto__[]=w"];
  const Q = KEYS.join("&");

  it("bracket queries, JSON bodies, form bodies and headers with __proto__/constructor/prototype change nothing for later requests", async () => {
    const auth = { authorization: `Bearer ${team.apiKey}` };
    const json = { ...auth, "content-type": "application/json" };
    const polluting: FuzzRequest[] = [];
    for (const prefix of PREFIXES) {
      polluting.push(
        req("GET", `/api${prefix}/sources?${Q}`, auth),
        req("GET", `/api${prefix}/events?${Q}`, auth),
        req("GET", `/api${prefix}/requests?${Q}`, auth),
      );
    }
    polluting.push(
      req("POST", `/api${V}/sources?${Q}`, json, '{"name":"p1","__proto__":{"x":1}}'),
      req("POST", `/api${V}/sources`, json, '{"name":"p2","constructor":{"prototype":{"x":1}}}'),
      req(
        "POST",
        `/api${V}/connections`,
        json,
        JSON.stringify({
          name: "c",
          source: { name: "s" },
          destination: { name: "d" },
          rules: [{ type: "filter", body: JSON.parse('{"__proto__":{"x":1}}') }],
        }),
      ),
      req(
        "PUT",
        `/api${V}/transformations/run`,
        json,
        JSON.stringify({ code: "addHandler('transform', (r) => r)", request: { headers: {}, body: {}, query: Q } }),
      ),
      req("GET", `/api${V}/sources/__proto__`, auth),
      req("PUT", `/api${V}/sources/src_x/constructor`, auth),
      req("PUT", `/api${V}/sources/src_x/__proto__`, auth),
      req("GET", `/?${Q}`, { __proto__: "x", constructor: "y" }),
      req("POST", `/?${Q}`, { "content-type": "application/json" }, '{"__proto__":{"x":1}}'),
      req("GET", `/${testUrl.id}?${Q}`, { accept: "application/json", __proto__: "x" }),
      req("GET", `/openapi.json?${Q}`),
      req("POST", `/e/${testUrl.id}?${Q}`, { "content-type": "application/x-www-form-urlencoded", __proto__: "h", constructor: "c" }, Q),
      req("POST", `/e/v1/publish?${Q}`, { ...json, "x-gateway-source-name": "s" }, '{"__proto__":{"x":1}}'),
      req("POST", "/cli/sessions", { authorization: `Bearer ${team.cliKey}`, "content-type": "application/json" }, '{"source_name":"cli","__proto__":{"x":1}}'),
    );
    for (const r of polluting) {
      const a = await send(BASE_URL, r);
      expect(a.status, `${describeRequest(r)} → ${a.status} ${a.body}`).toBeLessThan(500);
    }
    // The captured request's query and form body are parsed when read back (and by the worker).
    const captured = await api(team, "GET", `${V}/requests?limit=5`);
    expect(captured.status).toBe(200);
    const conn = await api(team, "GET", `${V}/connections?limit=5`);
    expect(conn.status).toBe(200);
    await expectServiceNormal();
  });

  it("a captured query or form body with __proto__ keys does not pollute the worker: a filter on a key the request lacks still filters", async () => {
    const key = `polluted_${Date.now().toString(36)}`;
    const conn = await connectionTo(team, null, {
      rules: [{ type: "filter", query: { [key]: "1" } }],
      destination: { config: { url: "http://127.0.0.1:9/" } },
    });
    const polluting = await send(
      BASE_URL,
      req(
        "POST",
        `${new URL(conn.source.url).pathname}?__proto__[${key}]=1&constructor[prototype][${key}]=1`,
        { "content-type": "application/x-www-form-urlencoded" },
        `__proto__[${key}]=1`,
      ),
    );
    expect(polluting.status).toBe(200);
    await ignoredIn(JSON.parse(polluting.body).request_id);
    const plain = await send(BASE_URL, req("POST", new URL(conn.source.url).pathname, { "content-type": "application/json" }, "{}"));
    const requestId = JSON.parse(plain.body).request_id;
    const ignored = await ignoredIn(requestId);
    expect(ignored[0].cause).toBe("FILTERED");
    expect(await eventsOf(requestId)).toEqual([]);
  });

  it("JSON bodies with __proto__/constructor/prototype keys are refused with 400 naming the key, and nothing is written", async () => {
    const r = await api(team, "POST", `${V}/sources`, '{"name":"proto-source","__proto__":{"x":1}}');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST", data: { field: "__proto__" } });
    const listed = await api(team, "GET", `${V}/sources?name=proto-source`);
    expect(listed.json.count).toBe(0);
    // The same on the bulk, issue, bookmark and notification bodies, and in a plan's or list's JSON `query`.
    const bodies: [string, string, string][] = [
      ["POST", "bulk/events/retry", '{"query":{"__proto__":{"status":"FAILED"}}}'],
      ["POST", "bulk/requests/replay", '{"query":{"target":{"source_id":"src_x","__proto__":{"x":1}}}}'],
      ["POST", "bulk/ignored-events/retry", '{"__proto__":{"query":{}},"query":{"cause":"FILTERED"}}'],
      ["POST", "issue-triggers", '{"type":"delivery","configs":{"strategy":"first_attempt","connections":"*","__proto__":{"x":1}}}'],
      [
        "PUT",
        "issue-triggers",
        '{"type":"delivery","name":"p","configs":{"strategy":"first_attempt","connections":"*"},"channels":{"constructor":{"prototype":{"x":1}}}}',
      ],
      ["POST", "bookmarks", '{"event_data_id":"edt_x","webhook_id":"web_x","label":"l","__proto__":{"x":1}}'],
      ["PUT", "notifications/webhooks", '{"enabled":true,"topics":[],"source_id":"src_x","__proto__":{"enabled":false}}'],
      ["PUT", "issues/iss_x", '{"status":"RESOLVED","__proto__":{"x":1}}'],
    ];
    for (const [method, path, body] of bodies) {
      const r = await api(team, method, `${V}/${path}`, body);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
    }
    for (const path of ["bulk/events/retry/plan", "bulk/events/retry", "bulk/requests/replay"]) {
      const r = await api(team, "GET", `${V}/${path}?query=${encodeURIComponent('{"__proto__":{"status":"FAILED"}}')}`);
      expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json).toMatchObject({ handled: true, status: 400 });
    }
    expect((await api(team, "GET", `${V}/bulk/events/retry`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/issue-triggers`)).json.count).toBe(0);
    expect((await api(team, "GET", `${V}/bookmarks`)).json.count).toBe(0);
  });

  it("an action named like an Object.prototype property is a 404, not a 5xx", async () => {
    const s = await api(team, "POST", `${V}/sources`, { name: "actions" });
    for (const resource of ["sources", "destinations", "connections"]) {
      for (const action of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
        const r = await send(BASE_URL, req("PUT", `/api${V}/${resource}/${s.json.id}/${action}`, { authorization: `Bearer ${team.apiKey}` }));
        expect(r.status, `${resource}/${action}: ${r.body}`).toBe(404);
      }
    }
  });
});

describe("malformed input answers the surface's error body with a 4xx", () => {
  let team: Team;
  let testUrl: Awaited<ReturnType<typeof newTestUrl>>;
  beforeAll(async () => {
    team = await fuzzTeam("malformed");
    testUrl = await newTestUrl({});
  });
  const gatewayBody = (status: number) => expect.objectContaining({ handled: true, status });
  const consoleBody = (status: number) => ({ code: expect.any(String), status, data: expect.any(Array) });

  async function expectAnswer(r: FuzzRequest, status: number, shape: unknown) {
    const a = await send(BASE_URL, r);
    expect(a.status, `${describeRequest(r)} → ${a.body}`).toBe(status);
    expect(a.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(a.body)).toEqual(shape);
  }

  it("invalid UTF-8 percent-encoding and U+0000 in a path: every id parameter of every surface → 404 (no such id), never a 5xx", async () => {
    const auth = { authorization: `Bearer ${team.apiKey}` };
    for (const bad of ["%FF", "%C0%80", "%ED%A0%80", "src_%00", "%00"]) {
      for (const prefix of PREFIXES) {
        for (const p of [
          `sources/${bad}`,
          `events/${bad}`,
          `events/${bad}/raw_body`,
          `requests/${bad}/events`,
          `connections/${bad}/pause`,
          `transformations/${bad}/executions/${bad}`,
          `attempts/${bad}`,
          `ignored-events/${bad}`,
          `destinations/${bad}`,
          `bulk/events/retry/${bad}`,
          `bulk/requests/replay/${bad}`,
          `bulk/${bad}/retry`,
          `issues/${bad}`,
          `issue-triggers/${bad}`,
          `bookmarks/${bad}`,
          `bookmarks/${bad}/raw_body`,
        ]) {
          await expectAnswer(req("GET", `/api${prefix}/${p}`, auth), 404, gatewayBody(404));
        }
        for (const p of [`bulk/ignored-events/retry/${bad}/cancel`, `bookmarks/${bad}/trigger`])
          await expectAnswer(req("POST", `/api${prefix}/${p}`, auth), 404, gatewayBody(404));
        for (const p of [`issue-triggers/${bad}/disable`, `issues/${bad}`])
          await expectAnswer(req("PUT", `/api${prefix}/${p}`, { ...auth, "content-type": "application/json" }, '{"status":"RESOLVED"}'), 404, gatewayBody(404));
        await expectAnswer(req("DELETE", `/api${prefix}/bookmarks/${bad}`, auth), 404, gatewayBody(404));
      }
      await expectAnswer(req("GET", `/${bad}`), 404, consoleBody(404));
      await expectAnswer(req("GET", `/${testUrl.id}/requests/${bad}/raw`), 404, consoleBody(404));
      await expectAnswer(req("GET", `/${bad}/live`), 404, consoleBody(404));
      await expectAnswer(req("POST", `/${testUrl.id}/requests/${bad}/retry`), 404, consoleBody(404));
      await expectAnswer(req("GET", `/cli/sessions/${bad}/stream`, { authorization: `Bearer ${team.cliKey}` }), 404, {
        error: "NOT_FOUND",
        message: expect.any(String),
      });
      await expectAnswer(req("POST", `/cli/attempts/${bad}`, { authorization: `Bearer ${team.cliKey}` }, "{}"), 404, {
        error: "NOT_FOUND",
        message: expect.any(String),
      });
    }
  });

  it("U+0000 and lone surrogates in JSON string fields (gateway, console, CLI) → 4xx, nothing reaches PostgreSQL", async () => {
    const json = { authorization: `Bearer ${team.apiKey}`, "content-type": "application/json" };
    for (const s of ["a\\u0000b", "\\ud800", "x\\udfffy"]) {
      for (const family of ["events/retry", "requests/retry", "requests/replay", "ignored-events/retry"]) {
        await expectAnswer(req("POST", `/api${V}/bulk/${family}`, json, `{"query":{"id":"${s}"}}`), 400, gatewayBody(400));
        await expectAnswer(req("POST", `/api${V}/bulk/${family}`, json, `{"query":{"${s}":"x"}}`), 400, gatewayBody(400));
      }
      await expectAnswer(req("POST", `/api${V}/bulk/requests/replay`, json, `{"query":{"target":{"source_id":"${s}"}}}`), 400, gatewayBody(400));
      await expectAnswer(
        req("POST", `/api${V}/issue-triggers`, json, `{"type":"delivery","name":"${s}","configs":{"strategy":"first_attempt","connections":"*"}}`),
        400,
        gatewayBody(400),
      );
      await expectAnswer(
        req(
          "PUT",
          `/api${V}/issue-triggers`,
          json,
          `{"type":"delivery","name":"t","configs":{"strategy":"first_attempt","connections":"*"},"channels":{"slack":{"channel_name":"${s}"}}}`,
        ),
        400,
        gatewayBody(400),
      );
      await expectAnswer(req("POST", `/api${V}/bookmarks`, json, `{"event_data_id":"edt_x","webhook_id":"web_x","label":"${s}"}`), 400, gatewayBody(400));
      await expectAnswer(req("PUT", `/api${V}/notifications/webhooks`, json, `{"enabled":true,"topics":[],"source_id":"${s}"}`), 400, gatewayBody(400));
      await expectAnswer(req("POST", `/api${V}/sources`, json, `{"name":"${s}"}`), 400, gatewayBody(400));
      await expectAnswer(
        req("POST", `/api${V}/destinations`, json, `{"name":"ok","description":"${s}","config":{"url":"http://127.0.0.1:9/"}}`),
        400,
        gatewayBody(400),
      );
      await expectAnswer(req("POST", `/api${V}/connections`, json, `{"name":"c","source":{"name":"${s}"},"destination":{"name":"d"}}`), 400, gatewayBody(400));
      await expectAnswer(req("PUT", `/api${V}/transformations`, json, `{"name":"t","code":"${s}"}`), 400, gatewayBody(400));
      await expectAnswer(req("POST", "/", { "content-type": "application/json" }, `{"name":"${s}"}`), 422, consoleBody(422));
      await expectAnswer(
        req("POST", "/cli/sessions", { authorization: `Bearer ${team.cliKey}`, "content-type": "application/json" }, `{"source_name":"${s}"}`),
        422,
        { error: "UNPROCESSABLE_ENTITY", message: expect.any(String) },
      );
    }
    await expectAnswer(req("GET", `/api${V}/sources?name=a%00b`, json), 400, gatewayBody(400));
    await expectAnswer(req("GET", `/api${V}/requests?id=a%00b`, json), 400, gatewayBody(400));
  });

  it("forged cursors (out-of-range timestamps, U+0000, lone surrogates, huge values) → 400 on every list", async () => {
    for (const list of [
      "sources",
      "destinations",
      "connections",
      "events",
      "requests",
      "attempts",
      "ignored-events",
      "transformations",
      "bulk/events/retry",
      "bulk/events/cancel",
      "bulk/ignored-events/retry",
      "bulk/requests/retry",
      "bulk/requests/replay",
      "issues",
      "issue-triggers",
      "bookmarks",
    ]) {
      for (const p of FORGED_CURSOR_PAYLOADS) {
        const r = await api(team, "GET", `${V}/${list}?next=${encodeCursor(p)}&order_by=${p.o}&dir=${p.d}`);
        expect(r.status, `${list} ${JSON.stringify(p).slice(0, 200)}: ${JSON.stringify(r.json)}`).toBe(400);
        expect(r.json).toMatchObject({ handled: true, status: 400 });
      }
    }
  });

  it("bracket queries 3,000 levels deep → 400 on the API; captured on ingestion and readable afterwards", async () => {
    const deep = `a${"[b]".repeat(3000)}=1`;
    for (const prefix of PREFIXES)
      await expectAnswer(req("GET", `/api${prefix}/sources?${deep}`, { authorization: `Bearer ${team.apiKey}` }), 400, gatewayBody(400));
    const conn = await api(team, "POST", `${V}/connections`, {
      name: "deepq",
      source: { name: "deepq-src" },
      destination: { name: "deepq-dst", config: { url: "http://127.0.0.1:9/" } },
    });
    const captured = await send(
      BASE_URL,
      req("POST", `/e/${new URL(conn.json.source.url).pathname.split("/")[2]}?${deep}`, { "content-type": "application/x-www-form-urlencoded" }, deep),
    );
    expect(captured.status).toBe(200);
    const listed = await api(team, "GET", `${V}/requests?source_id=${conn.json.source.id}`);
    expect(listed.status, JSON.stringify(listed.json).slice(0, 500)).toBe(200);
    const one = await api(team, "GET", `${V}/requests/${listed.json.models[0].id}`);
    expect(one.status).toBe(200);
  });

  it("rule objects and other JSON bodies nested 10,000 deep → 400 (gateway), 422 (console, CLI)", async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const json = { authorization: `Bearer ${team.apiKey}`, "content-type": "application/json" };
    await expectAnswer(
      req("POST", `/api${V}/connections`, json, `{"name":"c","source":{"name":"s"},"destination":{"name":"d"},"rules":[{"type":"filter","body":${deep}}]}`),
      400,
      gatewayBody(400),
    );
    await expectAnswer(req("PUT", `/api${V}/transformations/run`, json, `{"code":"x","request":{"body":${deep}}}`), 400, gatewayBody(400));
    await expectAnswer(req("POST", `/api${V}/sources`, json, `{"name":"s","config":${"[".repeat(10_000)}${"]".repeat(10_000)}}`), 400, gatewayBody(400));
    await expectAnswer(req("POST", "/", { "content-type": "application/json" }, deep), 422, consoleBody(422));
    await expectAnswer(req("POST", "/cli/sessions", { authorization: `Bearer ${team.cliKey}`, "content-type": "application/json" }, deep), 422, {
      error: "UNPROCESSABLE_ENTITY",
      message: expect.any(String),
    });
  });

  it("a captured body nested 10,000 deep is kept and shown as text: preview, page and the API's request still answer", async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const t = await newTestUrl({});
    const captured = await send(BASE_URL, req("POST", `/e/${t.id}`, { "content-type": "application/json" }, deep));
    expect(captured.status).toBe(200);
    const preview = await send(BASE_URL, req("GET", `/${t.id}`, { accept: "application/json" }));
    expect(preview.status, preview.body.slice(0, 300)).toBe(200);
    const page = await send(BASE_URL, req("GET", `/${t.id}`, { accept: "text/html" }));
    expect(page.status).toBe(200);
    const conn = await api(team, "POST", `${V}/connections`, {
      name: "deepbody",
      source: { name: "deepbody-src" },
      destination: { name: "deepbody-dst", config: { url: "http://127.0.0.1:9/" } },
      rules: [{ type: "filter", body: { a: 1 } }],
    });
    const sent = await send(BASE_URL, req("POST", new URL(conn.json.source.url).pathname, { "content-type": "application/json" }, deep));
    expect(sent.status).toBe(200);
    const { request_id } = JSON.parse(sent.body);
    const one = await api(team, "GET", `${V}/requests/${request_id}`);
    expect(one.status).toBe(200);
  });

  it("unexpected methods → 405 with Allow in the surface's body; OPTIONS * → 400", async () => {
    for (const m of ["TRACE", "PROPFIND", "PURGE"]) {
      await expectAnswer(req(m, `/api${V}/sources`, { authorization: `Bearer ${team.apiKey}` }), 405, gatewayBody(405));
      await expectAnswer(req(m, "/api/sources"), 405, gatewayBody(405));
      await expectAnswer(req(m, "/"), 405, consoleBody(405));
      await expectAnswer(req(m, `/${testUrl.id}`), 405, consoleBody(405));
      await expectAnswer(req(m, "/cli/sessions"), 405, { error: "METHOD_NOT_ALLOWED", message: expect.any(String) });
      const ingest = await send(BASE_URL, req(m, new URL(testUrl.ingest_url).pathname));
      expect(ingest.status).toBe(405); // the source's allowed methods (UNSUPPORTED_HTTP_METHOD)
    }
    const raw = await new Promise<string>((resolve, reject) => {
      const s = net.connect(Number(new URL(BASE_URL).port), "127.0.0.1", () => s.write("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      let out = "";
      s.on("data", (d: Buffer) => (out += d.toString()));
      s.on("end", () => resolve(out));
      s.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("the service behaves normally afterwards", expectServiceNormal);
});

describe("fuzz (fast-check, fixed seed)", () => {
  let ctx: FuzzContext;
  beforeAll(async () => {
    const teams = await Promise.all([1, 2, 3, 4].map((i) => fuzzTeam(`fuzz ${i}`)));
    const url = await newTestUrl({});
    const ids = [url.id];
    for (const t of teams.slice(0, 2)) {
      const c = await api(t, "POST", `${V}/connections`, {
        name: "fz",
        source: { name: "fz-src" },
        destination: { name: "fz-dst", config: { url: "http://127.0.0.1:9/" } },
        rules: [{ type: "filter", body: { a: 1 } }],
      });
      ids.push(c.json.id, c.json.source.id, c.json.destination.id);
    }
    const ingested = await fetch(url.ingest_url, { method: "POST", body: "{}" });
    ids.push(((await ingested.json()) as { request_id: string }).request_id);
    ctx = { apiKeys: teams.map((t) => t.apiKey), cliKeys: teams.map((t) => t.cliKey), ids, ...(await outboundFuzzContext(BASE_URL, teams[0].teamId)) };
  });

  it("the generator knows every outbound route", () => {
    expect(OUTBOUND_ROUTES.map((r) => r.path).filter((p) => !OUTBOUND_TEMPLATES.includes(p))).toEqual([]);
  });

  it(`no 5xx and no hang for generated requests to every endpoint of every surface (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const counts = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb(ctx), { minLength: 4, maxLength: 4 }), async (batch) => {
        const answers = await Promise.all(batch.map((r) => send(BASE_URL, r)));
        answers.forEach((a, i) => {
          counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
          if (a.status >= 500) throw new Error(`${describeRequest(batch[i])} → ${a.status} ${a.body.slice(0, 300)}`);
          const wrongShape = shapeProblem(batch[i], a);
          if (wrongShape) throw new Error(`${describeRequest(batch[i])} → ${a.status} ${wrongShape}: ${a.body.slice(0, 300)}`);
        });
      }),
      { seed: SEED, numRuns: Number(process.env.FUZZ_RUNS ?? 1500), endOnFailure: true },
    );
    console.log(
      `fuzz seed ${SEED}: ${[...counts]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    );
    // Most requests must get past the router: the fuzz is not only 404s.
    expect([...counts.keys()].filter((s) => s >= 200 && s < 300).length).toBeGreaterThan(0);
  });

  it("the service behaves normally after the fuzz (no Unrecognized key from a polluted prototype)", expectServiceNormal);
});
