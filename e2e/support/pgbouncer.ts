/**
 * A PgBouncer in transaction mode run by a test (docs/operations.md#pooler): Debian's `pgbouncer` binary
 * with an ini of its own, on a free loopback port. Used by `npm run topology` and e2e/pooler.test.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./servers";

/** Where Debian's `pgbouncer` package puts its binary. */
export const PGBOUNCER = "/usr/sbin/pgbouncer";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once something accepts connections on 127.0.0.1:`port` (rejects after `timeoutMs`). */
async function waitForPort(port: number, timeoutMs: number, exited: () => boolean): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(100)) {
    if (exited()) throw new Error("the process exited");
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (open) return;
  }
  throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
}

/**
 * A PgBouncer in transaction mode on a free loopback port in front of the database of `directUrl` (its
 * user and password in a userlist, `auth_type = plain`), with `poolSize` server connections
 * (`default_pool_size`, default 20). Run as the `postgres` user when this process is root (PgBouncer
 * refuses root). Its files live in a temporary directory removed by `stop`. `url` reaches the same
 * database through it; `pid` is its process. Throws (with PgBouncer's output) when it does not listen within 10 s.
 */
export async function startPgBouncer(directUrl: string, poolSize = 20): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const direct = new URL(directUrl);
  const database = decodeURIComponent(direct.pathname.slice(1));
  const [user, password] = [decodeURIComponent(direct.username), decodeURIComponent(direct.password)];
  const dir = mkdtempSync(path.join(os.tmpdir(), "hookyard-pgbouncer-"));
  const port = await freePort();
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" "${password}"\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${database} = host=${direct.hostname} port=${direct.port || 5432} dbname=${database}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = plain",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 1000",
      `default_pool_size = ${poolSize}`,
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
      "",
    ].join("\n"),
  );
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    for (const f of ["", "userlist.txt", "pgbouncer.ini"]) chownSync(path.join(dir, f), uid, gid);
  }
  let output = "";
  const child = spawn(PGBOUNCER, [...(root ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  try {
    await waitForPort(port, 10_000, () => child.exitCode !== null);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`PgBouncer did not start (${(err as Error).message}):\n${output}`);
  }
  return {
    url: `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(5000)]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
