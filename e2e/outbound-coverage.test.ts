/**
 * The outbound service's checks not covered elsewhere (docs/outbound.md), against running servers: every row of the
 * spec's error table on the outbound surface (publish included, which server.ts serves with the
 * ingestion limit: its 400, 401, 403, 409, 413 and 422 carry the outbound body `{status, message,
 * data?}`), the managed form's 429, signature rotation as a receiver sees it (webhook and Standard
 * Webhooks), metrics against a known data set (exact values per bucket, empty buckets), and health
 * with a worker made to fail (killed: degraded, 200; none running: failed, 503).
 */
import { createHmac, randomBytes } from "node:crypto";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { outboundCall } from "./support/outbound";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { OPERATOR_HEADERS, privateDatabase, startServer } from "./support/servers";

const run = randomBytes(4).toString("hex");
const T = `cov-${run}`;
const OTHER = `cov-other-${run}`;
let admin = "";
let jwt = "";
let receiver: Receiver;

beforeAll(async () => {
  admin = (await createOutboundKey(`coverage-${run}`)).key;
  receiver = await startReceiver();
  for (const t of [T, OTHER]) expect((await outboundCall(admin, "PUT", `/tenants/${t}`)).status).toBe(201);
  jwt = (await outboundCall(admin, "GET", `/tenants/${T}/token`)).json.token;
});
afterAll(async () => receiver.close());

describe("every error row of the outbound surface", () => {
  it("400: malformed JSON (publish too), bad list parameters", async () => {
    expect(await outboundCall(admin, "POST", "/publish", "{nope")).toMatchObject({ status: 400, json: { status: 400, message: "invalid JSON" } });
    expect(await outboundCall(admin, "POST", `/tenants/${T}/destinations`, "[1,")).toMatchObject({
      status: 400,
      json: { status: 400, message: "invalid JSON" },
    });
    expect(await outboundCall(admin, "GET", "/events?limit=0")).toMatchObject({ status: 400, json: { status: 400 } });
    expect(await outboundCall(admin, "GET", "/attempts?next=a&prev=b")).toMatchObject({
      status: 400,
      json: { status: 400, message: "next and prev cannot be used together" },
    });
    expect(await outboundCall(admin, "GET", "/attempts?status=maybe")).toMatchObject({ status: 400, json: { status: 400 } });
    expect(await outboundCall(admin, "GET", `/tenants/${T}/portal?theme=neon`)).toMatchObject({ status: 400, json: { status: 400 } });
  });

  it("401 and 403 on publish (server.ts's path) have the outbound body, before the body is read", async () => {
    const body = { tenant_id: T, data: { a: 1 } };
    expect(await outboundCall(null, "POST", "/publish", body)).toMatchObject({ status: 401, json: { status: 401, message: "unauthorized" } });
    expect(await outboundCall("hko_not_a_key_at_all_123", "POST", "/publish", body)).toMatchObject({
      status: 401,
      json: { status: 401, message: "unauthorized" },
    });
    expect(await outboundCall(jwt, "POST", "/publish", body)).toMatchObject({ status: 403, json: { status: 403, message: "forbidden" } });
    expect(await outboundCall(jwt, "POST", "/publish", body, { form: "2025-07-01" })).toMatchObject({
      status: 403,
      json: { status: 403, message: "forbidden" },
    });
    // Without credentials, a body far over every limit is still a 401.
    expect((await outboundCall(null, "POST", "/publish", JSON.stringify({ tenant_id: T, data: { pad: "x".repeat(11 * 1024 * 1024) } }))).status).toBe(401);
  });

  it("404 for unknown events, attempts, tenants, destinations and paths", async () => {
    expect(await outboundCall(admin, "GET", "/events/evt_missing")).toMatchObject({ status: 404, json: { status: 404, message: "event not found" } });
    expect(await outboundCall(admin, "GET", "/attempts/atm_missing")).toMatchObject({ status: 404, json: { status: 404, message: "attempt not found" } });
    expect(await outboundCall(admin, "GET", `/tenants/nobody-${run}`)).toMatchObject({ status: 404, json: { status: 404, message: "tenant not found" } });
    expect(await outboundCall(admin, "GET", `/tenants/${T}/destinations/des_missing`)).toMatchObject({
      status: 404,
      json: { status: 404, message: "destination not found" },
    });
    expect(await outboundCall(admin, "GET", `/tenants/${T}/destinations/des_missing/attempts`)).toMatchObject({
      status: 404,
      json: { status: 404, message: "destination not found" },
    });
    expect(await outboundCall(admin, "GET", "/destination-types/carrier_pigeon")).toMatchObject({ status: 404, json: { status: 404 } });
    expect(await outboundCall(admin, "GET", "/nothing/here")).toMatchObject({ status: 404, json: { status: 404, message: "not found" } });
  });

  it("409: an event id another tenant published", async () => {
    const id = `evt-409-${run}`;
    expect((await outboundCall(admin, "POST", "/publish", { id, tenant_id: T, data: {} })).status).toBe(202);
    expect(await outboundCall(admin, "POST", "/publish", { id, tenant_id: OTHER, data: {} })).toMatchObject({
      status: 409,
      json: { status: 409, message: "event id already used by another tenant" },
    });
  });

  it("413 above 1 MiB everywhere but publish, which takes up to INGEST_MAX_BODY_BYTES (10 MiB)", async () => {
    const mib = "x".repeat(1024 * 1024);
    expect(
      await outboundCall(admin, "POST", `/tenants/${T}/destinations`, {
        type: "webhook",
        topics: "*",
        config: { url: "https://example.com" },
        metadata: { pad: mib },
      }),
    ).toMatchObject({
      status: 413,
      json: { status: 413, message: "request body too large" },
    });
    expect(await outboundCall(admin, "POST", "/retry", { event_id: mib, destination_id: "x" })).toMatchObject({ status: 413 });
    const big = await outboundCall(admin, "POST", "/publish", { tenant_id: T, topic: "big", data: { pad: mib + mib } });
    expect(big).toMatchObject({ status: 202, json: { duplicate: false } });
    expect((await outboundCall(admin, "GET", `/events/${big.json.id}`)).json.data.pad).toHaveLength(2 * mib.length);
    const tooBig = await outboundCall(admin, "POST", "/publish", { tenant_id: T, data: { pad: mib.repeat(11) } });
    expect(tooBig).toMatchObject({ status: 413, json: { status: 413, message: "request body too large" } });
  });

  it("422 with an array of messages, on publish too", async () => {
    expect(await outboundCall(admin, "POST", "/publish", { tenant_id: T, data: "text" })).toMatchObject({
      status: 422,
      json: { status: 422, message: "validation error", data: ["data must be a valid JSON object"] },
    });
    expect(await outboundCall(admin, "POST", "/publish", { data: {} })).toMatchObject({ status: 422, json: { data: ["tenant_id is required"] } });
    expect(
      await outboundCall(admin, "POST", `/tenants/${T}/destinations`, { type: "webhook", topics: "*", config: { url: "https://e.com", custom_headers: {} } }),
    ).toMatchObject({
      status: 422,
      json: { status: 422, message: "validation error", data: expect.arrayContaining([expect.stringContaining("custom_headers")]) },
    });
  });

  it("429 on the managed form after 240 requests a minute with one credential, with Retry-After; the self-hosted form has no limit", async () => {
    const key = (await createOutboundKey(`coverage-429-${run}`)).key;
    // The limit counts in fixed minute windows (lib/http/rate-limit.ts): a burst that straddles a minute's
    // end would be counted in two windows, so it starts at the beginning of a minute when this one is late.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(...(await Promise.all(Array.from({ length: 41 }, () => outboundCall(key, "GET", "/topics", undefined, { form: "2025-07-01" })))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(240);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.json).toEqual({ status: 429, message: "rate limit exceeded" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await outboundCall(key, "GET", "/topics")).status).toBe(200);
  }, 60_000);
});

describe("signature rotation, as a receiver sees it", () => {
  it("webhook: after rotate_secret a delivery carries v0=<new>,<old>, each the HMAC of the raw body", async () => {
    const created = await outboundCall(admin, "POST", `/tenants/${T}/destinations`, {
      type: "webhook",
      topics: ["rot.wh"],
      config: { url: `${receiver.url}/rot-wh-${run}` },
    });
    expect(created.status).toBe(201);
    const old = created.json.credentials.secret as string;
    const rotated = await outboundCall(admin, "PATCH", `/tenants/${T}/destinations/${created.json.id}`, { credentials: { rotate_secret: true } });
    expect(rotated.json.credentials.previous_secret).toBe(old);
    const fresh = rotated.json.credentials.secret as string;
    expect(fresh).not.toBe(old);
    await outboundCall(admin, "POST", "/publish", { tenant_id: T, topic: "rot.wh", data: { rotated: true } });
    const got = await eventually(() => receiver.received.find((r) => r.url === `/rot-wh-${run}`));
    const hmac = (secret: string) => createHmac("sha256", secret).update(got.body).digest("hex");
    expect(got.headers["x-outbound-signature"]).toBe(`v0=${hmac(fresh)},${hmac(old)}`);
  });

  it("Standard Webhooks: after rotate_secret both the new and the previous secret verify the delivery", async () => {
    const created = await outboundCall(admin, "POST", `/tenants/${T}/destinations`, {
      type: "standard_webhook",
      topics: ["rot.sw"],
      config: { url: `${receiver.url}/rot-sw-${run}` },
    });
    const old = created.json.credentials.secret as string;
    const rotated = await outboundCall(admin, "PATCH", `/tenants/${T}/destinations/${created.json.id}`, { credentials: { rotate_secret: true } });
    const fresh = rotated.json.credentials.secret as string;
    await outboundCall(admin, "POST", "/publish", { tenant_id: T, topic: "rot.sw", data: { rotated: "sw" } });
    const got = await eventually(() => receiver.received.find((r) => r.url === `/rot-sw-${run}`));
    const headers = {
      "webhook-id": String(got.headers["webhook-id"]),
      "webhook-timestamp": String(got.headers["webhook-timestamp"]),
      "webhook-signature": String(got.headers["webhook-signature"]),
    };
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(fresh).verify(got.body.toString("utf8"), headers)).toEqual({ rotated: "sw" });
    expect(new Webhook(old).verify(got.body.toString("utf8"), headers)).toEqual({ rotated: "sw" });
    expect(() => new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(got.body.toString("utf8"), headers)).toThrow();
  });
});

describe("metrics against a known data set", () => {
  it("attempt and event measures per hour bucket have exact values; empty buckets count 0 with null latencies", async () => {
    const M = `known-${run}`;
    const t0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 5 * 3_600_000;
    const at = (min: number) => new Date(t0 + min * 60_000);
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const attempts: [number, string, number, boolean, number, string][] = [
        // minute, status, attempt_number, manual, latency ms, destination
        [1, "success", 0, false, 10, "des_a"],
        [2, "failed", 0, false, 20, "des_a"],
        [3, "success", 1, false, 30, "des_b"],
        [70, "success", 2, true, 40, "des_b"],
      ];
      for (const [i, [min, status, n, manual, latency, dest]] of attempts.entries()) {
        await db.query(
          "INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, latency_ms, time) VALUES ($1, $2, $3, $4, 'webhook', 't', $5, $6, $7, $8, $9, $10)",
          [`atm_known_${run}_${i}`, `evt_known_${run}`, M, dest, status, status === "success" ? "200" : "500", n, manual, latency, at(min)],
        );
      }
      for (const [i, min] of [0, 1, 65].entries()) {
        await db.query(
          "INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, data, matched_destination_ids) VALUES ($1, $2, 't', $3, true, '\\x7b7d', $4)",
          [`evt_known_${run}_${i}`, M, at(min), i === 2 ? [] : ["des_a", "des_b"]],
        );
      }
    } finally {
      await db.end();
    }
    const range = `time[start]=${at(0).toISOString()}&time[end]=${at(180).toISOString()}&granularity=1h&filters[tenant_id]=${M}`;
    const measures = [
      "count",
      "successful_count",
      "failed_count",
      "error_rate",
      "first_attempt_count",
      "retry_count",
      "manual_retry_count",
      "avg_attempt_number",
      "avg_latency",
      "p50_latency",
    ]
      .map((m) => `measures=${m}`)
      .join("&");
    const a = await outboundCall(admin, "GET", `/metrics/attempts?${range}&${measures}`);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.data).toEqual([
      {
        time_bucket: at(0).toISOString(),
        metrics: {
          count: 3,
          successful_count: 2,
          failed_count: 1,
          error_rate: 1 / 3,
          first_attempt_count: 2,
          retry_count: 1,
          manual_retry_count: 0,
          avg_attempt_number: 1 / 3,
          avg_latency: 20,
          p50_latency: 20,
        },
      },
      {
        time_bucket: at(60).toISOString(),
        metrics: {
          count: 1,
          successful_count: 1,
          failed_count: 0,
          error_rate: 0,
          first_attempt_count: 0,
          retry_count: 1,
          manual_retry_count: 1,
          avg_attempt_number: 2,
          avg_latency: 40,
          p50_latency: 40,
        },
      },
      {
        time_bucket: at(120).toISOString(),
        metrics: {
          count: 0,
          successful_count: 0,
          failed_count: 0,
          error_rate: 0,
          first_attempt_count: 0,
          retry_count: 0,
          manual_retry_count: 0,
          avg_attempt_number: null,
          avg_latency: null,
          p50_latency: null,
        },
      },
    ]);
    const byDestination = await outboundCall(
      admin,
      "GET",
      `/metrics/attempts?time[start]=${at(0).toISOString()}&time[end]=${at(180).toISOString()}&filters[tenant_id]=${M}&measures=count&measures=failed_count&dimensions=destination_id`,
    );
    expect(byDestination.json.data).toEqual([
      { dimensions: { destination_id: "des_a" }, metrics: { count: 2, failed_count: 1 } },
      { dimensions: { destination_id: "des_b" }, metrics: { count: 2, failed_count: 0 } },
    ]);
    const e = await outboundCall(admin, "GET", `/metrics/events?${range}&measures=count`);
    expect(e.json.data.map((r: { metrics: { count: number } }) => r.metrics.count)).toEqual([2, 1, 0]);
    const perDestination = await outboundCall(
      admin,
      "GET",
      `/metrics/events?time[start]=${at(0).toISOString()}&time[end]=${at(180).toISOString()}&filters[tenant_id]=${M}&measures=count&dimensions=destination_id`,
    );
    expect(perDestination.json.data).toEqual(
      expect.arrayContaining([
        { dimensions: { destination_id: "des_a" }, metrics: { count: 2 } },
        { dimensions: { destination_id: "des_b" }, metrics: { count: 2 } },
      ]),
    );
  });
});

describe("health with a worker made to fail (servers of their own)", () => {
  it("a killed worker is degraded (200) while it restarts, then healthy; with no worker running the answer is failed, 503, without details", async () => {
    const db = await privateDatabase("ob_health");
    const server = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn" });
    try {
      const health = async () => {
        const res = await fetch(`${server.url}/outbound/api/v1/healthz`);
        return { status: res.status, json: (await res.json()) as { status: string; workers: Record<string, { status: string }> } };
      };
      await eventually(async () => (await health()).json.status === "healthy");
      const parts = (await (await fetch(`${server.url}/healthz`, { headers: OPERATOR_HEADERS })).json()) as { parts: { worker: { pid: number } } };
      process.kill(parts.parts.worker.pid, "SIGKILL");
      const degraded = await eventually(
        async () => {
          const h = await health();
          return h.json.status === "degraded" ? h : undefined;
        },
        10_000,
        20,
      );
      expect(degraded).toMatchObject({
        status: 200,
        json: {
          status: "degraded",
          workers: { "http-server": { status: "healthy" }, "delivery-worker": { status: "degraded" }, "retry-scheduler": { status: "degraded" } },
        },
      });
      await eventually(async () => (await health()).json.status === "healthy", 30_000);
    } finally {
      await server.stop();
    }
    const webOnly = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: "warn", WORKER_ENABLED: "false" });
    try {
      const res = await fetch(`${webOnly.url}/outbound/api/v1/healthz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["status", "timestamp", "workers"]);
      expect(body).toMatchObject({
        status: "failed",
        workers: { "http-server": { status: "healthy" }, "delivery-worker": { status: "failed" }, "retry-scheduler": { status: "failed" } },
      });
    } finally {
      await webOnly.stop();
      await db.drop();
    }
  }, 120_000);
});
