/**
 * A real RabbitMQ broker for tests (Debian's rabbitmq-server, installed by .ci/run; started as root
 * without systemd): its own node name, ports, epmd port and data under a
 * temporary directory, so it never meets another broker. `stop()` ends the broker and its epmd.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./servers";

export type RabbitBroker = { port: number; url: string; stop: () => Promise<void> };

const SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server";

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
    s.on("error", () => resolve(false));
  });

/** Starts a broker and resolves once it accepts AMQP connections (user guest/guest). Throws after 60 s. */
export async function startRabbit(): Promise<RabbitBroker> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "hookyard-rabbit-"));
  const [port, dist, epmd] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    HOME: dir,
    RABBITMQ_NODENAME: `hookyard${port}@localhost`,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(dist),
    ERL_EPMD_PORT: String(epmd),
    RABBITMQ_MNESIA_BASE: path.join(dir, "mnesia"),
    RABBITMQ_LOG_BASE: path.join(dir, "log"),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, "plugins"),
  };
  const child: ChildProcess = spawn(SERVER, [], { env, detached: true, stdio: "ignore" });
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      /* gone */
    }
    await new Promise((r) => setTimeout(r, 1000));
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
    spawnSync("epmd", ["-kill"], { env, stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 120; i++) {
    if (await canConnect(port)) return { port, url: `amqp://guest:guest@127.0.0.1:${port}`, stop };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error("RabbitMQ did not start within 60 s");
}
