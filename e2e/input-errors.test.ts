/**
 * Bad input on the outbound, portal, dashboard and metrics routes (docs/outbound.md "Errors",
 * docs/gateway-api.md "Errors"), against the real server: U+0000 and bytes that are not UTF-8 in list
 * filters, forged cursors (admin key and tenant JWT), metrics names that are built-in object properties
 * on both products, request-line errors and bodies over the API limit in each surface's own body. Every answer is a 4xx in the
 * body of the surface asked, never a 500. The generated fuzz of the same routes: e2e/fuzz.test.ts.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_METRICS } from "@/lib/gateway/metrics/tables";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { signInHttp } from "./support/dashboard";
import { describeRequest, encodeCursor, type FuzzRequest, send } from "./support/fuzz";
import { newTeam, type TestTeam } from "./support/gateway";

const run = randomBytes(4).toString("hex");
const OB = "/outbound/api/v1";
const outboundBody = (status: number) => expect.objectContaining({ status, message: expect.any(String) });
const gatewayBody = (status: number) => expect.objectContaining({ handled: true, status, code: expect.any(String) });

let admin = "";
let jwt = "";
let tenant = "";
let destination = "";
let team: TestTeam;

const request = (method: string, path: string, token?: string): FuzzRequest => ({
  method,
  path,
  headers: { "x-forwarded-for": "10.66.0.1", ...(token ? { authorization: `Bearer ${token}` } : {}) },
});

async function expectAnswer(r: FuzzRequest, status: number, shape: unknown) {
  const a = await send(BASE_URL, r);
  expect(a.status, `${describeRequest(r)} → ${a.status} ${a.body.slice(0, 300)}`).toBe(status);
  expect(a.contentType, describeRequest(r)).toMatch(/^application\/json/);
  expect(JSON.parse(a.body), describeRequest(r)).toEqual(shape);
}

beforeAll(async () => {
  admin = (await createOutboundKey(`input-${run}`)).key;
  tenant = `input-${run}`;
  const json = (r: { body: string }) => JSON.parse(r.body);
  await send(BASE_URL, request("PUT", `${OB}/tenants/${tenant}`, admin));
  const created = await send(BASE_URL, {
    ...request("POST", `${OB}/tenants/${tenant}/destinations`, admin),
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: Buffer.from(JSON.stringify({ type: "webhook", topics: "*", config: { url: "http://127.0.0.1:9/hook" } })),
  });
  expect(created.status, created.body).toBe(201);
  destination = json(created).id;
  jwt = json(await send(BASE_URL, request("GET", `${OB}/tenants/${tenant}/token`, admin))).token;
  team = await newTeam("input errors");
});

describe("outbound list filters: U+0000 and bytes that are not UTF-8 → 400 in the outbound body", () => {
  const lists = () => [
    "/events?tenant_id=",
    "/events?topic=",
    "/attempts?event_id=a",
    "/attempts?destination_id=",
    `/tenants/${tenant}/destinations/${destination}/attempts?event_id=`,
    "/tenants?id=",
    `/tenants/${tenant}/destinations?type=`,
    "/events?id[]=x&id[]=",
  ];

  it("with the admin key and with the tenant's JWT", async () => {
    for (const token of [admin, jwt]) {
      for (const list of lists()) {
        for (const bad of ["%00", "a%00b", "%FF", "%ED%A0%80"]) await expectAnswer(request("GET", `${OB}${list}${bad}`, token), 400, outboundBody(400));
      }
      // A key holding U+0000, and a time filter named like an Object.prototype member.
      await expectAnswer(request("GET", `${OB}/events?tenant%00id=x`, token), 400, outboundBody(400));
      await expectAnswer(request("GET", `${OB}/events?time[toString]=2026-01-01`, token), 400, outboundBody(400));
      await expectAnswer(request("GET", `${OB}/attempts?time[constructor]=2026-01-01`, token), 400, outboundBody(400));
    }
  });

  it("deep nesting, wrong types and absurd dates in the query → 400 in the outbound body", async () => {
    const deep = `a${"[b]".repeat(3000)}=1`;
    const cases = [
      `/events?${deep}`,
      `/tenants?${"x[y]".repeat(1)}${"[z]".repeat(20)}=1`,
      "/events?limit[]=1",
      "/events?dir[x]=asc",
      "/events?time=2026-01-01",
      "/attempts?status[]=success",
      "/tenants?limit=abc",
      "/tenants?created_at=2026",
      "/events?time[gte]=+275760-09-13T00:00:00Z",
      "/events?time[lte]=2026-02-30",
      "/tenants?created_at[gte]=0000-00-00",
      "/metrics/events?time[start]=-271821-04-20T00:00:00Z&time[end]=2026-01-01T00:00:00Z&measures=count",
      "/metrics/attempts?time[start]=0001-01-01T00:00:00Z&time[end]=9999-12-31T00:00:00Z&measures=count&granularity=1s",
      "/metrics/attempts?time[start]=2026-01-01T00:00:00Z&time[end]=2026-01-02T00:00:00Z&measures[x][y]=count",
    ];
    for (const token of [admin, jwt]) for (const c of cases) await expectAnswer(request("GET", `${OB}${c}`, token), 400, outboundBody(400));
  });

  it("the same filters with ordinary values still answer 200", async () => {
    for (const list of ["/events?topic=x", "/attempts?event_id=evt_x", `/tenants/${tenant}/destinations?type=webhook`, `/tenants?id=${tenant}`]) {
      const a = await send(BASE_URL, request("GET", `${OB}${list}`, admin));
      expect(a.status, `${list}: ${a.body}`).toBe(200);
    }
  });
});

describe("forged outbound cursors → 400 `invalid cursor`, with the admin key and a tenant JWT", () => {
  const FORGED = [
    { t: "2026-01-01T00:00:00.000Z", i: "evt_\u0000" },
    { t: "-271821-04-20T00:00:00.000Z", i: "evt_x" },
    { t: "+275760-09-13T00:00:00.000Z", i: "evt_x" },
    { t: "+010000-01-01T00:00:00.000Z", i: "evt_x" },
    { t: "2026-01-01T00:00:00.000Z", i: "\ud800" },
    { t: "2026-01-01T00:00:00.000Z", i: 5 },
    { t: null, i: "x" },
  ];

  it("on every outbound list, next and prev", async () => {
    for (const token of [admin, jwt]) {
      for (const list of ["/events", "/attempts", "/tenants", `/tenants/${tenant}/destinations/${destination}/attempts`]) {
        for (const c of FORGED) {
          for (const dir of ["next", "prev"])
            await expectAnswer(request("GET", `${OB}${list}?${dir}=${encodeCursor(c)}`, token), 400, { status: 400, message: "invalid cursor" });
        }
      }
    }
  });

  it("gateway cursors of the same classes (prev, U+0000 in the id, year −271821) → 400 in the gateway body", async () => {
    for (const list of ["sources", "events", "attempts", "requests"]) {
      for (const p of [
        { o: "created_at", d: "desc", v: "-271821-04-20T00:00:00.000Z", i: "x" },
        { o: "created_at", d: "desc", v: "2026-01-01T00:00:00.000Z", i: "a\u0000b" },
      ]) {
        await expectAnswer(request("GET", `/api/2025-07-01/${list}?prev=${encodeCursor(p)}`, team.apiKey), 400, gatewayBody(400));
      }
    }
  });
});

describe("metrics names that are built-in object properties → 400 on both products", () => {
  const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

  it("gateway /metrics/{name}: measures, dimensions[] and filters[name]", async () => {
    const range = "date_range[start]=2026-01-01T00:00:00Z&date_range[end]=2026-01-02T00:00:00Z";
    for (const [name, table] of Object.entries(GATEWAY_METRICS)) {
      const measure = Object.keys(table.measures)[0];
      for (const bad of NAMES) {
        for (const q of [
          `measures=${bad}`,
          `measures[]=${bad}`,
          `measures[]=${measure}&dimensions[]=${bad}`,
          `measures[]=${measure}&dimensions=${bad}`,
          `measures[]=${measure}&filters[${bad}]=x`,
        ]) {
          await expectAnswer(request("GET", `/api/2025-07-01/metrics/${name}?${range}&${q}`, team.apiKey), 400, gatewayBody(400));
        }
      }
    }
  });

  it("outbound /metrics/events and /metrics/attempts, admin key and tenant JWT", async () => {
    const range = "time[start]=2026-01-01T00:00:00Z&time[end]=2026-01-02T00:00:00Z";
    for (const token of [admin, jwt]) {
      for (const which of ["events", "attempts"]) {
        for (const bad of NAMES) {
          for (const q of [`measures=${bad}`, `measures[]=${bad}`, `measures=count&dimensions[]=${bad}`, `measures=count&filters[${bad}]=x`]) {
            await expectAnswer(request("GET", `${OB}/metrics/${which}?${range}&${q}`, token), 400, outboundBody(400));
          }
        }
      }
    }
  });
});

describe("request-line errors in the body of the surface addressed", () => {
  it("outbound API (both forms), portal and dashboard: {status, message}", async () => {
    for (const base of [`${OB}/tenants`, "/outbound/2025-07-01/tenants", "/portal/destinations", "/dashboard/api/auth", "/dashboard/events"]) {
      for (const bad of ["%FF", "a%00b", "%ED%A0%80", "%C0%80"]) await expectAnswer(request("GET", `${base}/${bad}`, admin), 404, outboundBody(404));
      for (const m of ["TRACE", "PROPFIND"]) await expectAnswer(request(m, base, admin), 405, outboundBody(405));
    }
    for (const [m, p] of [
      ["POST", "/portal"],
      ["PUT", "/dashboard/events"],
      ["DELETE", "/portal/destinations/new"],
    ])
      await expectAnswer(request(m, p), 405, outboundBody(405));
  });

  it("the dashboard API's own errors: {status, message}", async () => {
    await expectAnswer(request("GET", "/dashboard/api/auth/no-such-action"), 400, outboundBody(400));
    for (const m of ["PUT", "PATCH", "DELETE"]) await expectAnswer(request(m, "/dashboard/api/auth/session"), 405, outboundBody(405));
    for (const p of ["callback/credentials", "callback/link"]) await expectAnswer(request("GET", `/dashboard/api/auth/${p}`), 405, outboundBody(405));
  });

  it("sign-in with U+0000 or an unpaired surrogate in the fields is refused, never a 5xx", async () => {
    for (const bad of ["a\u0000b@example.test", "\ud800@example.test"]) {
      const r = await signInHttp(bad, "a-password-long-enough");
      expect(r.status, bad).toBeLessThan(500);
      expect(r.error, bad).not.toBeNull();
      const link = await signInHttp("", "", undefined, "link", { token: bad, password: "a-password-long-enough" });
      expect(link.status, bad).toBeLessThan(500);
      expect(link.error, bad).not.toBeNull();
    }
  });
});

describe("bodies over the JSON APIs' 1 MiB → 413 in the body of the surface addressed (lib/http/body.ts)", () => {
  const MIB = 1024 * 1024;
  /** POSTs `body` with a Content-Length, or chunked (no length: the reader counts). */
  async function post(path: string, token: string, body: Buffer, chunked: boolean) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < body.length; i += 64 * 1024) c.enqueue(body.subarray(i, i + 64 * 1024));
        c.close();
      },
    });
    const res = await fetch(`${BASE_URL}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-forwarded-for": "10.66.0.2" },
      body: chunked ? stream : body,
      ...(chunked ? { duplex: "half" } : {}),
    } as RequestInit);
    return { status: res.status, json: (await res.json()) as unknown };
  }
  // Valid JSON of exactly `size` bytes.
  const jsonOf = (size: number) => Buffer.from(JSON.stringify({ name: "x".repeat(size - '{"name":""}'.length) }));

  it("gateway: {handled, status, message, data: {limit}, code}; outbound: {status, message}; at the limit the body is read", async () => {
    for (const chunked of [false, true]) {
      expect(await post("/api/2025-07-01/sources", team.apiKey, jsonOf(MIB + 1), chunked), `chunked ${chunked}`).toEqual({
        status: 413,
        json: { handled: true, status: 413, message: "Payload Too Large", data: { limit: MIB }, code: "PAYLOAD_TOO_LARGE" },
      });
      expect(await post(`${OB}/tenants/${tenant}/destinations`, admin, jsonOf(MIB + 1), chunked), `chunked ${chunked}`).toEqual({
        status: 413,
        json: { status: 413, message: "request body too large" },
      });
      // Exactly 1 MiB is read and validated: refused by the schema (422), not for its size.
      expect((await post("/api/2025-07-01/sources", team.apiKey, jsonOf(MIB), chunked)).status, `chunked ${chunked}`).toBe(422);
      expect((await post(`${OB}/tenants/${tenant}/destinations`, admin, jsonOf(MIB), chunked)).status, `chunked ${chunked}`).toBe(422);
    }
  });
});
