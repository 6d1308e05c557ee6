/**
 * CLI forwarding end to end (docs/cli.md): the real `hookyard listen` as a
 * child process, a real local server, the console's cli_key; events become attempts with the local
 * answers; requests sent while no CLI runs fail with CLI_UNAVAILABLE and are delivered once it connects.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cliSigningSecret } from "@/lib/cli-channel/sessions";
import { BASE_URL, db, newTestUrl, uniqueIp } from "./support/client";
import { api, newTeam } from "./support/gateway";
import { attemptsOf, eventsIn } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { freePort } from "./support/servers";

let receiver: Receiver;
const children: ChildProcess[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGTERM");
});
afterAll(async () => receiver.close());

type Cli = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function track(child: ChildProcess): Cli {
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, output: () => out, exited };
}

/** `node --import tsx cli/hookyard.ts <args>`, as a child process of the repository's root. */
const runCli = (args: string[], env: Record<string, string> = {}) =>
  track(spawn(process.execPath, ["--import", "tsx", "cli/hookyard.ts", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }));

const port = () => new URL(receiver.url).port;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const json = (key: string, body: unknown) => ({
  method: "POST",
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/** Starts `hookyard listen` for test URL `t` and waits until its stream is open. */
async function listening(t: { name: string; cli_key: string }, target = port()): Promise<Cli> {
  const cli = runCli(["listen", target, t.name, "--cli-key", t.cli_key, "--server", BASE_URL]);
  await eventually(() => cli.output().includes("Listening on"), 20_000);
  // The stream is open once its session is seen; then the ingestion cache (1 s) has the new connection.
  await eventually(
    async () =>
      (
        await db().query(
          "SELECT 1 FROM cli_sessions s JOIN teams t ON t.id = s.team_id WHERE t.cli_key_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') AND s.closed_at IS NULL AND s.last_seen_at > now() - interval '3 seconds'",
          [t.cli_key],
        )
      ).rowCount,
    20_000,
  );
  await sleep(1200);
  return cli;
}

describe("hookyard listen", () => {
  it("forwards method, path, query, headers and body byte-exact, prints a line per event, and records attempts with cli_id", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const cli = await listening(t);
    expect(cli.output()).toContain(`Listening on ${t.name}: send requests to ${t.ingest_url}`);
    expect(cli.output()).toContain(`${t.name} -> cli-${t.name} → http://localhost:${port()}`);
    receiver.respond((r) => (r.url.startsWith("/fail") ? { status: 500, body: "local error" } : { status: 201, body: "created locally" }));

    const body = Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x20, 0x22, 0xc3, 0x28, 0x7d]); // not valid UTF-8
    const sent = await fetch(`${t.ingest_url}/orders/7?x=1&y=%20two&x=3`, {
      method: "PUT",
      body,
      headers: {
        "content-type": "application/octet-stream",
        "x-custom": "  Value, With; Odd=Chars ",
        "x-signature": "sha256=abc",
        "user-agent": "cli-test/1.0",
      },
    });
    const { request_id } = await sent.json();
    const [event] = await eventsIn(request_id, ["SUCCESSFUL"], 1, 20_000);
    const got = receiver.received.find((r) => r.url === "/orders/7?x=1&y=%20two&x=3")!;
    expect(got).toBeDefined();
    expect(got.method).toBe("PUT");
    expect(got.body.equals(body)).toBe(true);
    // Every header as stored, minus hop-by-hop ones and host, arrives unchanged.
    const { headers: stored } = (await db().query("SELECT headers FROM request_raw_data WHERE request_id = $1", [request_id])).rows[0];
    const dropped = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "te", "trailer", "host", "content-length", "proxy-connection"]);
    for (const [k, v] of Object.entries(stored as Record<string, string>))
      if (!dropped.has(k.toLowerCase())) expect([k, got.headers[k.toLowerCase()]]).toEqual([k, v]);
    expect(got.headers["x-custom"]).toBe("Value, With; Odd=Chars"); // as Node's parser gives any header value
    expect(got.headers["x-signature"]).toBe("sha256=abc");
    expect(got.headers["user-agent"]).toBe("cli-test/1.0");
    expect(got.headers["content-length"]).toBe(String(body.length));
    // Plus the headers every destination gets.
    expect(got.headers).toMatchObject({
      "x-gateway-event-id": event.id,
      "x-gateway-request-id": request_id,
      "x-gateway-attempt-count": "1",
      "x-gateway-attempt-trigger": "INITIAL",
      "x-gateway-original-method": "PUT",
      "x-gateway-source-name": t.name,
      "idempotency-key": event.id,
    });
    // Signed with the guest workspace's own secret, which the CLI printed: never with an empty key.
    const secret = /signing secret (\S+)/.exec(cli.output())?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(got.headers["x-gateway-signature"]).toBe(createHmac("sha256", secret!).update(got.body).digest("base64"));
    expect(got.headers["x-gateway-signature"]).not.toBe(createHmac("sha256", "").update(got.body).digest("base64"));

    const [attempt] = await attemptsOf(event.id);
    expect(attempt).toMatchObject({
      status: "SUCCESSFUL",
      response_status: 201,
      trigger: "INITIAL",
      attempt_number: 1,
      body: "created locally",
      http_method: "PUT",
      error_code: null,
      requested_url: null,
    });
    expect(attempt.cli_id).toMatch(/^cls_/);
    expect(event.cli_id).toBe(attempt.cli_id);
    const session = (await db().query("SELECT webhook_ids, closed_at FROM cli_sessions WHERE id = $1", [attempt.cli_id])).rows[0];
    expect(session.webhook_ids).toContain(event.webhook_id);
    expect(session.closed_at).toBeNull();
    await eventually(() => /^\d\d:\d\d:\d\d PUT \/orders\/7\?x=1&y=%20two&x=3 → 201 \(\d+ ms\)$/m.test(cli.output()));

    const failed = await (await fetch(`${t.ingest_url}/fail`, { method: "POST", body: "x" })).json();
    const [failedEvent] = await eventsIn(failed.request_id, ["FAILED"], 1, 20_000);
    expect(failedEvent.response_status).toBe(500);
    const [failedAttempt] = await attemptsOf(failedEvent.id);
    expect(failedAttempt).toMatchObject({ status: "FAILED", response_status: 500, body: "local error", trigger: "INITIAL", cli_id: attempt.cli_id });
    await eventually(() => /^\d\d:\d\d:\d\d POST \/fail → 500 \(\d+ ms\)$/m.test(cli.output()));
    receiver.respond({ status: 200, body: "ok" });

    // Closing the CLI closes its session.
    cli.child.kill("SIGTERM");
    await cli.exited;
    await eventually(async () => (await db().query("SELECT closed_at FROM cli_sessions WHERE id = $1", [attempt.cli_id])).rows[0].closed_at);
  }, 60_000);

  it("a gateway team's CLI connection: the connection named on the command line, its path, the transformation's output and the gateway signature", async () => {
    const team = await newTeam("cli-gateway");
    const cli_key = team.cliKey!;
    const tag = `cg${Date.now().toString(36)}`;
    const code = `addHandler("transform", (request) => { request.body = { wrapped: request.body }; request.headers["x-transformed"] = "yes"; request.path = "/rewritten"; return request; });`;
    const conn = await api(team, "POST", "/2025-07-01/connections", {
      name: `conn-${tag}`,
      source: { name: `src-${tag}` },
      destination: { name: `dst-${tag}`, type: "CLI", config: { path: "/base" } },
      rules: [{ type: "transform", transformation: { name: `t-${tag}`, code } }],
    });
    expect(conn.status, JSON.stringify(conn.json)).toBe(200);
    // Another CLI connection of the source, not named on the command line: nobody listens to it.
    const other = await api(team, "POST", "/2025-07-01/connections", {
      name: `other-${tag}`,
      source_id: conn.json.source.id,
      destination: { name: `dst2-${tag}`, type: "CLI", config: { path: "/other" } },
    });
    expect(other.status, JSON.stringify(other.json)).toBe(200);

    const cli = runCli(["listen", port(), `src-${tag}`, `conn-${tag}`, "--cli-key", cli_key, "--server", BASE_URL]);
    await eventually(() => cli.output().includes("Listening on"), 20_000);
    await eventually(
      async () =>
        (await db().query("SELECT 1 FROM cli_sessions WHERE team_id = $1 AND closed_at IS NULL AND last_seen_at > now() - interval '3 seconds'", [team.teamId]))
          .rowCount,
      20_000,
    );
    await sleep(1200);
    expect(cli.output()).toContain(`src-${tag} -> conn-${tag} → http://localhost:${port()}/base`);
    expect(cli.output()).not.toContain(`other-${tag}`);

    const { request_id } = await (
      await fetch(`${conn.json.source.url}/orig?a=1`, { method: "POST", body: '{"n":7}', headers: { "content-type": "application/json" } })
    ).json();
    const events = await eventsIn(request_id, ["SUCCESSFUL", "FAILED"], 2, 20_000);
    const mine = events.find((e) => e.webhook_id === conn.json.id)!;
    const theirs = events.find((e) => e.webhook_id === other.json.id)!;
    expect(mine.status).toBe("SUCCESSFUL");
    expect(theirs).toMatchObject({ status: "FAILED", error_code: "CLI_UNAVAILABLE" });
    const got = receiver.received.find((r) => r.url === "/base/rewritten?a=1")!;
    expect(got).toBeDefined();
    expect(JSON.parse(got.body.toString())).toEqual({ wrapped: { n: 7 } });
    expect(got.headers["x-transformed"]).toBe("yes");
    expect(got.headers["x-gateway-connection-name"]).toBe(`conn-${tag}`);
    // Signed with the team's CLI forwarding secret (what `listen` printed), never with the team's own secret:
    // a cli_key holder must not learn what production destinations verify with (docs/cli.md).
    expect(got.headers["x-gateway-signature"]).toBe(createHmac("sha256", cliSigningSecret(team.signingSecret)).update(got.body).digest("base64"));
    expect(got.headers["x-gateway-signature"]).not.toBe(createHmac("sha256", team.signingSecret).update(got.body).digest("base64"));
    expect(cli.output()).toContain(`signing secret ${cliSigningSecret(team.signingSecret)}`);
    expect(cli.output()).not.toContain(team.signingSecret);
    await eventually(() => /^\d\d:\d\d:\d\d POST \/base\/rewritten\?a=1 → 200 \(\d+ ms\)$/m.test(cli.output()));
  }, 60_000);

  it("a local server that does not answer gives an ERROR line and a FAILED attempt with error_code CLI", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const cli = await listening(t, String(await freePort()));
    const { request_id } = await (await fetch(`${t.ingest_url}/nobody-home`, { method: "POST", body: "x" })).json();
    const [event] = await eventsIn(request_id, ["FAILED"], 1, 20_000);
    const [attempt] = await attemptsOf(event.id);
    expect(attempt).toMatchObject({ status: "FAILED", error_code: "CLI", response_status: null });
    expect(attempt.cli_id).toMatch(/^cls_/);
    await eventually(() => /^\d\d:\d\d:\d\d POST \/nobody-home → ERROR ECONNREFUSED/m.test(cli.output()));
  }, 60_000);

  it("requests sent while no CLI runs fail with CLI_UNAVAILABLE and are delivered once it connects", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const first = await listening(t);
    first.child.kill("SIGTERM");
    await first.exited;
    await sleep(300);
    const { request_id } = await (await fetch(`${t.ingest_url}/while-away?q=1`, { method: "POST", body: "queued" })).json();
    const [waiting] = await eventsIn(request_id, ["FAILED"], 1, 20_000);
    expect(waiting.error_code).toBe("CLI_UNAVAILABLE");
    const [unavailable] = await attemptsOf(waiting.id);
    expect(unavailable).toMatchObject({ status: "FAILED", error_code: "CLI_UNAVAILABLE", trigger: "INITIAL", cli_id: null });

    const second = runCli(["listen", port(), t.name, "--cli-key", t.cli_key, "--server", BASE_URL]);
    const [delivered] = await eventsIn(request_id, ["SUCCESSFUL"], 1, 20_000);
    expect(delivered.error_code).toBeNull();
    expect(receiver.received.filter((r) => r.url === "/while-away?q=1" && r.body.toString() === "queued")).toHaveLength(1);
    const attempts = await attemptsOf(waiting.id);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.trigger])).toEqual([
      [1, "FAILED", "INITIAL"],
      [2, "SUCCESSFUL", "AUTOMATIC"],
    ]);
    expect(attempts[1].cli_id).toMatch(/^cls_/);
    const got = receiver.received.find((r) => r.url === "/while-away?q=1")!;
    expect(got.headers).toMatchObject({ "x-gateway-attempt-count": "2", "x-gateway-attempt-trigger": "AUTOMATIC", "x-gateway-attempt-id": attempts[1].id });
    await eventually(() => /POST \/while-away\?q=1 → 200/.test(second.output()));
  }, 60_000);

  it("the /cli channel takes only a cli_key: 401 for an API key or a wrong key, and the CLI says so and exits 1", async () => {
    const team = await newTeam("cli-auth");
    for (const key of [team.apiKey, "wrong", ""]) {
      const res = await fetch(`${BASE_URL}/cli/sessions`, json(key, { source_name: "x" }));
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body.error).toBe("UNAUTHORIZED");
      expect(body.message).toMatch(/cli_key/);
    }
    expect((await fetch(`${BASE_URL}/cli/sessions`, { method: "POST", body: '{"source_name":"x"}' })).status).toBe(401);
    expect((await fetch(`${BASE_URL}/cli/sessions/cls_x/stream`, { headers: { authorization: `Bearer ${team.apiKey}` } })).status).toBe(401);
    expect((await fetch(`${BASE_URL}/cli/attempts/atm_x`, json(team.apiKey, { event_id: "evt_x" }))).status).toBe(401);

    const cli = runCli(["listen", port(), "x", "--cli-key", "wrong", "--server", BASE_URL]);
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/refused the cli_key/);
    // And a cli_key authenticates nothing on the gateway API.
    const t = await newTestUrl({}, { ip: uniqueIp() });
    expect((await api({ apiKey: t.cli_key }, "GET", "/2025-07-01/sources")).status).toBe(401);
  }, 30_000);

  it("gives up with a clear message and exit code 1 when the server is unreachable", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const cli = runCli(["listen", port(), "x", "--cli-key", "k", "--server", dead], { HOOKYARD_CLI_MAX_RETRIES: "1" });
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/connection lost \(ECONNREFUSED\); reconnecting in 1 s \(1\/1\)/);
    expect(cli.output()).toMatch(/Giving up after 1 failed reconnections in a row: ECONNREFUSED\. Is http:\/\/127\.0\.0\.1:\d+ reachable\?/);
  }, 30_000);

  it("a server that takes the connection and never answers counts as a failed try after 15 s, not a wait without end", async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const started = Date.now();
      const cli = runCli(["listen", port(), "x", "--cli-key", "k", "--server", `http://127.0.0.1:${(silent.address() as AddressInfo).port}`], {
        HOOKYARD_CLI_MAX_RETRIES: "0",
      });
      expect(await cli.exited).toBe(1);
      expect(cli.output()).toMatch(/Giving up after 0 failed reconnections in a row: no answer in 15 s\. Is http:\/\/127\.0\.0\.1:\d+ reachable\?/);
      expect(held.length).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(15_000);
    } finally {
      for (const s of held) s.destroy();
      silent.close();
    }
  }, 60_000);

  it("sessions: the source and its CLI connection are found or created; bad bodies are 422; unknown sessions and stale attempts are refused", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const fresh = `cli-src-${Date.now()}`;
    const res = await fetch(`${BASE_URL}/cli/sessions`, json(t.cli_key, { source_name: fresh, path: "/hooks" }));
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s.id).toMatch(/^cls_/);
    expect(s.source).toMatchObject({ name: fresh });
    expect(s.source.url).toMatch(/\/e\/\w+$/);
    expect(s.connections).toEqual([{ id: expect.stringMatching(/^web_/), name: `cli-${fresh}`, full_name: `${fresh} -> cli-${fresh}`, path: "/hooks" }]);
    const dest = (
      await db().query("SELECT d.name, d.type, d.config FROM connections w JOIN destinations d ON d.id = w.destination_id WHERE w.id = $1", [
        s.connections[0].id,
      ])
    ).rows[0];
    expect(dest).toMatchObject({ name: `cli-${fresh}`, type: "CLI", config: expect.objectContaining({ path: "/hooks" }) });
    // A second session reuses the connection.
    const again = await (await fetch(`${BASE_URL}/cli/sessions`, json(t.cli_key, { source_name: fresh }))).json();
    expect(again.id).not.toBe(s.id);
    expect(again.connections.map((c: { id: string }) => c.id)).toEqual([s.connections[0].id]);

    for (const bad of ['{"source_name":""}', "{not json", "{}", '{"source_name":"a","path":"no-slash"}', '{"source_name":"a","extra":1}']) {
      const r = await fetch(`${BASE_URL}/cli/sessions`, json(t.cli_key, bad));
      expect([bad, r.status]).toEqual([bad, 422]);
      expect(Object.keys(await r.json()).sort()).toEqual(["error", "message"]);
    }

    // Streams: unknown, another team's, and closed sessions are 404.
    const auth = { headers: { authorization: `Bearer ${t.cli_key}` } };
    expect((await fetch(`${BASE_URL}/cli/sessions/cls_nope/stream`, auth)).status).toBe(404);
    const other = await newTestUrl({}, { ip: uniqueIp() });
    expect((await fetch(`${BASE_URL}/cli/sessions/${s.id}/stream`, { headers: { authorization: `Bearer ${other.cli_key}` } })).status).toBe(404);
    const stream = await fetch(`${BASE_URL}/cli/sessions/${s.id}/stream`, auth);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: ready");
    await reader.cancel();
    await eventually(async () => (await db().query("SELECT closed_at FROM cli_sessions WHERE id = $1", [s.id])).rows[0].closed_at);
    expect((await fetch(`${BASE_URL}/cli/sessions/${s.id}/stream`, auth)).status).toBe(404);

    // Attempts: another team's event is 404; an event no longer leased is 409.
    const { request_id } = await (await fetch(s.source.url, { method: "POST", body: "x" })).json();
    const [ev] = await eventsIn(request_id, ["FAILED"], 1, 20_000);
    expect(ev.error_code).toBe("CLI_UNAVAILABLE");
    expect((await fetch(`${BASE_URL}/cli/attempts/atm_x`, json(other.cli_key, { event_id: ev.id, status: 200 }))).status).toBe(404);
    const stale = await fetch(`${BASE_URL}/cli/attempts/atm_x`, json(t.cli_key, { event_id: ev.id, status: 200 }));
    expect(stale.status).toBe(409);
    expect((await stale.json()).error).toBe("CONFLICT");
    // A late answer for an earlier attempt, while the event is out again with attempt atm_current, is refused;
    // the current attempt's answer is recorded.
    await db().query("UPDATE events SET status = 'QUEUED', locked_until = now() + interval '1 minute', cli_attempt_id = 'atm_current' WHERE id = $1", [ev.id]);
    const late = await fetch(`${BASE_URL}/cli/attempts/atm_x`, json(t.cli_key, { event_id: ev.id, status: 200 }));
    expect(late.status).toBe(409);
    const current = await fetch(`${BASE_URL}/cli/attempts/atm_current`, json(t.cli_key, { event_id: ev.id, status: 200, body: "ok" }));
    expect(current.status).toBe(200);
    await eventually(async () => (await db().query("SELECT status FROM events WHERE id = $1", [ev.id])).rows[0].status === "SUCCESSFUL");
    const { rows: recorded } = await db().query("SELECT id, status FROM attempts WHERE event_id = $1 ORDER BY created_at", [ev.id]);
    expect(recorded.map((r) => r.id)).toContain("atm_current");
    expect(recorded.map((r) => r.id)).not.toContain("atm_x");
    expect((await fetch(`${BASE_URL}/cli/attempts/atm_x`, json(t.cli_key, { status: 200 }))).status).toBe(422);
  }, 60_000);

  it("the console's cmd_hint works as printed from the repository, and runs the clone's own file (node cli/hookyard.mjs)", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    expect(t.cmd_hint).toBe(`node cli/hookyard.mjs listen [port] <source-name> --cli-key ${t.cli_key} --server ${BASE_URL}`);
    const command = t.cmd_hint.replace("[port]", port()).replace("<source-name>", t.name);
    const cli = track(spawn("sh", ["-c", `exec ${command}`], { stdio: ["ignore", "pipe", "pipe"] }));
    // tsx loading the CLI takes seconds on a busy 2-core machine; the bound leaves room for a slow day.
    // Ends early when the command exits (an error of its own, printed below).
    await eventually(() => cli.output().includes(`Listening on ${t.name}`) || cli.child.exitCode !== null, 60_000).catch(() => null);
    expect(cli.output(), `exit code ${cli.child.exitCode}`).toContain(`Listening on ${t.name}`);
    await eventually(
      async () =>
        (
          await db().query(
            "SELECT 1 FROM cli_sessions s JOIN teams t ON t.id = s.team_id WHERE t.cli_key_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') AND s.closed_at IS NULL",
            [t.cli_key],
          )
        ).rowCount,
      20_000,
    );
    await sleep(1200);
    const { request_id } = await (await fetch(`${t.ingest_url}/from-hint`, { method: "POST", body: "hint" })).json();
    await eventsIn(request_id, ["SUCCESSFUL"], 1, 20_000);
    expect(receiver.received.some((r) => r.url === "/from-hint" && r.body.toString() === "hint")).toBe(true);
  }, 120_000);

  it("--help prints the usage and exits 0", async () => {
    const cli = runCli(["--help"]);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toMatch(/^Usage: hookyard listen <port\|url> <source-name>/);
    expect(cli.output()).toMatch(/HOOKYARD_CLI_KEY/);
  });
});
