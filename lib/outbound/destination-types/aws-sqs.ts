/**
 * The `aws_sqs` destination type (docs/outbound.md "AWS SQS, S3 and Kinesis"): each event is one
 * SendMessage to `queue_url`, the data as body and the metadata as the message attribute `metadata`
 * (its JSON text, the reference product's shape; one attribute whatever the number of keys, so SQS's
 * limit of 10 attributes is never met). A FIFO queue (`.fifo`) gets the event id as deduplication id
 * and the topic as message group. One SDK client per destination (./clients.ts), through the address guard (./aws.ts).
 */
import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { AWS_CREDENTIALS, awsClientOptions, awsFailed, ENDPOINT_FIELD } from "@/lib/outbound/destination-types/aws";
import { fingerprintOf, succeeded, withTimeout } from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";

const CODE = "aws_sqs_error";

/** The region of a queue URL (`https://sqs.eu-west-1.amazonaws.com/…`), else us-east-1 (an emulator's URL). */
export const regionOfQueueUrl = (queueUrl: string) => /^https?:\/\/sqs[.-]([a-z]{2}(?:-[a-z]+)+-\d)\./.exec(queueUrl)?.[1] ?? "us-east-1";

/** One delivery: SendMessage; the message id is the attempt's body. Never throws. */
async function sendSqs({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const target = config.endpoint ? new URL(config.endpoint).host : new URL(config.queue_url).host;
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      async () => new SQSClient(await awsClientOptions(regionOfQueueUrl(config.queue_url), config, credentials, CODE)),
      (s) => s.destroy(),
    );
    const fifo = /\.fifo$/.test(config.queue_url);
    const out = await withTimeout(
      client.send(
        new SendMessageCommand({
          QueueUrl: config.queue_url,
          MessageBody: c.data.toString("utf8"),
          MessageAttributes: { metadata: { DataType: "String", StringValue: JSON.stringify(metadataOf(c)) } },
          ...(fifo ? { MessageDeduplicationId: c.event_id, MessageGroupId: c.topic } : {}),
        }),
      ),
      target,
    );
    return succeeded(started, out.MessageId ?? "");
  } catch (err) {
    dropClient(c.destination_id);
    return awsFailed(started, err, CODE, target);
  }
}

export const awsSqs = defineOutboundType({
  info: {
    type: "aws_sqs",
    label: "AWS SQS",
    description: "Send events to an Amazon SQS queue (or a compatible service).",
    icon: icon('<rect x="3" y="6" width="18" height="12" rx="2"/><path d="M7 10h10M7 14h6"/>'),
    instructions:
      "Each event is one message: the body is the event's JSON, the message attribute `metadata` is the JSON of its metadata (event-id, topic, timestamp, yours). FIFO queues get the event id as deduplication id and the topic as message group. The key needs `sqs:SendMessage` on the queue.",
    config_fields: [
      {
        key: "queue_url",
        type: "text",
        label: "Queue URL",
        description: "https://sqs.<region>.amazonaws.com/<account>/<queue>",
        required: true,
        pattern: "^https?:\\/\\/[^\\s]+$",
      },
      ENDPOINT_FIELD,
    ],
    credential_fields: AWS_CREDENTIALS,
  },
  // The queue URL.
  target: (config) => ({ target: config.queue_url ?? "" }),
  deliver: sendSqs,
});
