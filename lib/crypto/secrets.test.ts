/** Secrets at rest (lib/crypto/secrets.ts): AES-256-GCM, random IV, tamper-evident, JSON helpers. */
import { describe, expect, it } from "vitest";
import { decryptJson, decryptSecret, encryptJson, encryptSecret } from "@/lib/crypto/secrets";

describe("secrets", () => {
  it("encryptSecret – round-trips, never contains the plaintext, differs on every call", () => {
    const plain = "whsec_the-plaintext-secret ünïcode";
    const a = encryptSecret(plain);
    const b = encryptSecret(plain);
    expect(a).toMatch(/^v1:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain("plaintext");
    expect(a).not.toBe(b);
    expect(decryptSecret(a)).toBe(plain);
    expect(decryptSecret(b)).toBe(plain);
    expect(decryptSecret(encryptSecret(""))).toBe("");
  });

  it("decryptSecret – an altered ciphertext, tag or unknown format throws", () => {
    const enc = encryptSecret("secret-value");
    const [iv, tag, data] = enc.slice(3).split(".");
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    expect(() => decryptSecret(`v1:${iv}.${tag}.${flip(data)}`)).toThrow();
    expect(() => decryptSecret(`v1:${iv}.${flip(tag)}.${data}`)).toThrow();
    expect(() => decryptSecret("secret-value")).toThrow();
  });

  it("decryptSecret – repeated and many distinct ciphertexts (past the cache's bound) all decrypt right", () => {
    const values = Array.from({ length: 1100 }, (_, i) => `secret-${i}`);
    const encrypted = values.map(encryptSecret);
    for (let round = 0; round < 2; round++) encrypted.forEach((e, i) => expect(decryptSecret(e)).toBe(values[i]));
    // A cached ciphertext, altered, is another string: it still fails.
    // The first character of the data part: the last one may carry only padding bits that decoding ignores.
    const [iv, tag, data] = encrypted[0].slice(3).split(".");
    const flipped = `v1:${iv}.${tag}.${data[0] === "A" ? "B" : "A"}${data.slice(1)}`;
    expect(() => decryptSecret(flipped)).toThrow();
  });

  it("encryptJson/decryptJson – objects round-trip; null and undefined stay null", () => {
    const auth = { webhook_secret_key: "k", nested: { n: 1 } };
    const enc = encryptJson(auth)!;
    expect(enc).not.toContain("webhook_secret_key");
    expect(decryptJson(enc)).toEqual(auth);
    expect(encryptJson(null)).toBeNull();
    expect(encryptJson(undefined)).toBeNull();
    expect(decryptJson(null)).toBeNull();
    expect(decryptJson(undefined)).toBeNull();
  });
});
