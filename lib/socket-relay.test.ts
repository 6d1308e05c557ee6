/**
 * The supervisor's socket relay (lib/socket-relay.ts, docs/architecture.md#processes) with real child
 * processes and real TCP connections: a connection handed to a web process that dies before taking it
 * is served by the next one, and the supervisor keeps no descriptor of the connections it handed over.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { listenAndRelay } from "@/lib/socket-relay";
import { freePort } from "../e2e/support/servers";

const dir = mkdtempSync(path.join(os.tmpdir(), "hookyard-relay-"));
const relayModule = path.resolve("lib/socket-relay.ts");
/** A web process: serves relayed connections with a body naming `process.argv[2]`, then says "ready". */
const WEB = path.join(dir, "web.ts");
writeFileSync(
  WEB,
  `import http from "node:http";
import { acceptRelayedSockets } from ${JSON.stringify(relayModule)};
const server = http.createServer((_req, res) => res.end("served by " + process.argv[2]));
acceptRelayedSockets(server);
process.send?.("ready");
`,
);
/**
 * A web process that hangs once it said "ready" (its event loop never turns again), so connections
 * handed to it stay unread in the IPC channel until it is killed.
 */
const HUNG = path.join(dir, "hung.ts");
writeFileSync(HUNG, `process.send?.("ready", () => {\n  for (;;);\n});\n`);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function start(file: string, name: string): Promise<ChildProcess> {
  const child = fork(file, [name], { execArgv: ["--import", "tsx"], stdio: "ignore" });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return child;
}

/** Opens a connection, sends one GET and resolves with everything the server sent until it closed. */
function get(port: number): { connected: Promise<void>; answer: Promise<string> } {
  const socket = net.connect(port, "127.0.0.1");
  const connected = new Promise<void>((r) => socket.once("connect", () => r()));
  const answer = new Promise<string>((resolve) => {
    let data = "";
    socket.on("data", (d: Buffer) => (data += d.toString()));
    socket.on("close", () => resolve(data));
    socket.on("error", () => {});
    socket.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
  });
  return { connected, answer };
}

const openDescriptors = () => readdirSync("/proc/self/fd").length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("connections handed to a web process that hung and was killed before taking them are answered by the next web process", async () => {
  const port = await freePort();
  const relay = await listenAndRelay(port, "127.0.0.1");
  try {
    const hung = await start(HUNG, "hung");
    relay.attach(hung);
    const requests = [get(port), get(port), get(port)];
    await Promise.all(requests.map((r) => r.connected));
    await sleep(300); // handed over by now, never taken
    expect(relay.waiting()).toBe(0);
    const exited = new Promise((r) => hung.once("exit", r));
    hung.kill("SIGKILL");
    await exited;
    relay.detach();
    expect(relay.waiting()).toBe(3);

    relay.attach(await start(WEB, "the next one"));
    const answers = await Promise.all(requests.map((r) => r.answer));
    for (const a of answers) {
      expect(a).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(a).toMatch(/served by the next one$/);
    }
  } finally {
    await relay.close();
  }
});

it("keeps no descriptor of a connection once the web process took it", async () => {
  const port = await freePort();
  const relay = await listenAndRelay(port, "127.0.0.1");
  try {
    relay.attach(await start(WEB, "web"));
    // Warm up (the first connection allocates the IPC machinery's own descriptors).
    expect(await get(port).answer).toMatch(/served by web$/);
    const before = openDescriptors();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(port).answer));
    expect(answers.filter((a) => a.endsWith("served by web"))).toHaveLength(50);
    await sleep(200);
    // 50 connections handed and closed: none of their descriptors is left open here.
    expect(openDescriptors() - before).toBeLessThan(5);
    expect(relay.waiting()).toBe(0);
  } finally {
    await relay.close();
  }
});
