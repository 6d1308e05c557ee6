import { describe, expect, it } from "vitest";
import { bodyPreview, PREVIEW_BODY_BYTES } from "@/lib/http/body-preview";

const buf = (s: string) => Buffer.from(s, "utf8");

describe("bodyPreview", () => {
  it("bodyPreview – preview size is 64 KiB", () => {
    expect(PREVIEW_BODY_BYTES).toBe(64 * 1024);
  });

  it("bodyPreview – no body → null, not truncated", () => {
    expect(bodyPreview(null, 0)).toEqual({ body: null, body_encoding: null, body_truncated: false });
    expect(bodyPreview(Buffer.alloc(0), 0)).toEqual({ body: null, body_encoding: null, body_truncated: false });
  });

  it("bodyPreview – body not kept (too large) → null with body_truncated true", () => {
    expect(bodyPreview(null, 10 * 1024 * 1024 + 1)).toEqual({ body: null, body_encoding: null, body_truncated: true });
  });

  it("bodyPreview – JSON object body → parsed object", () => {
    expect(bodyPreview(buf('{"a":1,"b":[true,null,"x"]}'), 27)).toEqual({ body: { a: 1, b: [true, null, "x"] }, body_encoding: "json", body_truncated: false });
  });

  it("bodyPreview – JSON array body (with surrounding whitespace) → parsed array", () => {
    const b = buf('  [1, {"k": "v"}]\n');
    expect(bodyPreview(b, b.length)).toEqual({ body: [1, { k: "v" }], body_encoding: "json", body_truncated: false });
  });

  it("bodyPreview – text that only looks like JSON → text", () => {
    const b = buf("{not json}");
    expect(bodyPreview(b, b.length)).toEqual({ body: "{not json}", body_encoding: "text", body_truncated: false });
  });

  it("bodyPreview – JSON scalars stay text", () => {
    expect(bodyPreview(buf("42"), 2)).toMatchObject({ body: "42", body_encoding: "text" });
    expect(bodyPreview(buf('"s"'), 3)).toMatchObject({ body: '"s"', body_encoding: "text" });
  });

  it("bodyPreview – UTF-8 text → string", () => {
    const b = buf("héllo wörld ✓ 🎉");
    expect(bodyPreview(b, b.length)).toEqual({ body: "héllo wörld ✓ 🎉", body_encoding: "text", body_truncated: false });
  });

  it("bodyPreview – text that contains U+FFFD itself is still text", () => {
    const b = buf("replacement \uFFFD char");
    expect(bodyPreview(b, b.length)).toMatchObject({ body: "replacement \uFFFD char", body_encoding: "text" });
  });

  it("bodyPreview – invalid UTF-8 → base64 of the bytes", () => {
    const b = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);
    expect(bodyPreview(b, b.length)).toEqual({ body: b.toString("base64"), body_encoding: "base64", body_truncated: false });
  });

  it("bodyPreview – every byte value → base64 round-trips", () => {
    const b = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const p = bodyPreview(b, b.length);
    expect(p.body_encoding).toBe("base64");
    expect(Buffer.from(p.body as string, "base64").equals(b)).toBe(true);
  });

  it("bodyPreview – text over 64 KiB → first 64 KiB as text, truncated", () => {
    const b = Buffer.alloc(PREVIEW_BODY_BYTES + 10, "a");
    const p = bodyPreview(b, b.length);
    expect(p.body_encoding).toBe("text");
    expect(p.body_truncated).toBe(true);
    expect(p.body).toBe("a".repeat(PREVIEW_BODY_BYTES));
  });

  it("bodyPreview – JSON over 64 KiB is not parsed: truncated text", () => {
    const json = JSON.stringify({ data: "z".repeat(PREVIEW_BODY_BYTES) });
    const p = bodyPreview(buf(json), json.length);
    expect(p.body_encoding).toBe("text");
    expect(p.body_truncated).toBe(true);
    expect(p.body).toBe(json.slice(0, PREVIEW_BODY_BYTES));
  });

  it("bodyPreview – a stored prefix shorter than the body size is marked truncated and never parsed", () => {
    const p = bodyPreview(buf('{"a":1}'), 5000);
    expect(p.body_truncated).toBe(true);
    expect(p.body_encoding).toBe("text");
    expect(p.body).toBe('{"a":1}');
  });

  it("bodyPreview – binary over 64 KiB → base64 of the first 64 KiB, truncated", () => {
    const b = Buffer.alloc(PREVIEW_BODY_BYTES + 1, 0xff);
    const p = bodyPreview(b, b.length);
    expect(p.body_encoding).toBe("base64");
    expect(p.body_truncated).toBe(true);
    expect(Buffer.from(p.body as string, "base64")).toHaveLength(PREVIEW_BODY_BYTES);
  });

  it("bodyPreview – long UTF-8 text cut mid-character at 64 KiB is still shown as text", () => {
    // "€" is 3 bytes: 65 536 is not a multiple of 3, so the cut falls inside a character.
    const text = "€".repeat(30_000);
    const b = buf(text);
    const p = bodyPreview(b, b.length);
    expect(p.body_truncated).toBe(true);
    expect(p.body_encoding).toBe("text");
    expect(typeof p.body).toBe("string");
    expect(text.startsWith(p.body as string)).toBe(true);
    expect((p.body as string).length).toBe(Math.floor(PREVIEW_BODY_BYTES / 3));
  });

  it("bodyPreview – long UTF-8 text with 4-byte characters cut mid-character is still text", () => {
    const text = `x${"🎉".repeat(20_000)}`; // 1 + 80 000 bytes; 65 536 - 1 is not a multiple of 4
    const b = buf(text);
    const p = bodyPreview(b, b.length);
    expect(p.body_encoding).toBe("text");
    expect(text.startsWith(p.body as string)).toBe(true);
  });
});
