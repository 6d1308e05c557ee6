/**
 * Key templates of the destination types that name what they write (docs/outbound.md "Key templates"):
 * the S3 object key, the Kinesis partition key, the Kafka message key, the Pub/Sub ordering key. A
 * template is one of two forms:
 * - a brace template: text with placeholders in braces, each replaced by a value of the event:
 *   `{event_id}`, `{topic}`, `{tenant_id}`, `{time}` (RFC 3339 with milliseconds, UTC), `{date}`
 *   (`YYYY-MM-DD`), `{year}`, `{month}`, `{day}`, `{hour}`, `{minute}` (UTC, zero-padded),
 *   `{metadata.<key>}` (a metadata value, empty when absent);
 * - a JMESPath expression (the real product's form), evaluated against the event's document
 *   ({@link templateDocument}); its result must be a string or a number (null: renders nothing).
 * Plain text (`orders-eu`) stays literal text, as it always was; see {@link parseTemplate} for the rule.
 */
import { compile, type JSONValue, TreeInterpreter } from "@jmespath-community/jmespath";
import { type Claimed, metadataOf } from "@/lib/outbound/destination-types/type";

const NAMES = ["event_id", "topic", "tenant_id", "time", "date", "year", "month", "day", "hour", "minute"];

/** A brace template: text without unmatched braces, every placeholder a known one. */
const BRACE = new RegExp(`^([^{}]|\\{(${NAMES.join("|")}|metadata\\.[^{}\\s]+)\\})+$`);

/**
 * The pattern of a template field (the portal's form and the OpenAPI schema check it): a brace template,
 * or any text with no brace placeholder-like `{name}` (a JMESPath expression, which checkTemplates parses).
 * So `{topic}/{nope}.json` fails it, as before JMESPath was accepted.
 */
export const TEMPLATE_PATTERN = `${BRACE.source}|^(?![\\s\\S]*\\{[A-Za-z_][\\w.-]*\\})[\\s\\S]+$`;

/** What the fields' descriptions say of the two forms. */
export const TEMPLATE_HELP =
  "A JMESPath expression over {id, event_id, topic, tenant_id, time: {rfc3339, rfc3339_nano, unix, date}, metadata, data}, e.g. data.customer.id, or text with placeholders: {event_id}, {topic}, {tenant_id}, {time} (RFC 3339, UTC), {date}, {year}, {month}, {day}, {hour}, {minute}, {metadata.<key>}.";

/** A template that cannot be parsed or whose JMESPath result is not a string or number; `message` says why. */
export class TemplateError extends Error {}

/** A compiled JMESPath expression (the library does not export its node type). */
type ExpressionNode = ReturnType<typeof compile>;
type Parsed = { kind: "brace" } | { kind: "jmespath"; ast: ExpressionNode };

/** The document's top-level fields ({@link templateDocument}). */
const DOCUMENT_FIELDS = ["id", "event_id", "topic", "tenant_id", "time", "metadata", "data"];
/** Text that reads as a plain key (`orders`, `archive/all.json`, `orders-eu`): letters, digits, spaces and `_ . / : + = @ -`. */
const PLAIN_TEXT = /^[\w\s./:+=@-]+$/;
/** Text that begins with a field of the document (`data.customer.id`, `topic`). */
const FROM_DOCUMENT = new RegExp(`^(${DOCUMENT_FIELDS.join("|")})(\\.|$)`);

/** Parsed templates by text (a destination's template is rendered at every delivery); cleared when full. */
const parsedCache = new Map<string, Parsed>();
const MAX_CACHED = 1000;

/**
 * The form of `template` (docs/outbound.md "Key templates"), its JMESPath syntax tree compiled once:
 * - a brace template: at least one placeholder, every brace a known placeholder;
 * - literal text (a brace template without placeholders, as before JMESPath was accepted): plain text
 *   ({@link PLAIN_TEXT}) that does not begin with a field of the document;
 * - else a JMESPath expression.
 * Throws a TemplateError with the JMESPath parser's message when the expression does not parse.
 */
export function parseTemplate(template: string): Parsed {
  const cached = parsedCache.get(template);
  if (cached) return cached;
  let parsed: Parsed;
  if (BRACE.test(template) && (/[{}]/.test(template) || (PLAIN_TEXT.test(template) && !FROM_DOCUMENT.test(template)))) parsed = { kind: "brace" };
  else {
    try {
      parsed = { kind: "jmespath", ast: compile(template) };
    } catch (err) {
      throw new TemplateError(err instanceof Error ? err.message : String(err));
    }
  }
  if (parsedCache.size >= MAX_CACHED) parsedCache.clear();
  parsedCache.set(template, parsed);
  return parsed;
}

/**
 * Create/update checks of the template fields `keys` of `config` (docs/outbound.md "Key templates"):
 * a value that passed its field's pattern but is no JMESPath expression gets
 * `config.<key> is not a valid JMESPath expression: <the parser's message>` pushed to `issues` (422).
 */
export function checkTemplates(config: Record<string, string>, keys: string[], issues: string[]): void {
  const pattern = new RegExp(TEMPLATE_PATTERN);
  for (const key of keys) {
    const value = config[key];
    if (!value || !pattern.test(value)) continue; // empty: the default; failing the pattern: already reported
    try {
      parseTemplate(value);
    } catch (err) {
      issues.push(`config.${key} is not a valid JMESPath expression: ${(err as Error).message}`);
    }
  }
}

/** `time` as Go's RFC 3339 with nanoseconds (what the real product gives): fraction without trailing zeros, none when whole. */
const rfc3339Nano = (iso: string) => {
  const fraction = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`;
};

/**
 * The document a JMESPath template is evaluated against: `{id, event_id, topic, tenant_id, time:
 * {rfc3339 (seconds), rfc3339_nano, unix (seconds), date (YYYY-MM-DD)}, metadata (the delivery's:
 * event-id, topic, timestamp, delivery_metadata, the event's), data (the event's JSON; null if unparsable)}`.
 */
export function templateDocument(c: Claimed): JSONValue {
  const iso = c.time.toISOString();
  let data: JSONValue = null;
  try {
    data = JSON.parse(c.data.toString("utf8")) as JSONValue;
  } catch {
    data = null;
  }
  return {
    id: c.event_id,
    event_id: c.event_id,
    topic: c.topic,
    tenant_id: c.tenant_id,
    time: { rfc3339: `${iso.slice(0, 19)}Z`, rfc3339_nano: rfc3339Nano(iso), unix: Math.floor(c.time.getTime() / 1000), date: iso.slice(0, 10) },
    metadata: metadataOf(c),
    data,
  };
}

/** A brace template with its placeholders replaced by the values of event `c` (an unknown placeholder stays as written). */
function renderBraces(template: string, c: Claimed): string {
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

/**
 * `template` rendered for event `c`: a brace template with its placeholders replaced, a JMESPath
 * expression's result (a string as is, a number as its decimal text, null as ""). Throws a TemplateError
 * naming `field` when the expression fails or gives anything else (an object, an array, a boolean).
 */
export function renderTemplate(template: string, c: Claimed, field = "template"): string {
  let parsed: Parsed;
  try {
    parsed = parseTemplate(template);
  } catch (err) {
    // Stored before JMESPath was accepted (brace-valid text, never checked as JMESPath): literal, as it was.
    if (BRACE.test(template)) return template;
    throw new TemplateError(`${field} is not a valid JMESPath expression: ${(err as Error).message}`);
  }
  if (parsed.kind === "brace") return renderBraces(template, c);
  let result: JSONValue;
  try {
    result = TreeInterpreter.search(parsed.ast, templateDocument(c));
  } catch (err) {
    throw new TemplateError(`${field}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (result === null) return "";
  if (typeof result === "string") return result;
  if (typeof result === "number") return String(result);
  throw new TemplateError(
    `${field} gave ${Array.isArray(result) ? "an array" : typeof result === "object" ? "an object" : `a ${typeof result}`}, not a string or number`,
  );
}
