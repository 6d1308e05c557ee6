/**
 * CLI forwarding end to end (issue "Gateway pipeline", CLI): the real `hookyard listen` as a child
 * process, a real local server, the console's cli_key; events become attempts with the local answers;
 * requests sent while no CLI runs fail with CLI_UNAVAILABLE and are delivered once it connects.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, db, newTestUrl, uniqueIp } from "./support/client";
import { api, newTeam } from "./support/gateway";
import { eventsIn } from "./support/pipeline";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { freePort } from "./support/servers";

let receiver: Receiver;
const children: ChildProcess[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGTERM");
});
afterAll(async () => receiver.close());

function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["cli/hookyard.mjs", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, output: () => out, exited };
}
const port = () => new URL(receiver.url).port;

describe("hookyard listen", () => {
  it("forwards a test URL's requests to the local server byte-exact, prints a line per event, and records attempts", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const cli = runCli(["listen", port(), t.name, "--cli-key", t.cli_key, "--server", BASE_URL]);
    await eventually(async () => cli.output().includes("Listening on"), 20_000);
    await new Promise((r) => setTimeout(r, 1200)); // the ingestion cache keeps a source for a second
    receiver.respond((r) => (r.url.startsWith("/fail") ? { status: 500, body: "local error" } : { status: 201, body: "created locally" }));
    const body = '{"hello":"cli", "spaced" : true}';
    const sent = await fetch(`${t.ingest_url}/orders/7?x=1&y=2`, { method: "PUT", body, headers: { "content-type": "application/json", "x-custom": "v" } });
    const { request_id } = await sent.json();
    const [event] = await eventsIn(request_id, ["SUCCESSFUL"], 1, 20_000);
    const got = receiver.received.find((r) => r.url === "/orders/7?x=1&y=2")!;
    expect(got.method).toBe("PUT");
    expect(got.body.toString()).toBe(body);
    expect(got.headers["x-custom"]).toBe("v");
    const [attempt] = (await db().query("SELECT * FROM attempts WHERE event_id = $1", [event.id])).rows;
    expect(attempt).toMatchObject({ status: "SUCCESSFUL", response_status: 201, trigger: "INITIAL", body: "created locally" });
    expect(attempt.cli_id).toMatch(/^cls_/);
    await eventually(async () => /PUT \/orders\/7\?x=1&y=2 → 201 \(\d+ ms\)/.test(cli.output()));

    const failed = await (await fetch(`${t.ingest_url}/fail`, { method: "POST", body: "x" })).json();
    const [failedEvent] = await eventsIn(failed.request_id, ["FAILED"], 1, 20_000);
    expect(failedEvent.response_status).toBe(500);
    receiver.respond({ status: 200, body: "ok" });
  }, 60_000);

  it("requests sent while no CLI runs fail with CLI_UNAVAILABLE and are delivered once it connects", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const first = runCli(["listen", port(), t.name, "--cli-key", t.cli_key, "--server", BASE_URL]);
    await eventually(async () => first.output().includes("Listening on"), 20_000);
    first.child.kill("SIGTERM");
    await first.exited;
    await new Promise((r) => setTimeout(r, 1200));
    const { request_id } = await (await fetch(`${t.ingest_url}/while-away`, { method: "POST", body: "queued" })).json();
    const [waiting] = await eventsIn(request_id, ["FAILED"], 1, 20_000);
    expect(waiting.error_code).toBe("CLI_UNAVAILABLE");
    const second = runCli(["listen", port(), t.name, "--cli-key", t.cli_key, "--server", BASE_URL]);
    await eventsIn(request_id, ["SUCCESSFUL"], 1, 20_000);
    expect(receiver.received.some((r) => r.url === "/while-away" && r.body.toString() === "queued")).toBe(true);
    await eventually(async () => second.output().includes("POST /while-away"));
  }, 60_000);

  it("the /cli channel takes only a cli_key: 401 for an API key or a wrong key, and the CLI says so and exits 1", async () => {
    const team = await newTeam("cli-auth");
    for (const key of [team.apiKey, "wrong"]) {
      const res = await fetch(`${BASE_URL}/cli/sessions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: '{"source_name":"x"}' });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toBe("UNAUTHORIZED");
    }
    const cli = runCli(["listen", port(), "x", "--cli-key", "wrong", "--server", BASE_URL]);
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/cli_key/);
    // And a cli_key authenticates nothing on the gateway API.
    const t = await newTestUrl({}, { ip: uniqueIp() });
    expect((await api({ apiKey: t.cli_key }, "GET", "/2025-07-01/sources")).status).toBe(401);
  }, 30_000);

  it("gives up with a clear message when the server is unreachable", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const cli = runCli(["listen", port(), "x", "--cli-key", "k", "--server", dead], { HOOKYARD_CLI_MAX_RETRIES: "1" });
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/Giving up after 1 failed reconnections/);
  }, 30_000);

  it("validates the session body", async () => {
    const t = await newTestUrl({}, { ip: uniqueIp() });
    const res = await fetch(`${BASE_URL}/cli/sessions`, { method: "POST", headers: { authorization: `Bearer ${t.cli_key}`, "content-type": "application/json" }, body: '{"source_name":""}' });
    expect(res.status).toBe(422);
    const bad = await fetch(`${BASE_URL}/cli/sessions`, { method: "POST", headers: { authorization: `Bearer ${t.cli_key}`, "content-type": "application/json" }, body: "{not json" });
    expect(bad.status).toBe(422);
  });
});
