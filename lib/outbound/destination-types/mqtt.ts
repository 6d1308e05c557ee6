/**
 * The `mqtt` destination type (docs/outbound.md "MQTT"): each event is published to the destination's
 * topic over MQTT 5, the data as payload and the metadata as user properties, at QoS 1 by default (the
 * delivery succeeds on the broker's PUBACK) or QoS 0 (once written). One client per destination
 * (./clients.ts), connected to the address the delivery guard allowed (./broker.ts), never reconnecting
 * on its own.
 */
import { randomBytes } from "node:crypto";
import { connectAsync, type MqttClient } from "mqtt";
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

const CODE = "mqtt_error";

/** `mqtt://host:port`, `mqtts://host:port` (TLS) or `host:port` split; throws a BrokerError for anything else. */
export function parseMqttUrl(serverUrl: string): { tls: boolean; target: string; host: string; port: number } {
  const m = /^(?:(mqtts?):\/\/)?(.+)$/.exec(serverUrl);
  if (!m) throw new BrokerError(CODE, `${serverUrl} is not an MQTT address`);
  return { tls: m[1] === "mqtts", target: m[2], ...hostPort(m[2], CODE) };
}

/** Connects (guarded, bounded by the attempt timeout) with MQTT 5; dropped from the pool when it closes or fails. */
async function open(drop: () => void, config: Record<string, string>, credentials: Record<string, string>): Promise<MqttClient> {
  const { tls, target, host, port } = parseMqttUrl(config.server_url ?? "");
  const address = await guardHost(host, target, CODE);
  const timeout = outboundConfig().deliveryTimeoutMs;
  const connecting = connectAsync({
    protocol: tls ? "mqtts" : "mqtt",
    host: address,
    port,
    ...(tls ? { servername: host } : {}),
    protocolVersion: 5 as const,
    clientId: `hookyard_${randomBytes(8).toString("hex")}`,
    clean: true,
    connectTimeout: 2 * timeout, // the attempt's own bound (below) answers first, as for every type
    reconnectPeriod: 0,
    username: credentials.username || undefined,
    password: credentials.password || undefined,
  });
  try {
    const client = await withTimeout(connecting, `${urlHost(host)}:${port}`, timeout);
    client.on("close", drop);
    client.on("error", drop);
    return client;
  } catch (err) {
    void connecting.then((c) => c.end(true)).catch(() => undefined);
    throw err;
  }
}

/** One delivery: publish at the destination's QoS (1: success on PUBACK). Never throws. */
async function sendMqtt({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.server_url ?? "";
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      (drop) => open(drop, config, credentials),
      (m) => m.end(true),
    );
    await withTimeout(
      client.publishAsync(config.topic, c.data, {
        qos: config.qos === "0" ? 0 : 1,
        properties: { userProperties: metadataOf(c), contentType: "application/json", payloadFormatIndicator: true },
      }),
      target,
    );
    return succeeded(started);
  } catch (err) {
    dropClient(c.destination_id);
    return failed(started, err, CODE, target);
  }
}

export const mqtt = defineOutboundType({
  info: {
    type: "mqtt",
    label: "MQTT",
    description: "Publish events to an MQTT topic (MQTT 5, QoS 1 by default).",
    icon: icon('<path d="M4 20a16 16 0 0 1 16-16"/><path d="M4 14a10 10 0 0 1 10-10"/><path d="M4 8a4 4 0 0 1 4-4"/>'),
    instructions:
      "Each event is published to the topic over MQTT 5: the payload is the event's JSON, the metadata (event-id, topic, timestamp, yours) are user properties. At QoS 1 a delivery succeeds once the broker acknowledges it (PUBACK).",
    config_fields: [
      {
        key: "server_url",
        type: "text",
        label: "Server",
        description: "host:port, mqtt://host:port or mqtts://host:port (TLS) of the broker.",
        required: true,
        pattern: "^(mqtts?:\\/\\/)?(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:\\[\\]]+):\\d{1,5}$",
      },
      { key: "topic", type: "text", label: "Topic", description: "The topic to publish to (no wildcards).", required: true, pattern: "^[^#+\\u0000]+$" },
      {
        key: "qos",
        type: "select",
        label: "QoS",
        description: "1: at least once, acknowledged by the broker; 0: at most once.",
        required: false,
        default: "1",
        pattern: "^[01]$",
        options: [
          { label: "1 (at least once)", value: "1" },
          { label: "0 (at most once)", value: "0" },
        ],
      },
    ],
    credential_fields: userPassword(false),
  },
  // The broker and the topic (`mqtt.example.com:1883 → orders/paid`).
  target: (config) => ({ target: config.server_url ? `${config.server_url} → ${config.topic ?? ""}` : "" }),
  deliver: sendMqtt,
});
