/**
 * Key templates in both forms (docs/outbound.md "Key templates"): JMESPath expressions as the real
 * product writes them, evaluated against the event's document, and the brace templates, unchanged;
 * create-time checks name the field and carry the JMESPath parser's message.
 */
import { expect, it } from "vitest";
import { awsKinesis, partitionKeyOf } from "@/lib/outbound/destination-types/aws-kinesis";
import { awsS3 } from "@/lib/outbound/destination-types/aws-s3";
import { kafka, messageKey } from "@/lib/outbound/destination-types/kafka";
import { renderTemplate, TemplateError, templateDocument } from "@/lib/outbound/destination-types/template";
import { deliveryOf } from "@/e2e/support/brokers";

const REFERENCE_S3_DEFAULT = `join('', [time.rfc3339_nano, '_', metadata."event-id", '.json'])`;
const KEYS = { key: "AKIAEXAMPLE", secret: "secret-example" };
const asTenant = { byTenant: true, current: null };

/** A claimed event of deliveryOf with `data` as its JSON. */
function eventWith(data: unknown, time?: string) {
  const { claimed } = deliveryOf("des_tpl", {});
  return { ...claimed, data: Buffer.from(JSON.stringify(data)), ...(time ? { time: new Date(time) } : {}) };
}

it("the reference product's default S3 key template gives <RFC 3339 nano time>_<event id>.json and is accepted at create", async () => {
  const c = eventWith({ order: 7 });
  expect(renderTemplate(REFERENCE_S3_DEFAULT, c)).toBe(`2026-01-02T03:04:05.678Z_${c.event_id}.json`);
  // Go's RFC3339Nano drops trailing zeros and a whole second's fraction.
  expect(renderTemplate(REFERENCE_S3_DEFAULT, { ...c, time: new Date("2026-01-02T03:04:05.500Z") })).toBe(`2026-01-02T03:04:05.5Z_${c.event_id}.json`);
  expect(renderTemplate(REFERENCE_S3_DEFAULT, { ...c, time: new Date("2026-01-02T03:04:05.000Z") })).toBe(`2026-01-02T03:04:05Z_${c.event_id}.json`);
  const issues: string[] = [];
  const ok = await awsS3.validate(
    { config: { bucket: "archive", region: "eu-west-1", key_template: REFERENCE_S3_DEFAULT }, credentials: KEYS },
    issues,
    asTenant,
  );
  expect(issues).toEqual([]);
  expect(ok.config.key_template).toBe(REFERENCE_S3_DEFAULT);
  expect(awsS3.schema.config.safeParse({ bucket: "archive", region: "eu-west-1", key_template: REFERENCE_S3_DEFAULT }).success).toBe(true);
});

it("the document holds the event's fields, times, metadata and data", () => {
  const c = eventWith({ customer: { id: "cus_1" } });
  expect(templateDocument(c)).toEqual({
    id: c.event_id,
    event_id: c.event_id,
    topic: "order.paid",
    tenant_id: "t",
    time: { rfc3339: "2026-01-02T03:04:05Z", rfc3339_nano: "2026-01-02T03:04:05.678Z", unix: 1767323045, date: "2026-01-02" },
    metadata: { "event-id": c.event_id, topic: "order.paid", timestamp: "2026-01-02T03:04:05Z", region: "eu" },
    data: { customer: { id: "cus_1" } },
  });
});

it("a Kinesis partition key from a JMESPath path into the data: strings as they are, numbers as text, nothing: the event id", async () => {
  expect(partitionKeyOf("data.customer.id", eventWith({ customer: { id: "cus_1" } }))).toBe("cus_1");
  expect(partitionKeyOf("data.customer.id", eventWith({ customer: { id: 42 } }))).toBe("42");
  const none = eventWith({ order: 7 });
  expect(partitionKeyOf("data.customer.id", none)).toBe(none.event_id);
  expect(() => partitionKeyOf("data.customer", eventWith({ customer: { id: 1 } }))).toThrow(
    new TemplateError("config.partition_key_template gave an object, not a string or number"),
  );
  const issues: string[] = [];
  await awsKinesis.validate(
    { config: { stream_name: "orders", region: "eu-west-1", partition_key_template: "data.customer.id" }, credentials: KEYS },
    issues,
    asTenant,
  );
  expect(issues).toEqual([]);
});

it("a bad expression is refused at create with the field's name and the parser's message", async () => {
  const issues: string[] = [];
  await awsKinesis.validate(
    { config: { stream_name: "orders", region: "eu-west-1", partition_key_template: "join('', [data.id" }, credentials: KEYS },
    issues,
    asTenant,
  );
  expect(issues).toEqual(['config.partition_key_template is not a valid JMESPath expression: Syntax error: invalid token (EOF): ""']);
  const s3: string[] = [];
  await awsS3.validate({ config: { bucket: "archive", region: "eu-west-1", key_template: "{event_id" }, credentials: KEYS }, s3, asTenant);
  expect(s3).toEqual(["config.key_template is not a valid JMESPath expression: Syntax error: expected Colon, got: EOF"]);
});

it("brace templates render as before: placeholders, plain text, and an unknown placeholder fails the field's pattern", async () => {
  const c = eventWith({ customer: { id: "cus_1" } });
  expect(renderTemplate("{topic}/{date}/{hour}/{event_id}.json", c)).toBe(`order.paid/2026-01-02/03/${c.event_id}.json`);
  expect(renderTemplate("{time}_{event_id}.json", c)).toBe(`2026-01-02T03:04:05.678Z_${c.event_id}.json`);
  expect(renderTemplate("{metadata.region}-{metadata.none}", c)).toBe("eu-");
  // Plain text stays literal (letters, digits, spaces, _ . / : + = @ -), unless it begins with a document field.
  for (const text of ["my orders", "orders-eu", "archive/all.json", "2026"]) expect(renderTemplate(text, c)).toBe(text);
  expect(renderTemplate("topic", c)).toBe("order.paid");
  // Other text stored before JMESPath was accepted renders as it did, though a new one must parse.
  expect(renderTemplate("orders #1", c)).toBe("orders #1");
  const issues: string[] = [];
  await awsS3.validate({ config: { bucket: "archive", region: "eu-west-1", key_template: "{topic}/{nope}.json" }, credentials: KEYS }, issues, asTenant);
  expect(issues).toEqual(["config.key_template failed pattern validation"]);
});

it("kafka takes the reference's partition_key_template, keeps key_template as its alias, and checks both", async () => {
  const c = eventWith({ customer: { id: "cus_1" } });
  expect(messageKey({ partition_key_template: "data.customer.id" }, c)).toBe("cus_1");
  expect(messageKey({ key_template: "{metadata.region}" }, c)).toBe("eu");
  expect(messageKey({ partition_key_template: "topic", key_template: "{metadata.region}" }, c)).toBe("order.paid");
  expect(messageKey({}, c)).toBe(c.event_id);
  const issues: string[] = [];
  const ok = await kafka.validate(
    { config: { brokers: "k1:9092", topic: "orders", partition_key_template: "data.customer.id", key_template: "data.[" }, credentials: {} },
    issues,
    asTenant,
  );
  expect(issues).toEqual([expect.stringMatching(/^config\.key_template is not a valid JMESPath expression: Syntax error: /)]);
  expect(ok.config.partition_key_template).toBe("data.customer.id");
});
