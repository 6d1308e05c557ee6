/**
 * Delivery to destinations (docs/pipeline.md#what-a-destination-receives,
 * docs/pipeline.md#destination-auth-configauth_type-configauth, docs/pipeline.md#events-and-attempts): each auth type, the
 * signature with a rolled secret, method override and path forwarding, MOCK_API, rate-limit spacing,
 * network failures classified, refused addresses, and the publish endpoint.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSigningSecrets, rotateSigningSecret } from "@/lib/teams/signing-secret";
import { BASE_URL, db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";
import { attemptsOf, connectionTo, eventsIn, receivedBy, requestRow, send } from "./support/pipeline";
import { type Receiver, startReceiver } from "./support/receiver";
import { freePort } from "./support/servers";

let team: TestTeam;
let receiver: Receiver;
beforeAll(async () => {
  team = await newTeam("delivery");
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());
const hmac = (secret: string, body: Buffer, enc: "base64" | "hex" = "base64") => createHmac("sha256", secret).update(body).digest(enc);

describe("destination auth", () => {
  const cases: [string, Record<string, unknown>, (h: Record<string, string | string[] | undefined>, url: string, body: Buffer) => void][] = [
    ["BASIC_AUTH", { username: "user", password: "p@ss" }, (h) => expect(h.authorization).toBe(`Basic ${Buffer.from("user:p@ss").toString("base64")}`)],
    ["BEARER_TOKEN", { token: "tok-123" }, (h) => expect(h.authorization).toBe("Bearer tok-123")],
    ["API_KEY", { key: "X-Api-Key", api_key: "k-1", to: "header" }, (h) => expect(h["x-api-key"]).toBe("k-1")],
    ["API_KEY", { key: "api_key", api_key: "k 2", to: "query" }, (_h, url) => expect(new URL(url, "http://x").searchParams.get("api_key")).toBe("k 2")],
    [
      "CUSTOM_SIGNATURE",
      { key: "X-My-Signature", signing_secret: "whsec-custom" },
      (h, _u, body) => expect(h["x-my-signature"]).toBe(hmac("whsec-custom", body)),
    ],
    ["GATEWAY_SIGNATURE", {}, (h) => expect(h.authorization).toBeUndefined()],
  ];
  for (const [authType, auth, check] of cases) {
    it(`${authType} ${JSON.stringify(auth)} is applied, and the gateway signature is always there`, async () => {
      const c = await connectionTo(team, receiver, {
        destination: { config: { url: `${receiver.url}/auth-${authType}-${Object.keys(auth).length}-${Date.now()}`, auth_type: authType, auth } },
      });
      const sent = await send(c.source.url, { auth: authType });
      await eventsIn(sent.requestId, ["SUCCESSFUL"]);
      const got = receiver.received.find((r) => r.headers["x-gateway-request-id"] === sent.requestId)!;
      check(got.headers, got.url, got.body);
      expect(got.headers["x-gateway-signature"]).toBe(hmac(team.signingSecret, got.body));
    });
  }
});

describe("signature and request shape", () => {
  it("carries x-gateway-signature-2 with the previous secret while a rolled secret is active", async () => {
    const own = await newTeam("rolled");
    const { secret } = await rotateSigningSecret(own.teamId, 60_000);
    const c = await connectionTo(own, receiver);
    const sent = await send(c.source.url, "raw body, not JSON");
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    expect(got.headers["x-gateway-signature"]).toBe(hmac(secret, got.body));
    expect(got.headers["x-gateway-signature-2"]).toBe(hmac(own.signingSecret, got.body));
  });

  it("CUSTOM_SIGNATURE: a new secret with rotate_secret_overlap_seconds keeps the old one signing {key}-2 until the overlap ends; 0 ends it at once", async () => {
    const c = await connectionTo(team, receiver, {
      destination: {
        config: { url: `${receiver.url}/rot-${Date.now()}`, auth_type: "CUSTOM_SIGNATURE", auth: { key: "X-Sig", signing_secret: "old-secret" } },
      },
    });
    const dest = `/2025-07-01/destinations/${c.destination.id}`;
    const headersOf = async (body: string) => {
      const sent = await send(c.source.url, body);
      await eventsIn(sent.requestId, ["SUCCESSFUL"]);
      const got = receiver.received.find((r) => r.headers["x-gateway-request-id"] === sent.requestId)!;
      return { sig: got.headers["x-sig"], sig2: got.headers["x-sig-2"], body: got.body };
    };
    const before = await headersOf("before");
    expect([before.sig, before.sig2]).toEqual([hmac("old-secret", before.body), undefined]);

    const rotatedAt = Date.now();
    const put = (auth: Record<string, unknown>) => api(team, "PUT", dest, { config: { auth_type: "CUSTOM_SIGNATURE", auth } });
    const rotated = await put({ key: "X-Sig", signing_secret: "new-secret", rotate_secret_overlap_seconds: 3600 });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    const read = (await api(team, "GET", `${dest}?include=config.auth`)).json.config.auth;
    expect(read).toMatchObject({ key: "X-Sig", signing_secret: "new-secret", previous_signing_secret: "old-secret" });
    expect(read).not.toHaveProperty("rotate_secret_overlap_seconds");
    expect(Date.parse(read.previous_signing_secret_invalid_at) - rotatedAt).toBeGreaterThanOrEqual(3_595_000);
    expect(Date.parse(read.previous_signing_secret_invalid_at) - rotatedAt).toBeLessThanOrEqual(3_600_000 + 60_000);
    const during = await headersOf("during");
    expect([during.sig, during.sig2]).toEqual([hmac("new-secret", during.body), hmac("old-secret", during.body)]);

    // The same secret given again (a client writing back what it read, or only changing the header) keeps the overlap.
    expect((await put({ key: "X-Sig", signing_secret: "new-secret" })).status).toBe(200);
    expect((await api(team, "GET", `${dest}?include=config.auth`)).json.config.auth.previous_signing_secret).toBe("old-secret");
    // An overlap of 0 ends it at once.
    expect((await put({ key: "X-Sig", signing_secret: "new-secret", rotate_secret_overlap_seconds: 0 })).status).toBe(200);
    expect((await api(team, "GET", `${dest}?include=config.auth`)).json.config.auth).toEqual({ key: "X-Sig", signing_secret: "new-secret" });
    const after = await headersOf("after");
    expect([after.sig, after.sig2]).toEqual([hmac("new-secret", after.body), undefined]);
    // A new secret without an overlap replaces the old one at once.
    expect((await put({ key: "X-Sig", signing_secret: "third-secret" })).status).toBe(200);
    const third = await headersOf("third");
    expect([third.sig, third.sig2]).toEqual([hmac("third-secret", third.body), undefined]);
  });

  it("a team stored without a signing secret (guest workspaces of earlier versions) gets one at its first delivery: nothing is signed with an empty key", async () => {
    const own = await newTeam("no-secret");
    const c = await connectionTo(own, receiver);
    await db().query("UPDATE teams SET signing_secret_encrypted = NULL WHERE id = $1", [own.teamId]);
    const sent = await send(c.source.url, "signed all the same");
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    const { current } = await getSigningSecrets(own.teamId);
    expect(current).not.toBe(own.signingSecret);
    expect(got.headers["x-gateway-signature"]).toBe(hmac(current, got.body));
    expect(got.headers["x-gateway-signature"]).not.toBe(hmac("", got.body));
  });

  it("delivery headers of the reference: accept, the event's API URL, and x-gateway-will-retry-after from the retry rule; listed in data.appended_headers", async () => {
    const c = await connectionTo(team, receiver, { rules: [{ type: "retry", strategy: "linear", count: 2, interval: 90_000 }] });
    const sent = await send(c.source.url, "with retries");
    const [event] = await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    // 90 s ±10 % jitter (docs/pipeline.md#retry).
    expect(Number(got.headers["x-gateway-will-retry-after"])).toBeGreaterThanOrEqual(81);
    expect(Number(got.headers["x-gateway-will-retry-after"])).toBeLessThanOrEqual(99);
    // The PUBLIC_URL of whichever test server's worker delivered it.
    expect(got.headers["x-gateway-event-url"]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/2025-07-01/events/${event.id}$`));
    expect(got.headers.accept).toBeDefined();
    const shown = await api(team, "GET", `/2025-07-01/events/${event.id}`);
    expect(shown.json.data.appended_headers).toEqual(
      expect.arrayContaining(["x-gateway-signature", "x-gateway-event-url", "x-gateway-will-retry-after", "idempotency-key"]),
    );
    const none = await connectionTo(team, receiver);
    await eventsIn((await send(none.source.url, "no retry rule")).requestId, ["SUCCESSFUL"]);
    expect(receivedBy(receiver, none.tag)[0].headers["x-gateway-will-retry-after"]).toBe("");
  });

  it("http_method overrides the method; path_forwarding_disabled keeps the destination path; the query is kept", async () => {
    const c = await connectionTo(team, receiver, {
      destination: { config: { url: `${receiver.url}/fixed-${Date.now()}?from=dest`, http_method: "PUT", path_forwarding_disabled: true } },
    });
    const sent = await send(`${c.source.url}/ignored/path?a=1`, { m: 1 }, { method: "PATCH" });
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receiver.received.find((r) => r.headers["x-gateway-request-id"] === sent.requestId)!;
    expect(got.method).toBe("PUT");
    expect(got.url).toMatch(/^\/fixed-\d+\?from=dest&a=1$/);
    expect(got.headers["x-gateway-original-method"]).toBe("PATCH");
  });

  it("does not forward hop-by-hop headers nor inbound x-gateway-* headers", async () => {
    const c = await connectionTo(team, receiver);
    const sent = await send(c.source.url, { h: 1 }, { headers: { "x-gateway-verified": "true", "x-keep": "1" } });
    await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    expect(got.headers["x-gateway-verified"]).toBe("false");
    expect(got.headers["x-keep"]).toBe("1");
  });
});

describe("destinations and failures", () => {
  it("MOCK_API destinations succeed without network", async () => {
    const c = await connectionTo(team, null, { destination: { type: "MOCK_API" } });
    const sent = await send(c.source.url);
    const [event] = await eventsIn(sent.requestId, ["SUCCESSFUL"]);
    expect((await attemptsOf(event.id))[0]).toMatchObject({ status: "SUCCESSFUL", response_status: 200 });
  });

  it("a refused connection is an attempt with error_code CONNECTION_REFUSED and the event FAILED", async () => {
    const port = await freePort();
    const c = await connectionTo(team, null, { destination: { config: { url: `http://127.0.0.1:${port}/nothing` } } });
    const sent = await send(c.source.url);
    const [event] = await eventsIn(sent.requestId, ["FAILED"]);
    expect(event).toMatchObject({ error_code: "CONNECTION_REFUSED", response_status: null, attempts: 1 });
    expect((await attemptsOf(event.id))[0]).toMatchObject({ status: "FAILED", error_code: "CONNECTION_REFUSED" });
  });

  it("a non-2xx answer is a FAILED attempt with the status and body, error_code null", async () => {
    const c = await connectionTo(team, receiver);
    receiver.respond((r) => (r.url.startsWith(`/${c.tag}`) ? { status: 422, body: '{"error":"bad"}' } : { status: 200, body: "ok" }));
    const sent = await send(c.source.url);
    const [event] = await eventsIn(sent.requestId, ["FAILED"]);
    receiver.respond({ status: 200, body: "ok" });
    expect(event).toMatchObject({ response_status: 422, error_code: null });
    expect((await attemptsOf(event.id))[0]).toMatchObject({ response_status: 422, body: '{"error":"bad"}' });
  });

  it("cloud metadata and link-local addresses are never delivered to (refused addresses: also with private networks allowed)", async () => {
    const urls = [
      ["http://169.254.169.254/latest/meta-data", /cloud metadata/],
      ["http://[fd00:ec2::254]/latest/meta-data", /cloud metadata/],
      ["http://100.100.100.200/latest/meta-data", /cloud metadata/],
      ["http://168.63.129.16/machine", /cloud metadata/],
      ["http://[64:ff9b::a9fe:a9fe]/", /cloud metadata/],
      ["http://2852039166/", /cloud metadata/],
      ["http://169.254.1.1/", /linkLocal/],
    ] as const;
    await Promise.all(
      urls.map(async ([url, reason]) => {
        const c = await connectionTo(team, null, { destination: { config: { url } } });
        const sent = await send(c.source.url);
        const [event] = await eventsIn(sent.requestId, ["FAILED"]);
        expect(event.error_code, url).toBe("HOST_UNREACHABLE");
        expect((await attemptsOf(event.id))[0].body, url).toMatch(reason);
      }),
    );
  });

  it("an unknown host is DNS_LOOKUP_FAILED", async () => {
    const c = await connectionTo(team, null, { destination: { config: { url: "http://does-not-exist.invalid/x" } } });
    const sent = await send(c.source.url);
    const [event] = await eventsIn(sent.requestId, ["FAILED"]);
    expect(event.error_code).toBe("DNS_LOOKUP_FAILED");
  });

  it("rate_limit per second spaces deliveries to one destination without delaying another", async () => {
    const slow = await connectionTo(team, receiver, {
      destination: { config: { url: `${receiver.url}/rl-${Date.now()}`, rate_limit: 2, rate_limit_period: "second" } },
    });
    const fast = await connectionTo(team, receiver);
    const sentAt = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await send(slow.source.url, { i })).requestId);
    const other = await send(fast.source.url, { other: true });
    await eventsIn(other.requestId, ["SUCCESSFUL"]);
    const otherAt = receivedBy(receiver, fast.tag)[0].at;
    for (const id of ids) await eventsIn(id, ["SUCCESSFUL"], 1, 20_000);
    const times = receiver.received
      .filter((r) => r.url.startsWith("/rl-") && ids.includes(String(r.headers["x-gateway-request-id"])))
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    // 2 per fixed one-second window: 6 deliveries take at least three windows, so they span more than a
    // second, and no sliding second holds more than two windows' worth (4).
    expect(times[5] - times[0]).toBeGreaterThanOrEqual(1000);
    for (let i = 0; i + 4 < times.length; i++) expect(times[i + 4] - times[i]).toBeGreaterThanOrEqual(900);
    // The other destination is not held behind the rate-limited one.
    expect(otherAt).toBeLessThan(times[5]);
    expect(otherAt - sentAt).toBeLessThan(2000);
  });
});

describe("publish", () => {
  it("POST /e/v1/publish with the API key and a source name takes the pipeline, verified, without storing the key", async () => {
    const c = await connectionTo(team, receiver);
    const res = await fetch(`${BASE_URL}/e/v1/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.apiKey}`, "x-gateway-source-name": c.source.name, "content-type": "application/json" },
      body: JSON.stringify({ published: true }),
    });
    expect(res.status).toBe(200);
    const { request_id } = await res.json();
    await eventsIn(request_id, ["SUCCESSFUL"]);
    const got = receivedBy(receiver, c.tag)[0];
    expect(got.headers["x-gateway-verified"]).toBe("true");
    expect(got.headers.authorization).toBeUndefined();
    expect((await requestRow(request_id)).verified).toBe(true);
    const byId = await fetch(`${BASE_URL}/e/v1/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.apiKey}`, "x-gateway-source-id": c.source.id },
      body: "x",
    });
    expect(byId.status).toBe(200);
  });

  it("answers 401 without or with a wrong key, 400 without a source header, 404 for another team's source", async () => {
    const other = await newTeam("publish-other");
    const c = await connectionTo(team, receiver);
    const post = (headers: Record<string, string>) =>
      fetch(`${BASE_URL}/e/v1/publish`, { method: "POST", headers, body: "{}" }).then(async (r) => ({ status: r.status, json: await r.json() }));
    expect(await post({ "x-gateway-source-name": c.source.name })).toEqual({
      status: 401,
      json: { code: "UNAUTHORIZED", message: "No API key was provided through Basic Auth or Bearer Token" },
    });
    expect((await post({ authorization: "Bearer wrong", "x-gateway-source-name": c.source.name })).status).toBe(401);
    expect(await post({ authorization: `Bearer ${team.apiKey}` })).toEqual({
      status: 400,
      json: { code: "MISSING_PARAMETER", message: "Missing x-gateway-source-id or x-gateway-source-name header" },
    });
    expect((await post({ authorization: `Bearer ${other.apiKey}`, "x-gateway-source-id": c.source.id })).status).toBe(404);
    const basic = await post({ authorization: `Basic ${Buffer.from(`${team.apiKey}:`).toString("base64")}`, "x-gateway-source-name": c.source.name });
    expect(basic.status).toBe(200);
  });

  it("rejects methods other than POST", async () => {
    const res = await fetch(`${BASE_URL}/e/v1/publish`, { method: "GET", headers: { authorization: `Bearer ${team.apiKey}` } });
    expect(res.status).toBe(405);
  });
});
