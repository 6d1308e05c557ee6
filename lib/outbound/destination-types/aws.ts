/**
 * What the AWS destination types share (docs/outbound.md "AWS SQS, S3 and Kinesis"): the SDK v3 client
 * options of a destination (its region, its custom `endpoint` for a compatible service such as
 * LocalStack or MinIO, the `key`/`secret`/`session` credentials, one attempt per call: the outbound
 * retry schedule retries) whose every connection goes through the delivery address guard, and the
 * attempt outcome of an SDK error.
 */
import http from "node:http";
import https from "node:https";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { guardedLookup, RefusedAddressError } from "@/lib/delivery/address-guard";
import { deliveryPolicy, deliveryResolver } from "@/lib/delivery/http-sender";
import { BrokerError, failed, guardHost, refusedText } from "@/lib/outbound/destination-types/broker";
import type { Field } from "@/lib/outbound/destination-types/fields";
import type { Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

/** The AWS credential fields (key, secret, session), all obfuscated on read. */
export const AWS_CREDENTIALS: Field[] = [
  { key: "key", type: "text", label: "Access key id", description: "", required: true, sensitive: true },
  { key: "secret", type: "text", label: "Secret access key", description: "", required: true, sensitive: true },
  { key: "session", type: "text", label: "Session token", description: "For temporary credentials.", required: false, sensitive: true },
];

/** The `endpoint` config field of the AWS types. */
export const ENDPOINT_FIELD: Field = {
  key: "endpoint",
  type: "text",
  label: "Endpoint",
  description: "A compatible service's URL (LocalStack, MinIO, an emulator) instead of AWS's.",
  required: false,
  pattern: "^https?:\\/\\/[^\\s/?#]+\\/?$",
};

/** The pattern of an AWS region field. */
export const REGION_PATTERN = "^[a-z]{2}(-[a-z]+)+-\\d$";

/** The agent options of a guarded connection: every host name the SDK connects to is resolved and checked by the delivery address guard. */
const guardedAgent = () => ({ keepAlive: true, maxSockets: 16, lookup: guardedLookup(deliveryPolicy(), deliveryResolver()) });

/**
 * The SDK client options of a destination in `region` (`endpoint` when set, else AWS's own): the host
 * of the endpoint is checked first (a refused literal or name fails here with BrokerError
 * `host_unreachable`), every connection's resolution after it by the agents' lookup. One attempt per
 * call, bounded by the attempt timeout. Rejects with a BrokerError.
 */
export async function awsClientOptions(region: string, config: Record<string, string>, credentials: Record<string, string>, code: string) {
  if (config.endpoint) {
    const url = new URL(config.endpoint);
    await guardHost(url.hostname, url.host, code);
  }
  const timeout = outboundConfig().deliveryTimeoutMs;
  return {
    region,
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    credentials: {
      accessKeyId: credentials.key ?? "",
      secretAccessKey: credentials.secret ?? "",
      ...(credentials.session ? { sessionToken: credentials.session } : {}),
    },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent(guardedAgent()),
      httpsAgent: new https.Agent(guardedAgent()),
      connectionTimeout: timeout,
      requestTimeout: timeout,
    }),
  };
}

/**
 * A failed AWS call as an attempt: a refused address is `host_unreachable` (the body names the target
 * as written), a socket error `code` with its error code only, an AWS error answer `code` with the HTTP
 * status as `status_code` and `Name: message` as body.
 */
export function awsFailed(started: number, err: unknown, code: string, target: string): Outcome {
  if (err instanceof RefusedAddressError || (err as { cause?: unknown })?.cause instanceof RefusedAddressError)
    return failed(started, new BrokerError("host_unreachable", refusedText(target)), code, target);
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const status = e?.$metadata?.httpStatusCode;
  if (status === undefined || (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code))) {
    if (e?.name === "TimeoutError" || e?.code === "ETIMEDOUT" || (e?.code === "ECONNRESET" && /timeout/i.test(e.message ?? "")))
      return failed(started, new BrokerError("timeout", `no answer from ${target} within ${outboundConfig().deliveryTimeoutMs} ms`), code, target);
    return failed(started, err, code, target);
  }
  const outcome = failed(started, new BrokerError(code, `${e.name ?? "Error"}: ${e.message ?? ""}`.trim()), code, target);
  return { ...outcome, response: { ...outcome.response!, status_code: status } };
}
