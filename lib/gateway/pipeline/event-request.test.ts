/**
 * The body rules and transformations see (lib/gateway/pipeline/event-request.ts parseBody): JSON
 * whatever the content type says when the body is a JSON object or array, form fields, or text.
 */
import { describe, expect, it } from "vitest";
import { parseBody } from "@/lib/gateway/pipeline/event-request";

const b = (s: string) => Buffer.from(s, "utf8");

describe("parseBody", () => {
  it("parses JSON bodies by content type, and JSON objects or arrays under any content type (curl -d sends them as forms)", () => {
    expect(parseBody(b('{"type":"invoice.paid"}'), "application/json")).toEqual({ type: "invoice.paid" });
    expect(parseBody(b('{"type":"invoice.paid"}'), "application/x-www-form-urlencoded")).toEqual({ type: "invoice.paid" });
    expect(parseBody(b(" [1,2]"), "text/plain")).toEqual([1, 2]);
    expect(parseBody(b("42"), "application/vnd.api+json")).toBe(42);
  });

  it("form bodies become their fields; text that is not JSON stays text; empty is null", () => {
    expect(parseBody(b("a=1&a=2&b=x%20y"), "application/x-www-form-urlencoded; charset=utf-8")).toEqual({ a: ["1", "2"], b: "x y" });
    expect(parseBody(b("{not json=1"), "application/x-www-form-urlencoded")).toEqual({ "{not json": "1" });
    expect(parseBody(b("{not json"), "application/json")).toBe("{not json");
    expect(parseBody(b("hello"), null)).toBe("hello");
    expect(parseBody(b(""), "application/json")).toBeNull();
    expect(parseBody(null, "application/json")).toBeNull();
  });
});
