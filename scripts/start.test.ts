/**
 * `npm start` as a newcomer runs it, on an embedded PostgreSQL of its own: it serves, survives a
 * `kill -9` (of the server, or of npm itself) followed by a second start with the data kept, and
 * stops everything on SIGTERM and SIGINT. Every part, a PostgreSQL it restarted included, ends with
 * the supervisor however the supervisor ends (docs/architecture.md "Processes").
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GUARD_NAME } from "@/lib/db/embedded";
import { isAlive } from "@/lib/processes";
import { freePort, OPERATOR_HEADERS, TEST_METRICS_TOKEN } from "../e2e/support/servers";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "hookyard-start-"));
const children: ChildProcess[] = [];

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * `npm start` (the build already exists: `--no-build` only skips the freshness hash). `ownGroup`: npm
 * leads a process group of its own, as under a service manager (which signals the whole group).
 */
async function npmStart(port: number, pgPort: number, { ownGroup = false } = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The operator view of /healthz (docs/operations.md "Metrics and health") shows the parts' pids.
    METRICS_TOKEN: TEST_METRICS_TOKEN,
  };
  delete env.DATABASE_URL;
  // The quick start: no SECRET_KEY either (the key generated in DATA_DIR; docs/operations.md "One key").
  delete env.SECRET_KEY;
  let output = "";
  const child = spawn("npm", ["start", "--", "--no-build"], { env, stdio: ["ignore", "pipe", "pipe"], detached: ownGroup });
  children.push(child);
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  await waitFor(() => output.includes("ready on") || child.exitCode !== null, 60_000, "npm start to be ready");
  if (!output.includes("ready on")) throw new Error(`npm start failed:\n${output}`);
  const serverPid = Number(readFileSync(path.join(dataDir, "hookyard.pid"), "utf8"));
  return { child, serverPid, output: () => output };
}

const postmasterPid = () => {
  const file = path.join(dataDir, "pg", "postmaster.pid");
  return existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : null;
};

/** Pids of the live processes whose command line has every one of `args` (e.g. postgres `-D {pgData}`). */
function processesWith(...args: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args.every((a) => argv.includes(a))) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}
const pgData = path.join(dataDir, "pg");
/** The postmasters serving this test's data directory. */
/** Parent pid of `pid` (0 when it is gone). */
function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}
/**
 * The postmasters of this data directory. A backend the postmaster has just forked shows the postmaster's
 * command line until it sets its own title, so children of a listed process are left out.
 */
const postmasters = () => {
  const isPostgres = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0].endsWith("/postgres");
    } catch {
      return false; // gone meanwhile
    }
  };
  const found = processesWith("-D", pgData).filter(isPostgres);
  return found.filter((pid) => !found.includes(parentOf(pid)));
};

/** True when nothing listens on 127.0.0.1:`port` (it can be bound). */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

type Parts = Record<"web" | "worker" | "database", { state: string; restarts: number; pid: number | null }>;
const parts = async (port: number) =>
  ((await (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: OPERATOR_HEADERS })).json()) as { parts: Parts }).parts;

/** kill -9 of the embedded PostgreSQL; resolves with the parts once the supervisor has restarted it and all are up. */
async function killPostgresAndAwaitRestart(port: number): Promise<Parts> {
  const killed = postmasterPid()!;
  process.kill(killed, "SIGKILL");
  let now: Parts | null = null;
  await waitFor(
    async () => {
      now = await parts(port).catch(() => null);
      return now !== null && now.database.restarts === 1 && Object.values(now).every((p) => p.state === "up") && now.database.pid !== killed;
    },
    60_000,
    "the supervisor to restart PostgreSQL",
  );
  expect(postmasters()).toEqual([now!.database.pid]);
  return now!;
}

/** Within a few seconds: no postgres of this data directory, its port free, the web and worker processes gone. */
async function expectAllEnded(pgPort: number, children: Parts, what: string) {
  await waitFor(async () => postmasters().length === 0 && (await portFree(pgPort)), 8_000, `PostgreSQL to end ${what}`);
  await waitFor(() => !isAlive(children.web.pid!) && !isAlive(children.worker.pid!), 8_000, `the web and worker processes to end ${what}`);
}

async function serves(port: number) {
  return fetch(`http://127.0.0.1:${port}/openapi.json`).then(
    (r) => r.status === 200,
    () => false,
  );
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const pm of postmasters()) process.kill(pm, "SIGQUIT");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start with the embedded PostgreSQL", () => {
  it("serves, restarts after kill -9 of the server with data kept, after kill -9 of npm, and stops cleanly on SIGTERM and SIGINT", async () => {
    const port = await freePort();
    const pgPort = await freePort();

    // 1. First start: initialises the database, migrates, serves.
    const first = await npmStart(port, pgPort);
    const created = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"kept"}' });
    expect(created.status).toBe(201);
    const { ingest_url, inspect_url } = (await created.json()) as { ingest_url: string; inspect_url: string };
    expect((await fetch(ingest_url, { method: "POST", body: "before crash" })).status).toBe(200);
    // The first start created a dashboard user and printed its one-time sign-in link (docs/dashboard.md#signing-in).
    const link = /created the dashboard user admin@localhost[^\n]*\n[^\n]*?(\/dashboard\/sign-in\/link\?token=[\w-]+)/.exec(first.output());
    expect(link, first.output()).not.toBeNull();
    // No SECRET_KEY: the key was generated in DATA_DIR, and its fingerprint stored (docs/operations.md "One key").
    expect(existsSync(path.join(dataDir, "secret.key"))).toBe(true);
    expect(first.output()).toContain("stored the fingerprint of the secret key in the database");
    expect((await fetch(`http://127.0.0.1:${port}${link![1]}`)).status).toBe(200);
    // The children run the bundles of the current sources (scripts/build-if-needed.ts; npm test made them),
    // not TypeScript compiled at each start.
    const running = await parts(port);
    const cmdline = (pid: number | null) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(cmdline(running.web.pid)).toContain(".next/hookyard-processes/web.mjs");
    expect(cmdline(running.worker.pid)).toContain(".next/hookyard-processes/worker.mjs");
    expect(cmdline(running.web.pid)).not.toContain("tsx");

    // 2. kill -9 of the server process and of its PostgreSQL guard (as `kill -9 -1` or the OOM killer may
    // do): PostgreSQL is orphaned, still running.
    const orphan = postmasterPid()!;
    for (const pid of [first.serverPid, ...processesWith(GUARD_NAME, pgData)]) process.kill(pid, "SIGKILL");
    await waitFor(() => !isAlive(first.serverPid), 10_000, "the server to die");
    expect(isAlive(orphan)).toBe(true);

    // 3. Second start works: the orphan is stopped, the data is there.
    const second = await npmStart(port, pgPort);
    expect(isAlive(orphan)).toBe(false);
    expect(second.output()).not.toContain("/dashboard/sign-in/link");
    expect(second.output()).not.toContain("stored the fingerprint");
    const preview = await fetch(inspect_url, { headers: { accept: "application/json" } });
    expect(preview.status).toBe(200);
    const body = (await preview.json()) as { name: string; requests: { body: string }[] };
    expect(body.name).toBe("kept");
    expect(body.requests.map((r) => r.body)).toEqual(["before crash"]);

    // 4. kill -9 of npm itself: the server notices its launcher is gone and stops, PostgreSQL too.
    const pm2 = postmasterPid()!;
    process.kill(second.child.pid!, "SIGKILL");
    await waitFor(() => !isAlive(second.serverPid) && !isAlive(pm2), 30_000, "the server and PostgreSQL to stop after npm died");
    expect(await serves(port)).toBe(false);

    // 5. Third start, then SIGTERM: everything stops, no postmaster left.
    const third = await npmStart(port, pgPort);
    expect(await serves(port)).toBe(true);
    const pm3 = postmasterPid()!;
    process.kill(third.serverPid, "SIGTERM");
    await waitFor(() => !isAlive(third.serverPid) && !isAlive(pm3), 30_000, "a clean stop on SIGTERM");
    expect(third.output()).toContain("stopped");
    // In order: the worker has stopped before PostgreSQL does, so no session of it is cut off.
    expect(third.output()).not.toContain("terminating connection due to administrator command");
    expect(existsSync(path.join(dataDir, "hookyard.pid"))).toBe(false);

    // 6. Fourth start, then Ctrl-C (SIGINT to the process group, as a terminal sends it).
    const fourth = await npmStart(port, pgPort);
    const pm4 = postmasterPid()!;
    process.kill(fourth.serverPid, "SIGINT");
    await waitFor(() => !isAlive(fourth.serverPid) && !isAlive(pm4), 30_000, "a clean stop on SIGINT");
    await waitFor(() => fourth.child.exitCode !== null, 10_000, "npm to exit");
  }, 180_000);

  it("a PostgreSQL the supervisor restarted ends with it: SIGTERM to the group then SIGKILL 3 s later, and SIGKILL of the supervisor alone", async () => {
    const port = await freePort();
    const pgPort = await freePort();

    // (a) As a service manager stops a service: SIGTERM to the process group, SIGKILL to it 3 s later.
    const first = await npmStart(port, pgPort, { ownGroup: true });
    const before = await killPostgresAndAwaitRestart(port);
    process.kill(-first.child.pid!, "SIGTERM");
    await new Promise((r) => setTimeout(r, 3000));
    try {
      process.kill(-first.child.pid!, "SIGKILL");
    } catch {}
    await expectAllEnded(pgPort, before, "after SIGTERM and SIGKILL to the group");

    // (b) SIGKILL of the supervisor alone (as the OOM killer may pick it).
    const second = await npmStart(port, pgPort);
    const parts2 = await killPostgresAndAwaitRestart(port);
    process.kill(second.serverPid, "SIGKILL");
    await expectAllEnded(pgPort, parts2, "after SIGKILL of the supervisor");
    const guardLines = readFileSync(path.join(dataDir, "postgres.log"), "utf8")
      .split("\n")
      .filter((l) => l.includes(GUARD_NAME));
    // The guard says why it stopped PostgreSQL: in (b) surely; in (a) too unless the clean stop was done within 3 s.
    const said = (p: Parts) => `${GUARD_NAME}: the process that started PostgreSQL is gone; stopping PostgreSQL (pid ${p.database.pid})`;
    expect(guardLines.map((l) => l.replace(/^\S+ /, ""))).toEqual(guardLines.length === 2 ? [said(before), said(parts2)] : [said(parts2)]);
    await waitFor(() => second.child.exitCode !== null, 10_000, "npm to exit");
  }, 180_000);

  it("a start that fails prints one sentence of cause and remedy, never a stack trace (PORT taken)", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "0.0.0.0", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        EMBEDDED_PG_PORT: String(await freePort()),
        DATA_DIR: dataDir,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      };
      delete env.DATABASE_URL;
      delete env.SECRET_KEY;
      const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--no-build"], { env, stdio: ["ignore", "pipe", "pipe"] });
      children.push(child);
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      const code = await new Promise((r) => child.once("exit", r));
      expect(code).toBe(1);
      const problems = output.split("\n").filter((l) => l.includes(String(port)) || /^\s+at /.test(l) || /Error/.test(l));
      expect(problems).toEqual([`[hookyard] Port ${port} is in use by another program; stop it or set PORT to a free port.`]);
      expect(output).toContain("[hookyard] stopped");
    } finally {
      blocker.close();
    }
  }, 90_000);
});
