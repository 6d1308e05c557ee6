/**
 * The `aws_kinesis` destination type (docs/outbound.md "AWS Kinesis"): each event is one PutRecord to
 * `stream_name`, the record the JSON `{"metadata": {…}, "data": <the event's data>}` (a Kinesis record has
 * no attributes), its partition key what `partition_key_template` renders (./template.ts; default the
 * event id). One SDK client per destination (./clients.ts), through the address guard (./aws.ts).
 */
import { AWS_CREDENTIALS, awsClientOptions, awsFailed, ENDPOINT_FIELD, REGION_PATTERN } from "@/lib/outbound/destination-types/aws";
import { fingerprintOf, succeeded, withTimeout } from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { checkTemplates, renderTemplate, TEMPLATE_HELP, TEMPLATE_PATTERN } from "@/lib/outbound/destination-types/template";
import { type Claimed, defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";

const CODE = "aws_kinesis_error";
/** The Kinesis SDK, loaded at the first delivery rather than at every process's start (a cached import after it). */
const sdk = () => import("@aws-sdk/client-kinesis");
/** Longest partition key Kinesis takes, characters. */
const MAX_PARTITION_KEY = 256;

/** The partition key of event `c`: the template's rendering cut to 256 characters, the event id when it renders nothing. Throws a TemplateError (./template.ts). */
export const partitionKeyOf = (template: string | undefined, c: Claimed) =>
  [...(template ? renderTemplate(template, c, "config.partition_key_template") : "")].slice(0, MAX_PARTITION_KEY).join("") || c.event_id;

/** The record of event `c`: `{"metadata":…,"data":…}` with the data byte for byte. */
export const kinesisRecord = (c: Claimed) => Buffer.concat([Buffer.from(`{"metadata":${JSON.stringify(metadataOf(c))},"data":`), c.data, Buffer.from("}")]);

/** One delivery: PutRecord; `<shard id>/<sequence number>` is the attempt's body. Never throws. */
async function sendKinesis({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.endpoint ? new URL(config.endpoint).host : `kinesis.${config.region}.amazonaws.com`;
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      async () => new (await sdk()).KinesisClient(await awsClientOptions(config.region, config, credentials, CODE)),
      (k) => k.destroy(),
    );
    const { PutRecordCommand } = await sdk();
    const out = await withTimeout(
      client.send(
        new PutRecordCommand({ StreamName: config.stream_name, PartitionKey: partitionKeyOf(config.partition_key_template, c), Data: kinesisRecord(c) }),
      ),
      target,
    );
    return succeeded(started, `${out.ShardId ?? ""}/${out.SequenceNumber ?? ""}`);
  } catch (err) {
    dropClient(c.destination_id);
    return awsFailed(started, err, CODE, target);
  }
}

export const awsKinesis = defineOutboundType({
  info: {
    type: "aws_kinesis",
    label: "AWS Kinesis",
    description: "Put events as records on an Amazon Kinesis data stream (or a compatible service).",
    icon: icon('<path d="M3 6c3 0 3 3 6 3s3-3 6-3 3 3 6 3"/><path d="M3 12c3 0 3 3 6 3s3-3 6-3 3 3 6 3"/><path d="M3 18c3 0 3 3 6 3s3-3 6-3 3 3 6 3"/>'),
    instructions:
      'Each event is one record: `{"metadata": {…}, "data": <the event\'s JSON>}` (metadata: event-id, topic, timestamp, yours). The partition key comes from the partition key template, a JMESPath expression or text with placeholders (default: the event id). The key needs `kinesis:PutRecord` on the stream.',
    config_fields: [
      { key: "stream_name", type: "text", label: "Stream name", description: "The data stream's name.", required: true, pattern: "^[a-zA-Z0-9_.-]{1,128}$" },
      { key: "region", type: "text", label: "Region", description: "The stream's AWS region, e.g. eu-west-1.", required: true, pattern: REGION_PATTERN },
      ENDPOINT_FIELD,
      {
        key: "partition_key_template",
        type: "text",
        label: "Partition key template",
        description: `The record's partition key (cut to 256 characters; empty: the event id). ${TEMPLATE_HELP}`,
        required: false,
        pattern: TEMPLATE_PATTERN,
      },
    ],
    credential_fields: AWS_CREDENTIALS,
  },
  checkValues: (config, _credentials, issues) => checkTemplates(config, ["partition_key_template"], issues),
  // The stream and its region (`orders (eu-west-1)`).
  target: (config) => ({ target: config.stream_name ? `${config.stream_name} (${config.region ?? ""})` : "" }),
  deliver: sendKinesis,
});
