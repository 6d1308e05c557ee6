import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { base62, createId, createToken, ID_PREFIX, idLowerBound, publicSourceId, sourceIdFromPublic } from "@/lib/ids";

const BASE62_22 = /^[0-9A-Za-z]{22}$/;

/** The textbook encoding, with BigInt, to check the word-wise long division against. */
function base62Reference(bytes: Buffer): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  for (let i = 0; i < 22; i++) {
    out = alphabet[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

describe("lib/ids", () => {
  it("idLowerBound: the smallest id of a kind at a ms; ids sort by day around it (partition bounds)", () => {
    const day = Date.UTC(2026, 10, 23);
    expect(idLowerBound("event", 0)).toBe("evt_" + "0".repeat(22));
    const bytes = Buffer.alloc(16);
    bytes.writeUIntBE(day, 0, 6);
    expect(idLowerBound("request", day)).toBe("req_" + base62(bytes));
    for (const ms of [day - 1, day, day + 1, day + 86_399_999]) {
      for (let i = 0; i < 50; i++) {
        const id = createId("request", ms);
        expect(id >= idLowerBound("request", day)).toBe(ms >= day);
        expect(id < idLowerBound("request", day + 86_400_000)).toBe(true);
      }
    }
    expect(() => idLowerBound("source", day)).toThrow(/creation time/);
  });

  it("base62 – equals the BigInt encoding, extremes included", () => {
    const cases = [
      Buffer.alloc(16),
      Buffer.alloc(16, 0xff),
      Buffer.from("000000000000000000000000000000ff", "hex"),
      ...Array.from({ length: 500 }, () => randomBytes(16)),
    ];
    for (const bytes of cases) expect(base62(bytes)).toBe(base62Reference(bytes));
    expect(base62(Buffer.alloc(16))).toBe("0".repeat(22));
    expect(base62(Buffer.alloc(16, 0xff))).toBe("7n42DGM5Tflk9n8mt7Fhc7");
  });

  it.each([
    ["team", "tm_"],
    ["session", "ses_"],
    ["source", "src_"],
    ["request", "req_"],
  ] as const)("createId(%s) → prefix %s then 22 base62 characters", (kind, prefix) => {
    expect(ID_PREFIX[kind]).toBe(prefix);
    for (let i = 0; i < 50; i++) {
      const id = createId(kind);
      expect(id.startsWith(prefix)).toBe(true);
      expect(id.slice(prefix.length)).toMatch(BASE62_22);
    }
  });

  it("createId – ids are distinct", () => {
    const ids = new Set(Array.from({ length: 2000 }, () => createId("source")));
    expect(ids.size).toBe(2000);
  });

  it("createId(request) – ids sort by creation time (string order)", () => {
    const t0 = Date.UTC(2026, 0, 1);
    const times = [t0, t0 + 1, t0 + 2, t0 + 1000, t0 + 60_000, t0 + 86_400_000, Date.UTC(2030, 5, 1)];
    for (let round = 0; round < 50; round++) {
      const ids = times.map((t) => createId("request", t));
      expect([...ids].sort()).toEqual(ids);
    }
  });

  it("createId(request) – same millisecond shares the time prefix, the rest is random", () => {
    const t = Date.UTC(2026, 10, 22, 8, 0, 0, 123);
    const a = createId("request", t);
    const b = createId("request", t);
    expect(a).not.toBe(b);
    // 48 bits of time fill the first ~8 characters; the first 5 never depend on the random bits in practice.
    expect(a.slice(0, 5)).toBe(b.slice(0, 5));
  });

  it("createId(source) – ids are not time-ordered: consecutive ids share no long prefix", () => {
    let longest = 0;
    for (let i = 0; i < 200; i++) {
      const a = createId("source", 1_800_000_000_000).slice(4);
      const b = createId("source", 1_800_000_000_000).slice(4);
      let common = 0;
      while (a[common] === b[common] && common < a.length) common++;
      longest = Math.max(longest, common);
    }
    expect(longest).toBeLessThan(6);
  });

  it("createToken – base64url of the requested number of bytes", () => {
    const t = createToken(32);
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t, "base64url")).toHaveLength(32);
    expect(createToken(24)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(createToken()).not.toBe(createToken());
  });

  it("sourceIdFromPublic – a 22-character base62 id gets the src_ prefix", () => {
    const id = createId("source");
    expect(sourceIdFromPublic(id.slice(4))).toBe(id);
    expect(sourceIdFromPublic("0123456789ABCDEFabcdef")).toBe("src_0123456789ABCDEFabcdef");
  });

  it.each([
    ["empty", ""],
    ["21 characters", "0123456789ABCDEFabcde"],
    ["23 characters", "0123456789ABCDEFabcdefg"],
    ["with prefix", "src_0123456789ABCDEFab"],
    ["full prefixed id", "src_0123456789ABCDEFabcdef"],
    ["non-base62 char", "0123456789ABCDEFabcde-"],
    ["underscore", "0123456789ABCDEFabcde_"],
    ["path traversal", "../../../../etc/passwd"],
    ["trailing newline", "0123456789ABCDEFabcdef\n"],
    ["SQL", "' OR 1=1 --0123456789ab"],
    ["non-ASCII", "0123456789ABCDEFabcdé"],
  ])("sourceIdFromPublic – rejects %s", (_label, input) => {
    expect(sourceIdFromPublic(input)).toBeNull();
  });

  it("publicSourceId – strips src_ and is the inverse of sourceIdFromPublic", () => {
    const id = createId("source");
    expect(publicSourceId(id)).toBe(id.slice(4));
    expect(sourceIdFromPublic(publicSourceId(id))).toBe(id);
    expect(publicSourceId("0123456789ABCDEFabcdef")).toBe("0123456789ABCDEFabcdef");
  });
});
