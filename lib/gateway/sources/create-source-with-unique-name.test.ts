import { describe, expect, it } from "vitest";
import { suffixedName } from "@/lib/gateway/sources/create-source-with-unique-name";

describe("suffixedName", () => {
  it("suffixedName – n = 1 is the base name itself", () => {
    expect(suffixedName("Source", 1)).toBe("Source");
    expect(suffixedName("Source", 0)).toBe("Source");
  });

  it("suffixedName – n ≥ 2 appends -n", () => {
    expect(suffixedName("Source", 2)).toBe("Source-2");
    expect(suffixedName("Source", 3)).toBe("Source-3");
    expect(suffixedName("my hooks", 120)).toBe("my hooks-120");
  });

  it("suffixedName – a 155-character base is cut so the result stays 155 characters", () => {
    const base = "a".repeat(155);
    expect(suffixedName(base, 1)).toBe(base);
    expect(suffixedName(base, 2)).toBe(`${"a".repeat(153)}-2`);
    expect(suffixedName(base, 2)).toHaveLength(155);
    expect(suffixedName(base, 10)).toBe(`${"a".repeat(152)}-10`);
    expect(suffixedName(base, 1000)).toHaveLength(155);
  });

  it("suffixedName – a base just under the cap is cut only as much as needed", () => {
    const base = "b".repeat(154);
    expect(suffixedName(base, 2)).toBe(`${"b".repeat(153)}-2`);
    const short = "c".repeat(150);
    expect(suffixedName(short, 2)).toBe(`${short}-2`);
  });

  it("suffixedName – a base over 155 characters is cut to 155", () => {
    expect(suffixedName("d".repeat(200), 1)).toHaveLength(155);
    expect(suffixedName("d".repeat(200), 7)).toBe(`${"d".repeat(153)}-7`);
  });

  it("suffixedName – different n give different names even after cutting", () => {
    const base = "e".repeat(155);
    const names = new Set(Array.from({ length: 200 }, (_, i) => suffixedName(base, i + 1)));
    expect(names.size).toBe(200);
  });
});
