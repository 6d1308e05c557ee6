/**
 * The `aws_s3` destination type (docs/outbound.md "AWS S3"): each event is one object, PutObject to
 * `bucket` under the key `key_template` renders (./template.ts; default `{time}_{event_id}.json`), the
 * event's JSON as body (`application/json`) and its metadata as the object's user metadata
 * (`x-amz-meta-*`). One SDK client per destination (./clients.ts), through the address guard (./aws.ts).
 */
import type { StorageClass } from "@aws-sdk/client-s3";
import { AWS_CREDENTIALS, awsClientOptions, awsFailed, ENDPOINT_FIELD, REGION_PATTERN } from "@/lib/outbound/destination-types/aws";
import { fingerprintOf, succeeded, withTimeout } from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { checkTemplates, renderTemplate, TEMPLATE_HELP, TEMPLATE_PATTERN } from "@/lib/outbound/destination-types/template";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";

const CODE = "aws_s3_error";
/** The S3 SDK, loaded at the first delivery rather than at every process's start (a cached import after it). */
const sdk = () => import("@aws-sdk/client-s3");
/** The object key of a template that renders nothing, and the default template: the real product's default key. */
export const DEFAULT_KEY_TEMPLATE = "{time}_{event_id}.json";
const STORAGE_CLASSES = ["STANDARD", "INTELLIGENT_TIERING", "STANDARD_IA", "ONEZONE_IA", "GLACIER_IR", "GLACIER", "DEEP_ARCHIVE", "REDUCED_REDUNDANCY"];

/**
 * The user metadata of an object: the delivery's metadata with keys lower-cased and characters outside
 * a header name's replaced by `_`, values outside printable ASCII percent-encoded (an HTTP header carries
 * nothing else; docs/outbound.md "AWS S3").
 */
export function s3Metadata(metadata: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(metadata).map(([k, v]) => [k.toLowerCase().replace(/[^a-z0-9!#$%&'*+.^_`|~-]/g, "_"), /^[\x20-\x7e]*$/.test(v) ? v : encodeURIComponent(v)]),
  );
}

/** One delivery: PutObject; the object key is the attempt's body. Never throws. */
async function sendS3({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.endpoint ? new URL(config.endpoint).host : `${config.bucket}.s3.${config.region}.amazonaws.com`;
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      async () => new (await sdk()).S3Client(await awsClientOptions(config.region, config, credentials, CODE)),
      (s) => s.destroy(),
    );
    const { PutObjectCommand } = await sdk();
    const key = renderTemplate(config.key_template || DEFAULT_KEY_TEMPLATE, c, "config.key_template") || renderTemplate(DEFAULT_KEY_TEMPLATE, c);
    await withTimeout(
      client.send(
        new PutObjectCommand({
          Bucket: config.bucket,
          Key: key,
          Body: c.data,
          ContentType: "application/json",
          Metadata: s3Metadata(metadataOf(c)),
          ...(config.storage_class ? { StorageClass: config.storage_class as StorageClass } : {}),
        }),
      ),
      target,
    );
    return succeeded(started, key);
  } catch (err) {
    dropClient(c.destination_id);
    return awsFailed(started, err, CODE, target);
  }
}

export const awsS3 = defineOutboundType({
  info: {
    type: "aws_s3",
    label: "AWS S3",
    description: "Write each event as an object to an Amazon S3 bucket (or a compatible service).",
    icon: icon('<ellipse cx="12" cy="6" rx="8" ry="3"/><path d="M4 6l2 12c0 1.7 2.7 3 6 3s6-1.3 6-3l2-12"/>'),
    instructions:
      "Each event is one object: the body is the event's JSON (`application/json`), the object's user metadata (`x-amz-meta-*`) its metadata (event-id, topic, timestamp, yours). The key comes from the key template, a JMESPath expression or text with placeholders (default `{time}_{event_id}.json`). The key needs `s3:PutObject` on the bucket.",
    config_fields: [
      { key: "bucket", type: "text", label: "Bucket", description: "The bucket's name.", required: true, pattern: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$" },
      { key: "region", type: "text", label: "Region", description: "The bucket's AWS region, e.g. eu-west-1.", required: true, pattern: REGION_PATTERN },
      {
        key: "key_template",
        type: "text",
        label: "Key template",
        description: `The object key. ${TEMPLATE_HELP}`,
        required: false,
        default: DEFAULT_KEY_TEMPLATE,
        pattern: TEMPLATE_PATTERN,
      },
      {
        key: "storage_class",
        type: "select",
        label: "Storage class",
        description: "The objects' storage class.",
        required: false,
        default: "STANDARD",
        options: STORAGE_CLASSES.map((value) => ({ label: value, value })),
      },
      ENDPOINT_FIELD,
    ],
    credential_fields: AWS_CREDENTIALS,
  },
  checkValues: (config, _credentials, issues) => checkTemplates(config, ["key_template"], issues),
  // The bucket (`s3://orders-archive`).
  target: (config) => ({ target: config.bucket ? `s3://${config.bucket}` : "" }),
  deliver: sendS3,
});
