import { describe, expect, it } from "vitest";
import { hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from "@/lib/dashboard/users";

describe("dashboard password hashes", () => {
  it("new hashes use at least OWASP's scrypt minimum (N = 2^17, r = 8, p = 1), written into the hash", async () => {
    expect(SCRYPT_PARAMS.N).toBeGreaterThanOrEqual(1 << 17);
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("wrong horse battery", hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it("hashes of the earlier parameters (N = 2^15) still verify and are marked for a rehash", async () => {
    const old = await hashPassword("correct horse battery", { N: 1 << 15, r: 8, p: 1 });
    expect(old.startsWith("scrypt$32768$8$1$")).toBe(true);
    expect(await verifyPassword("correct horse battery", old)).toBe(true);
    expect(await verifyPassword("wrong horse battery", old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
  });

  it("a malformed or absurd stored hash verifies nothing and never throws", async () => {
    for (const bad of [
      null,
      "",
      "scrypt$",
      "bcrypt$1$2$3$4$5",
      "scrypt$1000$8$1$c2FsdA$aGFzaA",
      "scrypt$1073741824$8$1$c2FsdA$aGFzaA",
      "scrypt$16384$0$1$c2FsdA$aGFzaA",
      "scrypt$16384$8$1$c2FsdA$",
    ]) {
      expect(await verifyPassword("anything at all", bad), String(bad)).toBe(false);
      expect(needsRehash(bad)).toBe(true);
    }
  });
});
