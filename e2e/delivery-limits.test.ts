/**
 * Receiver-driven limits and circuit breakers (docs/pipeline.md "Receiver-driven limits", docs/outbound.md
 * "Receiver-driven limits") against the running servers (two workers compete), with real sinks started
 * here that answer 429/503 with Retry-After (seconds and HTTP date), 429 without, and fail on demand.
 * Settings are the defaults: breaker at 50 % of at least 10 attempts, first cool-down 5 s; pace halved
 * after 3 429s; Retry-After capped at 1 h.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { attemptsOf, connectionTo, eventsIn, send } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
const run = randomBytes(4).toString("hex");
let receiver: Receiver;
let team: TestTeam;
let other: TestTeam;
/** Answers by path prefix; the default is 200. */
const answers = new Map<string, (index: number) => { status: number; headers?: Record<string, string> }>();
const arrivals = (path: string) => receiver.received.filter((r) => r.url.startsWith(path));

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond((req) => {
    for (const [prefix, fn] of answers) if (req.url.startsWith(prefix)) return { body: "x", ...fn(arrivals(prefix).length - 1) };
    return { status: 200, body: "ok" };
  });
  [team, other] = await Promise.all([newTeam(`limits-${run}`), newTeam(`limits-other-${run}`)]);
});
afterAll(async () => receiver.close());

/** A gateway destination's `delivery_state` (absent until something happened to it: then all clear). */
const deliveryState = async (t: TestTeam, id: string) => {
  const res = await api(t, "GET", `${V}/destinations/${id}`);
  expect(res.status).toBe(200);
  return res.json.delivery_state ?? { paused_until: null, pace: null, circuit: { state: "closed" } };
};

/**
 * Keeps a healthy destination of the same team and one of another team busy for `ms` (and for at least
 * `minimum` pairs of events, however slow the machine), then waits until every event sent arrived; returns
 * how many pairs were sent and their arrival times.
 */
async function healthyMeanwhile(ms: number, minimum = 0) {
  const mine = await connectionTo(team, receiver);
  const theirs = await connectionTo(other, receiver);
  const end = Date.now() + ms;
  let sent = 0;
  while (Date.now() < end || sent < minimum) {
    await Promise.all([send(mine.source.url, { n: sent }), send(theirs.source.url, { n: sent })]);
    sent++;
    await new Promise((r) => setTimeout(r, 200));
  }
  await eventually(() => arrivals(`/${mine.tag}`).length === sent && arrivals(`/${theirs.tag}`).length === sent, 10_000);
  return { sent, at: [...arrivals(`/${mine.tag}`), ...arrivals(`/${theirs.tag}`)].map((r) => r.at) };
}

describe("gateway: Retry-After", () => {
  it.concurrent(
    "429 with Retry-After in seconds pauses the destination; the event comes back after it without spending a retry; others keep delivering",
    async () => {
      const conn = await connectionTo(team, receiver);
      answers.set(`/${conn.tag}`, (i) => (i === 0 ? { status: 429, headers: { "retry-after": "2" } } : { status: 200 }));
      const { requestId } = await send(conn.source.url, { paused: true });
      const first = await eventually(() => arrivals(`/${conn.tag}`)[0]);
      const state = await eventually(async () => {
        const s = await deliveryState(team, conn.destination.id);
        return s.paused_until ? s : null;
      }, 5_000);
      expect(state.pause_reason).toBe("429");
      expect(Date.parse(state.paused_until) - first.at).toBeGreaterThan(1_000);
      expect(Date.parse(state.paused_until) - first.at).toBeLessThan(3_500);
      // Other destinations (this team's and another team's) deliver during the pause.
      const healthy = await healthyMeanwhile(1_200);
      expect(healthy.at.filter((t) => t < first.at + 2_000).length).toBeGreaterThanOrEqual(2);
      const [event] = await eventsIn(requestId, ["SUCCESSFUL"], 1, 15_000);
      const second = arrivals(`/${conn.tag}`)[1];
      expect(second.at - first.at).toBeGreaterThanOrEqual(1_900);
      expect(second.at - first.at).toBeLessThan(6_000);
      // No retry rule: a failed attempt would have been final. One attempt, recorded once: the 2xx.
      const attempts = await attemptsOf(event.id);
      expect(attempts.map((a) => [a.attempt_number, a.status, a.response_status])).toEqual([[1, "SUCCESSFUL", 200]]);
      expect(arrivals(`/${conn.tag}`)).toHaveLength(2);
    },
    30_000,
  );

  it.concurrent(
    "503 with Retry-After as an HTTP date pauses until that date",
    async () => {
      const conn = await connectionTo(team, receiver);
      answers.set(`/${conn.tag}`, (i) => (i === 0 ? { status: 503, headers: { "retry-after": new Date(Date.now() + 3_000).toUTCString() } } : { status: 200 }));
      const { requestId } = await send(conn.source.url);
      const [event] = await eventsIn(requestId, ["SUCCESSFUL"], 1, 15_000);
      const [first, second] = arrivals(`/${conn.tag}`);
      // An HTTP date has whole seconds: the pause is 2 to 3 s.
      expect(second.at - first.at).toBeGreaterThanOrEqual(1_900);
      expect(second.at - first.at).toBeLessThan(7_000);
      expect((await attemptsOf(event.id)).map((a) => a.status)).toEqual(["SUCCESSFUL"]);
    },
    30_000,
  );

  it.concurrent(
    "a Retry-After beyond DELIVERY_RETRY_AFTER_MAX_MS is capped (1 h)",
    async () => {
      const conn = await connectionTo(team, receiver);
      answers.set(`/${conn.tag}`, () => ({ status: 429, headers: { "retry-after": "999999999" } }));
      await send(conn.source.url);
      const state = await eventually(async () => {
        const s = await deliveryState(team, conn.destination.id);
        return s.paused_until ? s : null;
      }, 10_000);
      const pause = Date.parse(state.paused_until) - Date.now();
      expect(pause).toBeGreaterThan(3_590_000);
      expect(pause).toBeLessThanOrEqual(3_600_000);
    },
    30_000,
  );
});

describe("gateway: adaptive pace", () => {
  it.concurrent(
    "429s without Retry-After halve the destination's pace, shown in the API; good answers raise it again",
    async () => {
      const conn = await connectionTo(team, receiver);
      let throttle = true;
      answers.set(`/${conn.tag}`, () => (throttle ? { status: 429 } : { status: 200 }));
      for (let i = 0; i < 4; i++) await send(conn.source.url, { i });
      const slowed = await eventually(async () => {
        const s = await deliveryState(team, conn.destination.id);
        return s.pace ? s : null;
      }, 10_000);
      expect(slowed.pace).toBeGreaterThanOrEqual(1);
      expect(slowed.paused_until).toBeNull();
      // A 429 without Retry-After is an ordinary failed attempt (no retry rule: final).
      throttle = false;
      const start = Date.now();
      // Good answers for a recovery interval (5 s) raise the pace by half, then back to unlimited.
      let raised = false;
      while (!raised && Date.now() - start < 20_000) {
        await send(conn.source.url, { good: true });
        await new Promise((r) => setTimeout(r, 300));
        const s = await deliveryState(team, conn.destination.id);
        raised = s.pace === null || s.pace > slowed.pace;
      }
      expect(raised).toBe(true);
    },
    40_000,
  );
});

describe("gateway: circuit breaker", () => {
  it.concurrent(
    "opens after failures, events wait without spending retries, a probe after the cool-down closes it; another destination is unaffected",
    async () => {
      const conn = await connectionTo(team, receiver);
      let failing = true;
      answers.set(`/${conn.tag}`, () => ({ status: failing ? 500 : 200 }));
      const trigger = await api(team, "POST", `${V}/issue-triggers`, { type: "backpressure", configs: { delay: 60_000, destinations: [conn.destination.id] } });
      expect(trigger.status, JSON.stringify(trigger.json)).toBe(200);
      for (let i = 0; i < 10; i++) await send(conn.source.url, { i });
      await eventually(() => arrivals(`/${conn.tag}`).length >= 10, 15_000);
      const open = await eventually(async () => {
        const s = await deliveryState(team, conn.destination.id);
        return s.circuit.state === "open" ? s : null;
      }, 5_000);
      expect(Date.parse(open.circuit.next_probe_at) - Date.parse(open.circuit.changed_at)).toBe(5_000);
      // While open (every worker knows within 1 s, its cache's greatest age): a new event is not sent, and spends nothing.
      await new Promise((r) => setTimeout(r, 1_100));
      const before = arrivals(`/${conn.tag}`).length;
      const { requestId } = await send(conn.source.url, { waits: true });
      const healthy = await healthyMeanwhile(1_500, 5);
      expect(healthy.at).toHaveLength(2 * healthy.sent);
      const [waiting] = await eventsIn(requestId, ["QUEUED"], 1, 5_000);
      expect(waiting.attempts).toBe(0);
      expect(arrivals(`/${conn.tag}`).length).toBe(before);
      // The gateway issue of the destination says the circuit opened.
      const issue = await eventually(async () => {
        const res = await api(team, "GET", `${V}/issues?issue_trigger_id=${trigger.json.id}`);
        return res.json.models?.[0];
      }, 10_000);
      expect(issue.reference).toMatchObject({ destination_id: conn.destination.id, circuit: { state: "open" } });
      // The receiver recovers; after the cool-down one probe goes (the waiting event) and closes the circuit.
      failing = false;
      const [event] = await eventsIn(requestId, ["SUCCESSFUL"], 1, 15_000);
      const probeAt = arrivals(`/${conn.tag}`)[before].at;
      expect(probeAt).toBeGreaterThanOrEqual(Date.parse(open.circuit.next_probe_at) - 50);
      expect((await attemptsOf(event.id)).map((a) => [a.attempt_number, a.status])).toEqual([[1, "SUCCESSFUL"]]);
      const closed = await eventually(async () => {
        const s = await deliveryState(team, conn.destination.id);
        return s.circuit.state === "closed" ? s : null;
      }, 5_000);
      expect(closed.circuit.next_probe_at).toBeNull();
    },
    45_000,
  );
});

describe("outbound", () => {
  let admin = "";
  const T = `limits-${run}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${BASE_URL}/outbound/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const destination = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await call("POST", `/tenants/${T}/destinations`, { type: "webhook", topics: [path], config: { url: `${receiver.url}/${path}` }, ...extra });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json as { id: string; rate_limit: number | null; rate_limit_period: string | null };
  };
  const publish = (topic: string, data: unknown = {}) => call("POST", "/publish", { tenant_id: T, topic, data, eligible_for_retry: false });
  const attemptsFor = async (eventId: string) =>
    (await call("GET", `/attempts?event_id=${eventId}&dir=asc`)).json.models as { attempt_number: number; status: string }[];
  const stateOf = async (id: string) =>
    (await call("GET", `/tenants/${T}/destinations/${id}`)).json.delivery_state ?? { paused_until: null, pace: null, circuit: { state: "closed" } };

  beforeAll(async () => {
    admin = (await createOutboundKey(`limits-${run}`)).key;
    expect((await call("PUT", `/tenants/${T}`)).status).toBeLessThan(300);
  });

  it.concurrent(
    "rate_limit and rate_limit_period: stored, shown, validated, and held across workers",
    async () => {
      const path = `ob-rl-${run}`;
      const d = await destination(path, { rate_limit: 2, rate_limit_period: "second" });
      expect(d).toMatchObject({ rate_limit: 2, rate_limit_period: "second" });
      expect((await call("PATCH", `/tenants/${T}/destinations/${d.id}`, { rate_limit_period: "minute" })).json.rate_limit_period).toBe("minute");
      expect((await call("PATCH", `/tenants/${T}/destinations/${d.id}`, { rate_limit_period: "second" })).json.rate_limit_period).toBe("second");
      expect((await call("POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["x"], config: { url: receiver.url }, rate_limit: 0 })).status).toBe(
        422,
      );
      expect(
        (await call("POST", `/tenants/${T}/destinations`, { type: "webhook", topics: ["x"], config: { url: receiver.url }, rate_limit_period: "hour" })).status,
      ).toBe(422);
      for (let i = 0; i < 6; i++) expect((await publish(path, { i })).status).toBe(202);
      await eventually(() => arrivals(`/${path}`).length === 6, 15_000);
      const perSecond = new Map<number, number>();
      for (const r of arrivals(`/${path}`)) perSecond.set(Math.floor(r.at / 1000), (perSecond.get(Math.floor(r.at / 1000)) ?? 0) + 1);
      // 6 deliveries at 2 per second need three windows.
      expect(perSecond.size).toBeGreaterThanOrEqual(3);
      const times = arrivals(`/${path}`).map((r) => r.at);
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1_000);
      const cleared = await call("PATCH", `/tenants/${T}/destinations/${d.id}`, { rate_limit: null });
      expect(cleared.status).toBe(200);
      expect(cleared.json).not.toHaveProperty("rate_limit");
      expect(cleared.json).not.toHaveProperty("rate_limit_period");
    },
    30_000,
  );

  it.concurrent(
    "429 with Retry-After pauses the destination and the delivery comes back as the same attempt number",
    async () => {
      const path = `ob-ra-${run}`;
      const okPath = `ob-ok-${run}`;
      const d = await destination(path);
      await destination(okPath);
      answers.set(`/${path}`, (i) => (i === 0 ? { status: 429, headers: { "retry-after": "2" } } : { status: 200 }));
      const p = await publish(path);
      const first = await eventually(() => arrivals(`/${path}`)[0]);
      const state = await eventually(async () => {
        const s = await stateOf(d.id);
        return s.paused_until ? s : null;
      }, 5_000);
      expect(state.pause_reason).toBe("429");
      for (let i = 0; i < 3; i++) await publish(okPath, { i });
      await eventually(() => arrivals(`/${okPath}`).length === 3, 5_000);
      expect(Math.max(...arrivals(`/${okPath}`).map((r) => r.at))).toBeLessThan(first.at + 2_000);
      const attempts = await eventually(async () => {
        const a = await attemptsFor(p.json.id);
        return a.length ? a : null;
      }, 15_000);
      expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([[0, "success"]]);
      expect(arrivals(`/${path}`)[1].at - first.at).toBeGreaterThanOrEqual(1_900);
    },
    30_000,
  );

  it.concurrent(
    "the circuit breaker opens, holds deliveries without attempts, and a probe closes it",
    async () => {
      const path = `ob-cb-${run}`;
      const d = await destination(path);
      let failing = true;
      answers.set(`/${path}`, () => ({ status: failing ? 500 : 200 }));
      for (let i = 0; i < 10; i++) await publish(path, { i });
      await eventually(() => arrivals(`/${path}`).length >= 10, 15_000);
      const open = await eventually(async () => {
        const s = await stateOf(d.id);
        return s.circuit.state === "open" ? s : null;
      }, 5_000);
      // Every worker knows within 1 s (its cache's greatest age).
      await new Promise((r) => setTimeout(r, 1_100));
      const before = arrivals(`/${path}`).length;
      const p = await publish(path, { waits: true });
      await new Promise((r) => setTimeout(r, 1_500));
      expect(arrivals(`/${path}`).length).toBe(before);
      expect(await attemptsFor(p.json.id)).toEqual([]);
      failing = false;
      const attempts = await eventually(async () => {
        const a = await attemptsFor(p.json.id);
        return a.length ? a : null;
      }, 15_000);
      expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([[0, "success"]]);
      expect(arrivals(`/${path}`)[before].at).toBeGreaterThanOrEqual(Date.parse(open.circuit.next_probe_at) - 50);
      await eventually(async () => (await stateOf(d.id)).circuit.state === "closed", 5_000);
    },
    45_000,
  );
});
