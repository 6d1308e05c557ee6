/**
 * The `kafka` destination type (docs/outbound.md "Kafka", EXPERIMENTAL: not integration-tested, no Kafka
 * broker runs on the test machines): each event is one message produced with kafkajs to `topic`, value =
 * the event's JSON, key = what `partition_key_template` (alias `key_template`) renders (./template.ts;
 * default the event id), headers = its metadata, acks from all in-sync replicas. One connected producer per destination (./clients.ts).
 * Every broker connection, the seeds' and the ones the cluster advertises, goes through the delivery
 * address guard (the socket factory below); the seeds are checked first for a readable refusal.
 */
import net from "node:net";
import tls from "node:tls";
import type { ISocketFactory, Producer, SASLOptions } from "kafkajs";
import { guardedLookup, refusedHostReason, RefusedAddressError } from "@/lib/delivery/address-guard";
import { deliveryPolicy, deliveryResolver } from "@/lib/delivery/http-sender";
import {
  BrokerError,
  failed,
  fingerprintOf,
  guardHost,
  HOST_PORT_PATTERN,
  hostPort,
  refusedText,
  succeeded,
  withTimeout,
} from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { checkTemplates, renderTemplate, TEMPLATE_HELP, TEMPLATE_PATTERN } from "@/lib/outbound/destination-types/template";
import { type Claimed, defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

const CODE = "kafka_error";
const MECHANISMS = ["plain", "scram-sha-256", "scram-sha-512"] as const;

/** The SASL mechanism of the credentials, undefined for none (`none`, the select's first option, or unset). */
const saslOf = (credentials: Record<string, string>) => MECHANISMS.find((m) => m === credentials.sasl_mechanism);

/** The brokers of `config.brokers` (`host:port,host:port`), trimmed. */
export const brokersOf = (brokers: string) =>
  brokers
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);

/**
 * kafkajs's socket factory with the delivery address guard: a refused literal or metadata name fails
 * before connecting, a name resolves through the guarded lookup (every address it resolves to checked).
 */
function guardedSockets(): ISocketFactory {
  const policy = deliveryPolicy();
  const lookup = guardedLookup(policy, deliveryResolver());
  return ({ host, port, ssl, onConnect }) => {
    const reason = refusedHostReason(host, policy);
    if (reason) {
      const refused = new net.Socket();
      process.nextTick(() => refused.destroy(new RefusedAddressError(reason)));
      return refused;
    }
    const socket = ssl
      ? tls.connect({ host, port, lookup, ...(net.isIP(host) ? {} : { servername: host }), ...(typeof ssl === "object" ? ssl : {}) }, onConnect)
      : net.connect({ host, port, lookup }, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

/** Connects a producer (seeds guarded first, bounded by the attempt timeout); it is disconnected on failure. */
async function connect(config: Record<string, string>, credentials: Record<string, string>): Promise<Producer> {
  const brokers = brokersOf(config.brokers ?? "");
  for (const b of brokers) await guardHost(hostPort(b, CODE).host, b, CODE);
  const timeout = outboundConfig().deliveryTimeoutMs;
  const mechanism = saslOf(credentials);
  // kafkajs is loaded at the first delivery rather than at every process's start (a cached import after it).
  const { Kafka, logLevel } = await import("kafkajs");
  const kafka = new Kafka({
    clientId: "hookyard-outbound",
    brokers,
    ssl: config.tls === "true",
    ...(mechanism ? { sasl: { mechanism, username: credentials.username ?? "", password: credentials.password ?? "" } as SASLOptions } : {}),
    connectionTimeout: timeout,
    authenticationTimeout: timeout,
    requestTimeout: timeout,
    retry: { retries: 0 },
    socketFactory: guardedSockets(),
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  try {
    await withTimeout(producer.connect(), brokers.join(","), timeout);
  } catch (err) {
    void producer.disconnect().catch(() => undefined);
    throw err;
  }
  return producer;
}

/** A kafkajs error as an attempt: a refused broker is `host_unreachable`, a socket error its code only, a broker's answer `TYPE: message`. */
function kafkaFailed(started: number, err: unknown, target: string): Outcome {
  const e = err as { code?: string; type?: string; message?: string; broker?: string; cause?: unknown; originalError?: unknown };
  const inner = (e?.originalError ?? e?.cause) as typeof e | undefined;
  if (err instanceof RefusedAddressError || e?.code === "EREFUSEDADDRESS" || inner?.code === "EREFUSEDADDRESS")
    return failed(started, new BrokerError("host_unreachable", refusedText(e.broker ?? target)), CODE, target);
  if (err instanceof BrokerError || (typeof e?.code === "string" && /^E[A-Z]+$/.test(e.code))) return failed(started, err, CODE, e.broker ?? target);
  if (typeof inner?.code === "string" && /^E[A-Z]+$/.test(inner.code)) return failed(started, inner, CODE, e.broker ?? target);
  return failed(started, new BrokerError(CODE, e?.type ? `${e.type}: ${e.message ?? ""}` : (e?.message ?? String(err))), CODE, target);
}

/**
 * The message key of event `c`: what `partition_key_template` (the real product's name) or its alias
 * `key_template` renders (the former wins when both are set), the event id when neither is set or it
 * renders nothing. Throws a TemplateError (./template.ts). docs/outbound.md "Key templates".
 */
export function messageKey(config: Record<string, string>, c: Claimed): string {
  const [field, template] = config.partition_key_template
    ? ["config.partition_key_template", config.partition_key_template]
    : ["config.key_template", config.key_template];
  return (template ? renderTemplate(template, c, field) : "") || c.event_id;
}

/** One delivery: produce, success on the acks of all in-sync replicas; `partition/offset` is the attempt's body. Never throws. */
async function sendKafka({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.brokers ?? "";
  try {
    const producer = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      () => connect(config, credentials),
      (p) => p.disconnect(),
    );
    const [meta] = await withTimeout(
      producer.send({
        topic: config.topic,
        acks: -1,
        timeout: outboundConfig().deliveryTimeoutMs,
        messages: [{ key: messageKey(config, c), value: c.data, headers: metadataOf(c) }],
      }),
      target,
    );
    return succeeded(started, meta ? `${meta.partition}/${meta.baseOffset ?? ""}` : "");
  } catch (err) {
    dropClient(c.destination_id);
    return kafkaFailed(started, err, target);
  }
}

export const kafka = defineOutboundType({
  info: {
    type: "kafka",
    label: "Kafka (experimental)",
    description: "Produce events to an Apache Kafka topic. Experimental, not integration-tested: no Kafka broker runs in Hookyard's test suite.",
    icon: icon(
      '<circle cx="12" cy="5" r="2"/><circle cx="12" cy="19" r="2"/><circle cx="12" cy="12" r="2"/><circle cx="19" cy="8.5" r="2"/><circle cx="19" cy="15.5" r="2"/><path d="M12 7v3M12 14v3M13.8 11l3.4-1.7M13.8 13l3.4 1.7"/>',
    ),
    instructions:
      "Experimental: not integration-tested against a Kafka broker. Each event is one message: value = the event's JSON, headers = its metadata (event-id, topic, timestamp, yours), key from the partition key template, a JMESPath expression or text with placeholders (default: the event id). Acknowledged by all in-sync replicas. The topic must exist.",
    config_fields: [
      {
        key: "brokers",
        type: "text",
        label: "Brokers",
        description: "Seed brokers, comma-separated host:port.",
        required: true,
        pattern: `^\\s*${HOST_PORT_PATTERN.slice(1, -1)}(\\s*,\\s*${HOST_PORT_PATTERN.slice(1, -1)})*\\s*$`,
      },
      {
        key: "topic",
        type: "text",
        label: "Topic",
        description: "The topic to produce to (it must exist).",
        required: true,
        pattern: "^[a-zA-Z0-9._-]{1,249}$",
      },
      {
        key: "partition_key_template",
        type: "text",
        label: "Partition key template",
        description: `The message key (empty: the event id). ${TEMPLATE_HELP}`,
        required: false,
        pattern: TEMPLATE_PATTERN,
      },
      {
        key: "key_template",
        type: "text",
        label: "Key template (alias)",
        description: "The former name of the partition key template, kept for existing destinations; the partition key template wins when both are set.",
        required: false,
        pattern: TEMPLATE_PATTERN,
      },
      { key: "tls", type: "checkbox", label: "TLS", description: "Connect with TLS.", required: false, default: "false" },
    ],
    credential_fields: [
      {
        key: "sasl_mechanism",
        type: "select",
        label: "SASL mechanism",
        description: "SASL authentication, or none.",
        required: false,
        default: "none",
        options: [{ label: "None", value: "none" }, ...MECHANISMS.map((value) => ({ label: value.toUpperCase(), value }))],
      },
      { key: "username", type: "text", label: "Username", description: "With a SASL mechanism.", required: false },
      { key: "password", type: "text", label: "Password", description: "With a SASL mechanism.", required: false, sensitive: true },
    ],
  },
  checkValues(config, credentials, issues) {
    if (saslOf(credentials) && (!credentials.username || !credentials.password))
      issues.push("credentials.username and credentials.password are required with credentials.sasl_mechanism");
    checkTemplates(config, ["partition_key_template", "key_template"], issues);
  },
  // The seed brokers and the topic (`k1:9092,k2:9092 → orders`).
  target: (config) => ({ target: config.brokers ? `${config.brokers} → ${config.topic ?? ""}` : "" }),
  deliver: sendKafka,
});
