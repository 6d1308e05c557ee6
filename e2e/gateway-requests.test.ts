/**
 * Gateway `/requests` (docs/gateway-api.md#requests): what a source received, listed and read through the
 * API, with filters, include=data, raw_body, paging and team isolation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
let source: { id: string; url: string };
let stripe: { id: string; url: string };
const V = "/2025-07-01";
const sent: string[] = [];

beforeAll(async () => {
  team = await newTeam("requests");
  source = (await api(team, "POST", `${V}/sources`, { name: "inbox" })).json;
  stripe = (await api(team, "POST", `${V}/sources`, { name: "stripe-in", type: "STRIPE" })).json;
  for (const [url, init] of [
    [`${source.url}/orders?a=1&a=2&b=x`, { method: "POST", headers: { "content-type": "application/json", "x-trace": "t1" }, body: '{"order": 42}' }],
    [`${source.url}/plain`, { method: "PUT", headers: { "content-type": "text/plain" }, body: "hello text" }],
    // Bytes that are not UTF-8, in an accepted content type (application/octet-stream is refused: gateway-gaps.test.ts).
    [`${source.url}/bin`, { method: "POST", headers: { "content-type": "text/plain" }, body: new Uint8Array([0, 255, 1, 254, 128]) }],
    [`${stripe.url}`, { method: "GET" }],
  ] as const) {
    const res = await fetch(url, init);
    const body = (await res.json()) as { request_id: string };
    sent.push(body.request_id);
  }
});

describe("GET /requests", () => {
  it("GET /requests – the team's requests newest first, with the product's fields; counts 0 before the pipeline", async () => {
    const { status, json } = await api(team, "GET", `${V}/requests`);
    expect(status).toBe(200);
    expect(json.models.map((m: any) => m.id)).toEqual([...sent].reverse());
    expect(json.models[3]).toEqual({
      id: sent[0],
      team_id: team.teamId,
      verified: false,
      original_event_data_id: null,
      rejection_cause: "NO_CONNECTION",
      ingested_at: expect.any(String),
      source_id: source.id,
      events_count: 0,
      cli_events_count: 0,
      ignored_count: 0,
      updated_at: expect.any(String),
      created_at: expect.any(String),
    });
  });

  it("GET /requests – filters: source_id, rejection_cause, status, verified, created_at operators", async () => {
    const ids = async (q: string) => (await api(team, "GET", `${V}/requests?${q}`)).json.models.map((m: any) => m.id);
    expect(await ids(`source_id=${stripe.id}`)).toEqual([sent[3]]);
    expect(await ids("rejection_cause=UNSUPPORTED_HTTP_METHOD")).toEqual([sent[3]]);
    expect(await ids("rejection_cause[0]=NO_CONNECTION&rejection_cause[1]=UNSUPPORTED_HTTP_METHOD")).toHaveLength(4);
    expect(await ids("status=accepted")).toEqual([]);
    expect(await ids("status=rejected")).toHaveLength(4);
    expect(await ids("verified=true")).toEqual([]);
    expect(await ids("created_at[gte]=2000-01-01&created_at[lt]=2999-01-01")).toHaveLength(4);
    expect(await ids("created_at[gt]=2999-01-01")).toEqual([]);
    expect(await ids("status[]=accepted&status[]=rejected")).toHaveLength(4);
    expect(await ids("rejection_cause[any]=true")).toHaveLength(4);
    expect(await ids("rejection_cause[any]=false")).toEqual([]);
    expect(await ids("verified=false")).toHaveLength(4);
    for (const bad of ["status=maybe", "created_at[gte]=yesterday", "verified=yes", "verified[gte]=true", "source_id[between]=a", "ingested_at[]=2024-01-01"]) {
      const { status, json } = await api(team, "GET", `${V}/requests?${bad}`);
      expect(status, bad).toBe(400);
      expect(json).toMatchObject({ code: "BAD_REQUEST" });
      expect(json.message).toContain(bad.split(/[[=]/)[0]);
    }
  });

  it("GET /requests?include=data – path, raw query, parsed query, headers, body (JSON parsed, text, base64 for binary)", async () => {
    const { json } = await api(team, "GET", `${V}/requests?include=data&order_by=created_at&dir=asc&source_id=${source.id}`);
    const [j, t, b] = json.models;
    expect(j.data).toMatchObject({
      path: "/orders",
      query: "a=1&a=2&b=x",
      parsed_query: { a: ["1", "2"], b: "x" },
      body: { order: 42 },
      is_large_payload: false,
    });
    expect(j.data.headers["x-trace"]).toBe("t1");
    expect(t.data).toMatchObject({ path: "/plain", query: null, parsed_query: {}, body: "hello text" });
    expect(b.data.body).toBe(Buffer.from([0, 255, 1, 254, 128]).toString("base64"));
    expect((await api(team, "GET", `${V}/requests`)).json.models[0].data).toBeUndefined();
  });

  it("GET /requests – paging two at a time both ways", async () => {
    const p1 = (await api(team, "GET", `${V}/requests?limit=2`)).json;
    const p2 = (await api(team, "GET", `${V}/requests?limit=2&next=${p1.pagination.next}`)).json;
    expect([...p1.models, ...p2.models].map((m: any) => m.id)).toEqual([...sent].reverse());
    expect(p2.pagination.next).toBeUndefined();
    const back = (await api(team, "GET", `${V}/requests?limit=2&prev=${p2.pagination.prev}`)).json;
    expect(back.models.map((m: any) => m.id)).toEqual(p1.models.map((m: any) => m.id));
  });
});

describe("GET /requests/{id}", () => {
  it("GET /requests/{id} – with data; raw_body byte-exact text", async () => {
    const one = await api(team, "GET", `${V}/requests/${sent[1]}`);
    expect(one.json).toMatchObject({ id: sent[1], source_id: source.id, data: { path: "/plain", body: "hello text" } });
    expect((await api(team, "GET", `${V}/requests/${sent[0]}/raw_body`)).json).toEqual({ body: '{"order": 42}' });
    expect((await api(team, "GET", `${V}/requests/${sent[2]}/raw_body`)).json).toEqual({ body: Buffer.from([0, 255, 1, 254, 128]).toString("base64") });
  });

  it("another team, console requests and unknown ids → 404; lists stay empty", async () => {
    const other = await newTeam("other");
    expect((await api(other, "GET", `${V}/requests/${sent[0]}`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/requests/${sent[0]}/raw_body`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/requests`)).json.models).toEqual([]);
    expect((await api(team, "GET", `${V}/requests/req_unknown`)).json).toMatchObject({ status: 404, data: { id: "req_unknown" } });
  });
});
