/**
 * The request as rules see it (docs/pipeline.md#transform): `{headers, body, path, query,
 * parsed_query}` with `body` parsed (JSON, or form fields) when it can be, else the text.
 */
import { parseQueryString } from "@/lib/http/query";
import type { TransformRequest } from "@/lib/rules/run-transformation";
import { parseCapturedJson } from "@/lib/http/json-input";

/**
 * Body as rules and transformations see it: parsed JSON, form fields as an object, text, or null.
 * A body that is a JSON object or array is parsed as JSON whatever its content type says, so
 * `curl -d '{"type":"invoice.paid"}'` (sent as a form by curl) still filters on `body.type`; other
 * `application/x-www-form-urlencoded` bodies become their fields.
 */
export function parseBody(body: Buffer | null, contentType: string | null | undefined): unknown {
  if (!body || body.length === 0) return null;
  const text = body.toString("utf8");
  const type = (contentType ?? "").toLowerCase();
  const trimmed = text.trimStart();
  if (type.includes("json") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return parseCapturedJson(text);
    } catch {
      if (!type.includes("application/x-www-form-urlencoded")) return text;
    }
  }
  if (type.includes("application/x-www-form-urlencoded")) return parseQueryString(text);
  return text;
}

/** The rule view of a stored request. */
export function toRuleRequest(raw: {
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  content_type: string | null;
}): TransformRequest {
  return {
    headers: raw.headers,
    body: parseBody(raw.body, raw.content_type ?? raw.headers["content-type"]),
    path: raw.path,
    query: raw.query,
    parsed_query: parseQueryString(raw.query),
  };
}

/** Bytes to deliver for a rule-view body: strings as they are, anything else as JSON; null for none. */
export function serializeBody(body: unknown): Buffer | null {
  if (body === null || body === undefined) return null;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  return Buffer.from(JSON.stringify(body), "utf8");
}
