/**
 * `rawMember` (lib/outbound/publish.ts): publish keeps an event's `data` as the bytes received, so the
 * member's text is cut out of the body as sent (spacing, key order and escapes kept).
 */
import { describe, expect, it } from "vitest";
import { rawMember } from "@/lib/outbound/publish";

describe("rawMember", () => {
  const body = '{ "tenant_id" : "t",\n\t"data" :  {"b": 2, "a": ["}", "\\\\", {"z": "\\"]"}]}  ,"topic":"x"}';
  it("returns a member's text as sent, whatever the strings inside hold", () => {
    expect(rawMember(body, "data")).toBe('{"b": 2, "a": ["}", "\\\\", {"z": "\\"]"}]}');
    expect(JSON.parse(rawMember(body, "data")!)).toEqual(JSON.parse(body).data);
    expect(rawMember(body, "tenant_id")).toBe('"t"');
    expect(rawMember(body, "topic")).toBe('"x"');
  });
  it("skips strings ending in escaped backslashes and nested members of the same name", () => {
    expect(rawMember('{"e":"\\\\\\\\","data":true}', "data")).toBe("true");
    expect(rawMember('{"e":"a\\\\\\"b","data":1}', "data")).toBe("1");
    expect(rawMember('{"x":{"data":1},"data":  "v"  }', "data")).toBe('"v"');
  });
  it("reads escaped member names, and answers null when the member is absent", () => {
    expect(rawMember('{"d\\u0061ta": [1,2]}', "data")).toBe("[1,2]");
    expect(rawMember("{}", "data")).toBeNull();
    expect(rawMember('{"a":1}', "data")).toBeNull();
    expect(rawMember('{"data":{}}', "data")).toBe("{}");
  });
});
