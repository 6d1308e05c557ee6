/**
 * Delivery health (docs/outbound.md "Delivery health") against the running server: `include=health` on the
 * tenant list and a tenant's destinations (failure rate and last failure over the last day), the tenant
 * list's `search`, the cross-tenant `GET /destination-health`, and the gateway destination type not offered
 * to a tenant JWT (OUTBOUND_TENANT_GATEWAY_TYPE off); a portal exchange inside a frame keeps the Strict
 * cookie while PORTAL_FRAME_ANCESTORS is empty.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool, getPool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { outboundCall as call } from "./support/outbound";

const run = randomBytes(4).toString("hex");
const SICK = `Health-Sick-${run}`;
const WELL = `health-well-${run}`;
let admin = "";
let sickDest = "";
let wellDest = "";
let quietDest = "";

/** `total` attempts of `destination` over the last hour, the first `failed` of them failed with code 503 (the newest failure `failedAt`). */
async function seed(tenant: string, destination: string, total: number, failed: number) {
  await getPool().query(
    `INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, time)
     SELECT 'atm_h' || $5 || '_' || $2 || '_' || g, 'evt_h' || g, $1, $2, 'webhook', 't',
            CASE WHEN g <= $4 THEN 'failed' ELSE 'success' END, CASE WHEN g <= $4 THEN '503' ELSE '200' END, 0, false,
            now() - interval '50 minutes' + g * interval '1 second'
       FROM generate_series(1, $3) g`,
    [tenant, destination, total, failed, run],
  );
}

beforeAll(async () => {
  admin = (await createOutboundKey(`health-${run}`)).key;
  for (const t of [SICK, WELL]) expect((await call(admin, "PUT", `/tenants/${t}`)).status).toBe(201);
  const add = async (t: string) =>
    (await call(admin, "POST", `/tenants/${t}/destinations`, { type: "webhook", topics: "*", config: { url: "https://example.com/h" } })).json.id as string;
  sickDest = await add(SICK);
  quietDest = await add(SICK);
  wellDest = await add(WELL);
  await seed(SICK, sickDest, 717, 407);
  await seed(WELL, wellDest, 10, 0);
  // An attempt older than the window counts for nothing.
  await getPool().query(
    `INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, time)
     VALUES ($1, 'evt_old', $2, $3, 'webhook', 't', 'failed', '500', 0, false, now() - interval '30 hours')`,
    [`atm_hold_${run}`, WELL, wellDest],
  );
});

afterAll(async () => {
  await closePool();
});

describe("include=health", () => {
  it("the tenant list: failure rate and last failure of the last day; without include nothing changes", async () => {
    const r = await call(admin, "GET", `/tenants?id=${SICK}&id=${WELL}&include=health`);
    expect(r.status).toBe(200);
    const by = Object.fromEntries(r.json.models.map((t: { id: string }) => [t.id, t]));
    expect(by[SICK].health).toMatchObject({ window_hours: 24, attempts: 717, failed: 407, failure_rate: 0.5676, last_failure_code: "503" });
    // The 407th attempt is the newest failure: 50 minutes ago plus 407 seconds.
    const last = Date.parse(by[SICK].health.last_failure_at);
    expect(Math.abs(Date.now() - 50 * 60_000 + 407_000 - last)).toBeLessThan(10 * 60_000);
    expect(by[WELL].health).toEqual({ window_hours: 24, attempts: 10, failed: 0, failure_rate: 0, last_failure_at: null, last_failure_code: null });
    const plain = await call(admin, "GET", `/tenants?id=${SICK}`);
    expect(plain.json.models[0]).not.toHaveProperty("health");
  });

  it("a tenant's destinations, with its JWT too: each its own counts and failures in a row", async () => {
    const jwt = (await call(admin, "GET", `/tenants/${SICK}/token`)).json.token as string;
    for (const cred of [admin, jwt]) {
      const r = await call(cred, "GET", `/tenants/${SICK}/destinations?include=health`);
      expect(r.status).toBe(200);
      const by = Object.fromEntries(r.json.map((d: { id: string }) => [d.id, d]));
      expect(by[sickDest].health).toMatchObject({ attempts: 717, failed: 407, failure_rate: 0.5676, consecutive_failures: 0 });
      expect(by[quietDest].health).toEqual({
        window_hours: 24,
        attempts: 0,
        failed: 0,
        failure_rate: null,
        last_failure_at: null,
        last_failure_code: null,
        consecutive_failures: 0,
      });
    }
    expect((await call(admin, "GET", `/tenants/${SICK}/destinations`)).json[0]).not.toHaveProperty("health");
    expect((await call(admin, "GET", `/tenants/${SICK}/destinations?include[x][y]=1`)).status).toBe(400);
  });
});

describe("search and the cross-tenant view", () => {
  it("search matches a case-insensitive part of the id", async () => {
    const r = await call(admin, "GET", `/tenants?search=${encodeURIComponent(`sick-${run}`)}`);
    expect(r.status).toBe(200);
    expect(r.json.models.map((t: { id: string }) => t.id)).toEqual([SICK]);
    expect(r.json.count).toBe(1);
    expect((await call(admin, "GET", `/tenants?search=${run}`)).json.count).toBe(2);
  });

  it("GET /destination-health lists failing destinations of every tenant, most failures first; admin key only", async () => {
    const r = await call(admin, "GET", "/destination-health?limit=100");
    expect(r.status).toBe(200);
    const row = r.json.models.find((m: { destination_id: string }) => m.destination_id === sickDest);
    expect(row).toMatchObject({
      tenant_id: SICK,
      destination: { type: "webhook", target: "https://example.com/h", disabled_at: null },
      health: { attempts: 717, failed: 407 },
    });
    const failed = r.json.models.map((m: { health: { failed: number } }) => m.health.failed);
    expect(failed).toEqual([...failed].sort((a, b) => b - a));
    expect(r.json.models.some((m: { destination_id: string }) => m.destination_id === wellDest)).toBe(false);
    expect((await call(admin, "GET", "/destination-health?limit=0")).status).toBe(400);
    const jwt = (await call(admin, "GET", `/tenants/${SICK}/token`)).json.token as string;
    expect((await call(jwt, "GET", "/destination-health")).status).toBe(403);
  });
});

describe("the gateway destination type and tenants", () => {
  it("is listed to the admin key but not to a tenant JWT", async () => {
    const jwt = (await call(admin, "GET", `/tenants/${WELL}/token`)).json.token as string;
    const types = (cred: string) => call(cred, "GET", "/destination-types").then((r) => r.json.map((t: { type: string }) => t.type));
    expect(await types(admin)).toContain("gateway");
    const forTenant = await types(jwt);
    expect(forTenant).toContain("webhook");
    expect(forTenant).not.toContain("gateway");
    expect((await call(jwt, "GET", "/destination-types/gateway")).status).toBe(404);
    expect((await call(admin, "GET", "/destination-types/gateway")).status).toBe(200);
  });
});

describe("the portal inside a frame without PORTAL_FRAME_ANCESTORS", () => {
  it("keeps the SameSite=Strict cookie (no partitioned cookie unless the operator allows embedding)", async () => {
    const url = (await call(admin, "GET", `/tenants/${WELL}/portal`)).json.redirect_url as string;
    const enter = new URL(url);
    enter.pathname = "/portal/enter";
    const res = await fetch(enter, { redirect: "manual", headers: { "sec-fetch-dest": "iframe" } });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("hy_portal="))!;
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toMatch(/Partitioned/i);
  });
});
