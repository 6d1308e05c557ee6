/**
 * The `rabbitmq` destination type (docs/outbound.md "RabbitMQ"): each event is published to the
 * destination's exchange with its topic as routing key and its metadata as headers, over the destination's confirm
 * channel, reused across deliveries (./clients.ts: closed when idle, failed, deleted or disabled); the broker is reached through the delivery engine's address guard.
 */
import { isIP } from "node:net";
import amqp from "amqplib";
import { guardedResolve, RefusedAddressError } from "@/lib/delivery/address-guard";
import { deliveryPolicy, deliveryResolver } from "@/lib/delivery/http-sender";
import { BrokerError, fingerprintOf, withTimeout } from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

/** What a tenant reads on an attempt refused by the address guard: the target as written, no resolved address (docs/outbound.md "Addresses a destination may reach"). */
const refusedText = (target: string) =>
  `${target} is not a permitted delivery target (cloud metadata, link-local and reserved addresses never are; private networks only where the operator allows them)`;

/** Thrown by the connect phase with the text an attempt records, so nothing of the operator's network (resolved addresses, socket messages) reaches the tenant. */
class RabbitConnectError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens a connection to the broker `server_url` (`host:port` or `[IPv6]:port`) through the delivery
 * address guard (lib/delivery/address-guard.ts guardedResolve, the HTTP sender's policy and resolver):
 * amqplib connects to the checked address itself, `host` is kept as the TLS servername. Rejects with a
 * {@link RabbitConnectError}: `host_unreachable` for a refused target, `timeout`, else `rabbitmq_error`
 * (the broker's own message for a refused handshake; only the error code for a socket error).
 */
async function connectRabbit(config: Record<string, string>, credentials: Record<string, string>): Promise<amqp.ChannelModel> {
  const target = config.server_url ?? "";
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
  if (!m) throw new RabbitConnectError("rabbitmq_error", `${target} is not host:port`);
  const host = m[1].replace(/^\[|\]$/g, "");
  const tls = config.tls === "true";
  let address: string;
  try {
    ({ address } = await guardedResolve(host, deliveryPolicy(), deliveryResolver()));
  } catch (err) {
    if (err instanceof RefusedAddressError) throw new RabbitConnectError("host_unreachable", refusedText(target));
    throw new RabbitConnectError("rabbitmq_error", `could not resolve ${host} (${(err as NodeJS.ErrnoException).code ?? "lookup failed"})`);
  }
  try {
    return await amqp.connect(
      { protocol: tls ? "amqps" : "amqp", hostname: address, port: Number(m[2]), username: credentials.username ?? "", password: credentials.password ?? "" },
      { timeout: outboundConfig().deliveryTimeoutMs, ...(tls && !isIP(host) ? { servername: host } : {}) },
    );
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.message === "connect ETIMEDOUT" || e.code === "ETIMEDOUT")
      throw new RabbitConnectError("timeout", `no connection to ${target} within ${outboundConfig().deliveryTimeoutMs} ms`);
    if (typeof e.code === "string") throw new RabbitConnectError("rabbitmq_error", `could not connect to ${target} (${e.code})`);
    throw new RabbitConnectError("rabbitmq_error", e.message || String(err));
  }
}

/**
 * Publishes the event to the destination's exchange (the default exchange when empty) with the topic as
 * routing key and the metadata as headers, and waits for the broker's confirm (amqplib). Never throws.
 */
async function sendRabbit({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const channel = pooledClient(
    c.destination_id,
    fingerprintOf(config, credentials),
    async (drop) => {
      const conn = await connectRabbit(config, credentials);
      conn.on("error", drop);
      conn.on("close", drop);
      try {
        const ch = await conn.createConfirmChannel();
        ch.on("error", drop);
        ch.on("close", drop);
        return { conn, ch };
      } catch (err) {
        await conn.close().catch(() => undefined);
        throw err;
      }
    },
    ({ conn }) => conn.close().catch(() => undefined),
  );
  try {
    const { ch } = await withTimeout(channel, config.server_url ?? ""); // a broker that accepts and never completes the handshake
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timeout")), outboundConfig().deliveryTimeoutMs);
      ch.publish(
        config.exchange ?? "",
        c.topic,
        c.data,
        { headers: metadataOf(c), contentType: "application/json", messageId: c.event_id, persistent: true },
        (err) => {
          clearTimeout(timer);
          if (err) reject(err instanceof Error ? err : new Error(String(err)));
          else resolve();
        },
      );
    });
    return { success: true, code: "ok", latencyMs: Math.round(performance.now() - started), response: null };
  } catch (err) {
    dropClient(c.destination_id);
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof RabbitConnectError || err instanceof BrokerError ? err.code : message === "timeout" ? "timeout" : "rabbitmq_error";
    return { success: false, code, latencyMs: Math.round(performance.now() - started), response: { status_code: null, body: message, headers: {} } };
  }
}

export const rabbitmq = defineOutboundType({
  info: {
    type: "rabbitmq",
    label: "RabbitMQ",
    description: "Publish events to a RabbitMQ exchange, with the topic as routing key.",
    icon: icon('<rect x="4" y="4" width="16" height="16" rx="2"/><path d="M9 9h6v6H9z"/>'),
    instructions: "Each event is published to the exchange with its topic as routing key and its metadata as message headers.",
    config_fields: [
      {
        key: "server_url",
        type: "text",
        label: "Server",
        description: "host:port of the broker ([IPv6 address]:port for an IPv6 address).",
        required: true,
        pattern: "^(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:\\[\\]]+):\\d{1,5}$",
      },
      { key: "exchange", type: "text", label: "Exchange", description: "The exchange to publish to (default exchange when empty).", required: false },
      { key: "tls", type: "checkbox", label: "TLS", description: "Connect with amqps.", required: false, default: "false" },
    ],
    credential_fields: [
      { key: "username", type: "text", label: "Username", description: "", required: true },
      { key: "password", type: "text", label: "Password", description: "", required: true, sensitive: true },
    ],
  },
  // The broker and the exchange (`host:5672 → orders`).
  target: (config) => ({ target: config.server_url ? `${config.server_url}${config.exchange ? ` → ${config.exchange}` : ""}` : "" }),
  deliver: sendRabbit,
});
