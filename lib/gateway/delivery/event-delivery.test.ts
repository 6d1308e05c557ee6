import { describe, expect, it } from "vitest";
import { deliveredRequest } from "@/lib/gateway/delivery/event-delivery";

const raw = { method: "POST", path: "/in", query: "a=1", headers: { "x-a": "1" }, body: Buffer.from("raw body") };

describe("deliveredRequest", () => {
  it("delivers a transformed body kept as base64 (it held U+0000) byte for byte", () => {
    const bytes = Buffer.from("text\u0000with nul", "utf8");
    const got = deliveredRequest({ ...raw, data: { path: "/t", query: "", headers: {}, body: null, body_base64: bytes.toString("base64") } });
    expect(got.body).toEqual(bytes);
    expect(got.path).toBe("/t");
    // Text bodies as UTF-8, none as null, and the raw body when not transformed, as before.
    expect(deliveredRequest({ ...raw, data: { path: "/t", query: "", headers: {}, body: "é" } }).body).toEqual(Buffer.from("é"));
    expect(deliveredRequest({ ...raw, data: { path: "/t", query: "", headers: {}, body: null } }).body).toBeNull();
    expect(deliveredRequest({ ...raw, data: null }).body).toEqual(raw.body);
  });

  it("refuses stored data whose body is not text with a TypeError saying so", () => {
    const odd = { path: "/t", query: "", headers: {}, body: { not: "text" } } as never;
    expect(() => deliveredRequest({ ...raw, data: odd })).toThrow(/not text/);
  });
});
