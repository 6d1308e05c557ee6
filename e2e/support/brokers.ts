/**
 * Real brokers for the destination-type tests (Debian's redis-server, nats-server and mosquitto,
 * installed by .ci/run), each started on a free loopback port with its data under a temporary
 * directory, and a TCP server that accepts connections and never answers (a hanging broker). A missing
 * binary fails the test with the package to install: these tests never skip.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Claimed, OutboundDelivery } from "@/lib/outbound/destination-types/type";
import { freePort } from "./servers";

export type Broker = { port: number; dir: string; output: () => string; stop: () => Promise<void> };

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
    s.on("error", () => resolve(false));
  });

/**
 * Starts `bin` with the arguments `args(port, dir)` and resolves once its port accepts connections.
 * Throws when the binary is missing (naming the Debian package) or the server does not listen in 15 s.
 */
async function startBinary(bin: string, pkg: string, args: (port: number, dir: string) => string[]): Promise<Broker> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: install the Debian package ${pkg} (.ci/run does: apt-get install -y ${pkg})`);
  const dir = mkdtempSync(path.join(os.tmpdir(), `hookyard-${pkg}-`));
  const port = await freePort();
  let output = "";
  const child: ChildProcess = spawn(bin, args(port, dir), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 150; i++) {
    if (await canConnect(port)) return { port, dir, output: () => output, stop };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${bin} did not listen on ${port} within 15 s:\n${output}`);
}

/** redis-server without persistence; `password` set: `requirepass`. */
export const startRedis = (password?: string) =>
  startBinary("/usr/bin/redis-server", "redis-server", (port) => [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    ...(password ? ["--requirepass", password] : []),
  ]);

/** nats-server with JetStream (its store under the broker's directory). */
export const startNats = () => startBinary("/usr/sbin/nats-server", "nats-server", (port, dir) => ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir]);

/** mosquitto on loopback (anonymous clients allowed). */
export const startMosquitto = () =>
  startBinary("/usr/sbin/mosquitto", "mosquitto", (port, dir) => {
    writeFileSync(path.join(dir, "mosquitto.conf"), `listener ${port} 127.0.0.1\npersistence false\nallow_anonymous true\n`);
    return ["-c", path.join(dir, "mosquitto.conf")];
  });

/** A TCP server on loopback that accepts every connection and never writes a byte (a broker that hangs). */
export async function hangingServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((s) => {
    count += 1;
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/**
 * One delivery of a test event to a destination of `config` and `credentials` (the shape the dispatcher
 * hands a destination type's deliver()): data `{"order":7}`, metadata `{region: "eu"}`.
 */
export function deliveryOf(destinationId: string, config: Record<string, string>, credentials: Record<string, string> = {}): OutboundDelivery {
  const claimed: Claimed = {
    event_id: `evt_${destinationId}_${Date.now()}`,
    destination_id: destinationId,
    tenant_id: "t",
    attempts: 0,
    manual: false,
    locked_until: new Date(Date.now() + 60_000),
    topic: "order.paid",
    time: new Date("2026-01-02T03:04:05.678Z"),
    eligible_for_retry: true,
    metadata: { region: "eu" },
    data: Buffer.from('{"order":7}'),
    type: null,
    config,
    credentials_encrypted: null,
    delivery_metadata: null,
    rate_limit: null,
    rate_limit_period: null,
    disabled_at: null,
    deleted: false,
    orphan: false,
    trace_parent: null,
  };
  return { claimed, config, credentials };
}

/**
 * An in-memory Kinesis server on a free loopback port (kinesalite from npm, no native store) with the
 * streams `streams` created (one shard each) and active; `endpoint` its URL.
 */
export async function startKinesalite(...streams: string[]): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const { default: kinesalite } = await import("kinesalite");
  const { CreateStreamCommand, KinesisClient } = await import("@aws-sdk/client-kinesis");
  const { NodeHttpHandler } = await import("@smithy/node-http-handler");
  const server = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0 });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const endpoint = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const admin = new KinesisClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "a", secretAccessKey: "b" },
    requestHandler: new NodeHttpHandler(),
  });
  for (const StreamName of streams) await admin.send(new CreateStreamCommand({ StreamName, ShardCount: 1 }));
  admin.destroy();
  return { endpoint, stop: () => new Promise<void>((r) => server.close(() => r())) };
}
