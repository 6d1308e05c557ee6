/**
 * The `nats` destination type (docs/outbound.md "NATS"): each event is published to the destination's
 * subject with its metadata as NATS headers; with `jetstream` "true" the publish waits for the stream's
 * ack (the event id is the message id: JetStream drops a duplicate within its window), else for the
 * server's answer to a flush. One connection per destination (./clients.ts), opened to the address the
 * delivery guard allowed (./broker.ts), never reconnecting and never following the cluster's other
 * addresses (those would not have been checked).
 */
import { connect, headers, type NatsConnection } from "nats";
import {
  BrokerError,
  failed,
  fingerprintOf,
  guardHost,
  hostPort,
  HOST_PORT_PATTERN,
  succeeded,
  urlHost,
  userPassword,
  withTimeout,
} from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

const CODE = "nats_error";

/** Opens the connection (guarded, bounded by the attempt timeout); dropped from the pool when it closes. */
async function open(drop: () => void, config: Record<string, string>, credentials: Record<string, string>): Promise<NatsConnection> {
  const target = (config.server_url ?? "").replace(/^nats:\/\//, "");
  const { host, port } = hostPort(target, CODE);
  const address = await guardHost(host, target, CODE);
  const timeout = outboundConfig().deliveryTimeoutMs;
  const nc = await withTimeout(
    connect({
      servers: `${urlHost(address)}:${port}`,
      name: "hookyard-outbound",
      timeout,
      reconnect: false,
      ignoreClusterUpdates: true,
      noRandomize: true,
      ...(credentials.token ? { token: credentials.token } : {}),
      ...(credentials.username ? { user: credentials.username, pass: credentials.password ?? "" } : {}),
    }),
    target,
    timeout,
  );
  void nc.closed().then(drop);
  return nc;
}

/** A NATS error as the text an attempt records: the server's reason where it gave one. */
function natsError(err: unknown, subject: string): unknown {
  const e = err as { code?: string; message?: string };
  if (e?.code === "503") return new BrokerError(CODE, `no JetStream stream listens on ${subject}`);
  if (e?.code === "AUTHORIZATION_VIOLATION") return new BrokerError(CODE, "authorization violation (the server refused the credentials)");
  if (e?.code === "CONNECTION_REFUSED") return new BrokerError(CODE, "connection refused");
  if (e?.code === "TIMEOUT") return new BrokerError("timeout", e.message ?? "timeout");
  return err;
}

/** One delivery: publish (JetStream: the stream's ack, whose sequence is the body). Never throws. */
async function sendNats({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.server_url ?? "";
  try {
    const nc = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      (drop) => open(drop, config, credentials),
      (n) => n.close(),
    );
    const h = headers();
    for (const [k, v] of Object.entries(metadataOf(c))) h.set(k, v);
    if (config.jetstream === "true") {
      const ack = await withTimeout(nc.jetstream().publish(config.subject, c.data, { headers: h, msgID: c.event_id }), target);
      return succeeded(started, JSON.stringify({ stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate }));
    }
    nc.publish(config.subject, c.data, { headers: h });
    await withTimeout(nc.flush(), target);
    return succeeded(started);
  } catch (err) {
    dropClient(c.destination_id);
    return failed(started, natsError(err, config.subject), CODE, target);
  }
}

export const nats = defineOutboundType({
  info: {
    type: "nats",
    label: "NATS",
    description: "Publish events to a NATS subject (JetStream when enabled).",
    icon: icon('<circle cx="12" cy="12" r="9"/><path d="M8 16V8l8 8V8"/>'),
    instructions:
      "Each event is published to the subject with its metadata (event-id, topic, timestamp, yours) as NATS headers. With JetStream the delivery succeeds once a stream that captures the subject acknowledges it; the event id is the message id (`Nats-Msg-Id`), so the stream drops a duplicate within its window.",
    config_fields: [
      {
        key: "server_url",
        type: "text",
        label: "Server",
        description: "host:port or nats://host:port of the server.",
        required: true,
        pattern: `^(nats:\\/\\/)?${HOST_PORT_PATTERN.slice(1)}`,
      },
      { key: "subject", type: "text", label: "Subject", description: "The subject to publish to.", required: true, pattern: "^[^\\s*>]+$" },
      {
        key: "jetstream",
        type: "checkbox",
        label: "JetStream",
        description: "Publish to JetStream and wait for the stream's ack.",
        required: false,
        default: "false",
      },
    ],
    credential_fields: [
      ...userPassword(false),
      {
        key: "token",
        type: "text",
        label: "Token",
        description: "An authentication token (instead of a username and password).",
        required: false,
        sensitive: true,
      },
    ],
  },
  // The server and the subject (`nats.example.com:4222 → orders.paid`).
  target: (config) => ({ target: config.server_url ? `${config.server_url} → ${config.subject ?? ""}` : "" }),
  deliver: sendNats,
});
