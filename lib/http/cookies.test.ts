import { describe, expect, it } from "vitest";
import { MAX_COOKIE_HEADER_CHARS, parseCookies, readCookie } from "@/lib/http/cookies";

describe("parseCookies", () => {
  it("reads every well-formed pair, trimming spaces, keeping '=' inside values and unwrapping quotes", () => {
    expect([...parseCookies('a=1; b = x=y= ;c="quoted"; d=')]).toEqual([
      ["a", "1"],
      ["b", "x=y="],
      ["c", "quoted"],
      ["d", ""],
    ]);
  });

  it("percent-decodes values; malformed percent-encoding is no cookie, and the others still read", () => {
    expect(readCookie("s=a%20b", "s")).toBe("a b");
    for (const bad of ["%", "%E0%A4%A", "abc%", "%zz", "%C0%AF", "%ED%A0%80"]) {
      const jar = parseCookies(`before=1; s=${bad}; after=2`);
      expect(jar.has("s"), bad).toBe(false);
      expect(jar.get("before")).toBe("1");
      expect(jar.get("after")).toBe("2");
    }
  });

  it("skips pairs with an empty or non-token name, and pairs without '='", () => {
    expect([...parseCookies("=x; ==; =; flag; a b=1; ok=1; (x)=2")]).toEqual([["ok", "1"]]);
  });

  it("the first occurrence of a name decides: a later duplicate never overrides it, a malformed first leaves no cookie", () => {
    expect(readCookie("s=first; s=second", "s")).toBe("first");
    expect(readCookie("s=%; s=second", "s")).toBeUndefined();
    expect(readCookie("s=first; s=%", "s")).toBe("first");
  });

  it("a name or value holding a control character (NUL, CR, LF, DEL) is no cookie, raw or percent-encoded", () => {
    for (const bad of ["a\u0000b", "a%00b", "a%0D%0Ab", "a\rb", "a%7Fb"]) expect(readCookie(`s=${bad}; t=1`, "s"), JSON.stringify(bad)).toBeUndefined();
    expect(readCookie("s\u0000=1", "s\u0000")).toBeUndefined();
    expect(readCookie("s=a\tb", "s")).toBe("a\tb");
  });

  it("a header past the limit has no cookies; one just under it is read in linear time", () => {
    const filler = "x".repeat(MAX_COOKIE_HEADER_CHARS);
    expect(parseCookies(`s=1; f=${filler}`).size).toBe(0);
    const many = `${Array.from({ length: 3000 }, (_, i) => `c${i}=v`).join("; ")}; s=found`;
    expect(many.length).toBeLessThan(MAX_COOKIE_HEADER_CHARS);
    const started = performance.now();
    expect(readCookie(many, "s")).toBe("found");
    expect(performance.now() - started).toBeLessThan(200);
    expect(parseCookies(`s=${"%".repeat(20_000)}`).size).toBe(0);
  });

  it("absent or non-string headers have no cookies; an empty value reads as none", () => {
    expect(parseCookies(undefined).size).toBe(0);
    expect(parseCookies(null).size).toBe(0);
    expect(parseCookies("").size).toBe(0);
    expect(parseCookies(42 as unknown as string).size).toBe(0);
    expect(readCookie("s=", "s")).toBeUndefined();
  });
});
