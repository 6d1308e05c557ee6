/**
 * `npm run bench:outbound -- --type <type>` (docs/benchmarks.md "Destination types"): one destination
 * type's delivery alone (its deliver(), the code an outbound worker runs per attempt) against its local
 * server started here (e2e/support/brokers.ts; fauxqs for aws_sqs and aws_s3, kinesalite for aws_kinesis, the
 * Pub/Sub REST stand-in of e2e/support/pubsub-emulator.ts for gcp_pubsub): BENCH_REQUESTS deliveries (default
 * 5000) at BENCH_CONCURRENCY in flight (default 16), over the destination's one warm client. Prints
 * deliveries/s and the latency p50/p99 of one delivery; any failed delivery fails the run.
 */
import { startFauxqs } from "fauxqs";
import { closeAllClients } from "@/lib/outbound/destination-types/clients";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { deliveryOf, startKinesalite, startMosquitto, startNats, startRedis } from "../../e2e/support/brokers";
import { startPubSubEmulator } from "../../e2e/support/pubsub-emulator";
import { log, percentile } from "./common";

/** A local server of `type` and the config of a destination on it; `stop` ends it. */
async function serverFor(type: string): Promise<{ config: Record<string, string>; credentials: Record<string, string>; stop: () => Promise<void> }> {
  if (type === "redis_stream") {
    const s = await startRedis();
    return { config: { server_url: `127.0.0.1:${s.port}`, stream: "bench", maxlen: "10000" }, credentials: {}, stop: s.stop };
  }
  if (type === "nats") {
    const s = await startNats();
    return { config: { server_url: `127.0.0.1:${s.port}`, subject: "bench" }, credentials: {}, stop: s.stop };
  }
  if (type === "mqtt") {
    const s = await startMosquitto();
    return { config: { server_url: `127.0.0.1:${s.port}`, topic: "bench", qos: "1" }, credentials: {}, stop: s.stop };
  }
  if (type === "aws_sqs") {
    const s = await startFauxqs({ port: 0, host: "127.0.0.1", logger: false });
    const { queueUrl } = s.createQueue("bench");
    return {
      config: { queue_url: queueUrl, endpoint: `http://127.0.0.1:${s.port}` },
      credentials: { key: "AKIABENCH", secret: "bench" },
      stop: () => s.stop(),
    };
  }
  if (type === "aws_s3") {
    const s = await startFauxqs({ port: 0, host: "127.0.0.1", logger: false });
    s.createBucket("bench");
    return {
      config: { bucket: "bench", region: "us-east-1", key_template: "{date}/{event_id}.json", endpoint: `http://127.0.0.1:${s.port}` },
      credentials: { key: "AKIABENCH", secret: "bench" },
      stop: () => s.stop(),
    };
  }
  if (type === "aws_kinesis") {
    const s = await startKinesalite("bench");
    return { config: { stream_name: "bench", region: "us-east-1", endpoint: s.endpoint }, credentials: { key: "AKIABENCH", secret: "bench" }, stop: s.stop };
  }
  if (type === "gcp_pubsub") {
    const s = await startPubSubEmulator(["projects/bench-project/topics/bench"]);
    return { config: { project_id: "bench-project", topic: "bench", endpoint: s.url }, credentials: {}, stop: s.stop };
  }
  throw new Error(`--type ${type}: no local server for this type (redis_stream, nats, mqtt, aws_sqs, aws_s3, aws_kinesis, gcp_pubsub)`);
}

/** Runs the benchmark of `type` and prints its table row. Throws when a delivery fails. */
export async function benchDestinationType(type: string): Promise<void> {
  const requests = Number(process.env.BENCH_REQUESTS ?? 5000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  const t = OUTBOUND_DESTINATION_TYPES.get(type);
  const server = await serverFor(type);
  try {
    const one = () => t.deliver(deliveryOf("des_bench", server.config, server.credentials));
    for (let i = 0; i < 200; i++) await one(); // warm-up: the client, JIT
    const latencies: number[] = [];
    let next = 0;
    let failures = "";
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < requests) {
          const at = performance.now();
          const o = await one();
          latencies.push(performance.now() - at);
          if (!o.success) failures ||= `${o.code}: ${o.response?.body ?? ""}`;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (failures) throw new Error(`a delivery failed: ${failures}`);
    latencies.sort((a, b) => a - b);
    log(`${type}: ${requests} deliveries, ${concurrency} in flight, one warm client`);
    console.log("| type | deliveries/s | p50 ms | p99 ms |\n|---|---|---|---|");
    console.log(`| ${type} | ${Math.round(requests / seconds)} | ${percentile(latencies, 50).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} |`);
  } finally {
    closeAllClients();
    await server.stop();
  }
}
