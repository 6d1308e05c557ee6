/**
 * Key templates of the destination types that name what they write (docs/outbound.md "Key templates"):
 * the S3 object key, the Kinesis partition key, the Kafka message key. A template is text with
 * placeholders in braces, each replaced by a value of the event: `{event_id}`, `{topic}`, `{tenant_id}`,
 * `{time}` (RFC 3339 with milliseconds, UTC), `{date}` (`YYYY-MM-DD`), `{year}`, `{month}`, `{day}`,
 * `{hour}`, `{minute}` (UTC, zero-padded), `{metadata.<key>}` (a metadata value, empty when absent).
 */
import { metadataOf, type Claimed } from "@/lib/outbound/destination-types/type";

const NAMES = ["event_id", "topic", "tenant_id", "time", "date", "year", "month", "day", "hour", "minute"];

/** The pattern of a template field: text without unmatched braces, every placeholder a known one. */
export const TEMPLATE_PATTERN = `^([^{}]|\\{(${NAMES.join("|")}|metadata\\.[^{}\\s]+)\\})+$`;

/** What the fields' descriptions say of the placeholders. */
export const TEMPLATE_HELP =
  "Placeholders: {event_id}, {topic}, {tenant_id}, {time} (RFC 3339, UTC), {date}, {year}, {month}, {day}, {hour}, {minute}, {metadata.<key>}.";

/** `template` with its placeholders replaced by the values of event `c` (an unknown placeholder stays as written). */
export function renderTemplate(template: string, c: Claimed): string {
  const iso = c.time.toISOString();
  const values: Record<string, string> = {
    event_id: c.event_id,
    topic: c.topic,
    tenant_id: c.tenant_id,
    time: iso,
    date: iso.slice(0, 10),
    year: iso.slice(0, 4),
    month: iso.slice(5, 7),
    day: iso.slice(8, 10),
    hour: iso.slice(11, 13),
    minute: iso.slice(14, 16),
  };
  const metadata = metadataOf(c);
  return template.replace(/\{([^{}]+)\}/g, (whole, name: string) =>
    name.startsWith("metadata.") ? (metadata[name.slice("metadata.".length)] ?? "") : (values[name] ?? whole),
  );
}
