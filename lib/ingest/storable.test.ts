import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { storableJson, storableJsonText, storableText } from "@/lib/ingest/storable";

// What PostgreSQL refuses: U+0000 anywhere; a lone surrogate escape in jsonb.
const refusedByJsonb = (json: string) => /(?<!\\)(?:\\\\)*\\u(0000|d[89a-f][0-9a-f]{2})/i.test(json) || json.includes("\u0000");

describe("storableJson", () => {
  it("writes U+0000 and lone surrogates as the text of their escapes, and keeps everything else", () => {
    expect(storableJson({ a: "\u0000", b: "x\ud800", c: "\udfff", d: "😀", "\u0000k": ["\u0000"] })).toBe(
      '{"a":"\\\\u0000","b":"x\\\\ud800","c":"\\\\udfff","d":"😀","\\\\u0000k":["\\\\u0000"]}',
    );
    expect(JSON.parse(storableJson({ a: "\u0000" })!)).toEqual({ a: "\\u0000" });
    // A literal backslash followed by "u0000" is ordinary text, kept as it is.
    expect(storableJson({ a: "\\u0000", b: "\\\u0000" })).toBe('{"a":"\\\\u0000","b":"\\\\\\\\u0000"}');
    expect(storableJson({ t: "\u0001\n" })).toBe('{"t":"\\u0001\\n"}');
  });

  it("never leaves anything jsonb refuses, and changes nothing in values without it (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary" }), (value, s) => {
        for (const v of [value, { s }, [s, value]]) {
          const out = storableJson(v)!;
          expect(refusedByJsonb(out)).toBe(false);
          expect(() => JSON.parse(out)).not.toThrow();
          if (!refusedByJsonb(JSON.stringify(v))) expect(out).toBe(JSON.stringify(v));
        }
      }),
      { seed: 15, numRuns: 500 },
    );
  });

  it("gives the fallback for values JSON cannot write", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(storableJson(deep)).toBeNull();
    expect(storableJson(deep, "[]")).toBe("[]");
    expect(storableJson(undefined, "null")).toBe("null");
    expect(storableJsonText('"\\u0000"')).toBe('"\\\\u0000"');
  });
});

describe("storableText", () => {
  it("escapes U+0000 and lone surrogates only", () => {
    expect(storableText("ok\u0000done")).toBe("ok\\u0000done");
    expect(storableText("a\ud800b\udc00c😀")).toBe("a\\ud800b\\udc00c😀");
    expect(storableText("plain")).toBe("plain");
    expect(storableText(null)).toBeNull();
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = storableText(s);
        expect(out.includes("\u0000")).toBe(false);
        expect(Buffer.from(out, "utf8").toString("utf8")).toBe(out);
      }),
      { seed: 15, numRuns: 500 },
    );
  });
});
