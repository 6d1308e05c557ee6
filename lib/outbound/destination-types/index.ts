/**
 * The outbound service's destination types: the one registration list (docs/destination-types.md
 * "Adding a destination type"). The order here is the order of `GET /destination-types` and of the
 * OpenAPI document's per-type schemas.
 */
import { DestinationTypeRegistry } from "@/lib/delivery/destination-types";
import { awsKinesis } from "@/lib/outbound/destination-types/aws-kinesis";
import { awsS3 } from "@/lib/outbound/destination-types/aws-s3";
import { awsSqs } from "@/lib/outbound/destination-types/aws-sqs";
import type { DestinationTypeInfo } from "@/lib/outbound/destination-types/fields";
import { gcpPubSub } from "@/lib/outbound/destination-types/gcp-pubsub";
import { gateway } from "@/lib/outbound/destination-types/gateway";
import { kafka } from "@/lib/outbound/destination-types/kafka";
import { mqtt } from "@/lib/outbound/destination-types/mqtt";
import { nats } from "@/lib/outbound/destination-types/nats";
import { rabbitmq } from "@/lib/outbound/destination-types/rabbitmq";
import { redisStream } from "@/lib/outbound/destination-types/redis-stream";
import { standardWebhook } from "@/lib/outbound/destination-types/standard-webhook";
import type { OutboundDestinationType } from "@/lib/outbound/destination-types/type";
import { webhook } from "@/lib/outbound/destination-types/webhook";

/** Every outbound destination type, by name. */
export const OUTBOUND_DESTINATION_TYPES = new DestinationTypeRegistry<OutboundDestinationType>("outbound").register(
  webhook,
  standardWebhook,
  gateway,
  rabbitmq,
  redisStream,
  nats,
  mqtt,
  awsSqs,
  awsS3,
  awsKinesis,
  gcpPubSub,
  kafka,
);

/** The `GET /destination-types` answer: each type's input schema, in registration order. */
export const DESTINATION_TYPES: DestinationTypeInfo[] = OUTBOUND_DESTINATION_TYPES.list().map((t) => t.info);

/** The input schema of the type named `type` (`GET /destination-types/{type}`), or undefined. */
export const destinationType = (type: string): DestinationTypeInfo | undefined => OUTBOUND_DESTINATION_TYPES.find(type)?.info;

export { type DestinationTypeInfo, type Field, fieldsSchema } from "@/lib/outbound/destination-types/fields";
