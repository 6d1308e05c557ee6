/**
 * The `redis_stream` destination type (docs/outbound.md "Redis Streams"): each event is one XADD to the
 * destination's stream, fields `data` (the event's data, byte for byte) and one per metadata key, with
 * the stream capped near `maxlen` entries when set. One client per destination (./clients.ts), connected
 * to the address the delivery guard allowed (./broker.ts).
 */
import { createClient } from "redis";
import {
  BrokerError,
  failed,
  fingerprintOf,
  guardHost,
  hostPort,
  succeeded,
  urlHost,
  userPassword,
  withTimeout,
} from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

const CODE = "redis_error";
/** What a delivery uses of a connected client. */
type Redis = { destroy(): void; sendCommand(args: (string | Buffer)[]): Promise<unknown> };

/** `redis://host:port[/db]`, `rediss://…` (TLS) or `host:port` split; throws a BrokerError for anything else. */
export function parseRedisUrl(serverUrl: string): { tls: boolean; target: string; host: string; port: number; db: number } {
  const m = /^(?:(rediss?):\/\/)?([^/]+?)(?:\/(\d{1,2}))?$/.exec(serverUrl);
  if (!m) throw new BrokerError(CODE, `${serverUrl} is not a Redis address`);
  return { tls: m[1] === "rediss", target: m[2], ...hostPort(m[2], CODE), db: Number(m[3] ?? 0) };
}

/** Connects (guarded, bounded by the attempt timeout); the client is dropped on its first error (no reconnects: the next delivery opens a new one). */
async function connect(drop: () => void, config: Record<string, string>, credentials: Record<string, string>): Promise<Redis> {
  const { tls, target, host, port, db } = parseRedisUrl(config.server_url ?? "");
  const address = await guardHost(host, target, CODE);
  const timeout = outboundConfig().deliveryTimeoutMs;
  const client = createClient({
    socket: tls
      ? { host: address, port, tls: true, servername: host, connectTimeout: timeout, reconnectStrategy: false }
      : { host: address, port, connectTimeout: timeout, reconnectStrategy: false },
    username: credentials.username || undefined,
    password: credentials.password || undefined,
    database: db || undefined,
    disableClientInfo: true,
  });
  client.on("error", drop);
  client.on("end", drop);
  try {
    await withTimeout(client.connect(), `${urlHost(host)}:${port}`, timeout);
  } catch (err) {
    client.destroy();
    throw err;
  }
  return client;
}

/** The XADD arguments of one delivery: metadata fields (a key named `data` is left out), then `data`. */
export function xaddArgs(stream: string, maxlen: string | undefined, metadata: Record<string, string>, data: Buffer): (string | Buffer)[] {
  const fields = Object.entries(metadata).flatMap(([k, v]) => (k === "data" ? [] : [k, v]));
  return ["XADD", stream, ...(maxlen ? ["MAXLEN", "~", maxlen] : []), "*", ...fields, "data", data];
}

/** One delivery: XADD, success once Redis answers the entry id (its body). Never throws. */
async function sendRedis({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.server_url ?? "";
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      (drop) => connect(drop, config, credentials),
      (r) => r.destroy(),
    );
    const id = await withTimeout(client.sendCommand(xaddArgs(config.stream, config.maxlen, metadataOf(c), c.data)), target);
    return succeeded(started, String(id));
  } catch (err) {
    dropClient(c.destination_id);
    return failed(started, err, CODE, target);
  }
}

export const redisStream = defineOutboundType({
  info: {
    type: "redis_stream",
    label: "Redis Streams",
    description: "Append events to a Redis stream (XADD).",
    icon: icon('<path d="M3 7l9-4 9 4-9 4-9-4z"/><path d="M3 12l9 4 9-4"/><path d="M3 17l9 4 9-4"/>'),
    instructions: "Each event is one stream entry: a `data` field with the event's JSON and one field per metadata key (event-id, topic, timestamp, yours).",
    config_fields: [
      {
        key: "server_url",
        type: "text",
        label: "Server",
        description: "host:port, redis://host:port[/db] or rediss://host:port[/db] (TLS).",
        required: true,
        pattern: "^(rediss?:\\/\\/)?(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:\\[\\]]+):\\d{1,5}(\\/\\d{1,2})?$",
      },
      { key: "stream", type: "text", label: "Stream", description: "The stream key to append to.", required: true, pattern: "^\\S{1,512}$" },
      {
        key: "maxlen",
        type: "text",
        label: "Max length",
        description: "Trim the stream to about this many entries (MAXLEN ~); empty: never trimmed.",
        required: false,
        pattern: "^[1-9]\\d{0,11}$",
      },
    ],
    credential_fields: userPassword(false),
  },
  // The server and the stream (`redis.example.com:6379 → events`).
  target: (config) => ({ target: config.server_url ? `${config.server_url} → ${config.stream ?? ""}` : "" }),
  deliver: sendRedis,
});
