/**
 * Asymmetric Standard Webhooks signatures (docs/outbound.md "Signing secrets"), checked with code that
 * shares nothing with the signer: Node's crypto.verify with the `whpk_` public key as the receiver
 * gets it, and HMAC-SHA256 for the `whsec_` secrets; and the key_type and rotation rules of validation.
 */
import { createHmac, createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OUTBOUND_DESTINATION_TYPES } from "@/lib/outbound/destination-types";
import { newSigningKey, publicKeyOf, standardSignature } from "@/lib/outbound/destination-types/standard-webhook";

const sw = OUTBOUND_DESTINATION_TYPES.get("standard_webhook");
const asAdmin = { byTenant: false, current: null };

/** Verifies a `v1a,` signature of `content` with a `whpk_` key, as a receiver would: the raw key as JWK. */
function verifiesWith(whpk: string, content: string, signature: string): boolean {
  const x = Buffer.from(whpk.slice("whpk_".length), "base64").toString("base64url");
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  return verify(null, Buffer.from(content), key, Buffer.from(signature.slice("v1a,".length), "base64"));
}

describe("ed25519 keys of standard_webhook", () => {
  it("are whsk_ (64 bytes) with a whpk_ public key (32 bytes), and sign v1a that Node's crypto.verify accepts", () => {
    const key = newSigningKey();
    expect(key).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    const pub = publicKeyOf(key);
    expect(pub).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    // The public half stored in the key is the one derived from its seed.
    expect(Buffer.from(key.slice(5), "base64").subarray(32).toString("base64")).toBe(pub.slice(5));
    const at = new Date(1_700_000_000_000);
    const sig = standardSignature(key, "evt_1", at, '{"a":1}');
    expect(sig).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiesWith(pub, 'evt_1.1700000000.{"a":1}', sig)).toBe(true);
    expect(verifiesWith(pub, 'evt_1.1700000000.{"a":2}', sig)).toBe(false);
    expect(verifiesWith(publicKeyOf(newSigningKey()), 'evt_1.1700000000.{"a":1}', sig)).toBe(false);
  });

  it("whsec_ secrets still sign v1: base64 HMAC-SHA256 keyed with the decoded secret", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const at = new Date(1_700_000_000_000);
    const expected = createHmac("sha256", Buffer.alloc(32, 7)).update('evt_1.1700000000.{"a":1}').digest("base64");
    expect(standardSignature(secret, "evt_1", at, '{"a":1}')).toBe(`v1,${expected}`);
  });
});

describe("key_type and rotation of standard_webhook credentials", () => {
  const config = { url: "https://x.test/h" };
  it("key_type ed25519 generates a whsk_ key; the answer shows the public key, never the private one", async () => {
    const issues: string[] = [];
    const { credentials } = await sw.validate({ config, credentials: { key_type: "ed25519" } }, issues, asAdmin);
    expect(issues).toEqual([]);
    expect(credentials.secret).toMatch(/^whsk_/);
    expect(credentials.key_type).toBeUndefined();
    const shown = sw.obfuscate(credentials, Date.now());
    expect(shown).toEqual({ secret: `whsk_${"*".repeat(88)}`, key_type: "ed25519", public_key: publicKeyOf(credentials.secret) });
    const plain = await sw.validate({ config, credentials: {} }, [], asAdmin);
    expect(sw.obfuscate(plain.credentials, Date.now())).toEqual({ secret: plain.credentials.secret, key_type: "hmac-sha256" });
  });

  it("changing key_type rotates into the other kind, the old secret kept for the overlap; read-only keys given back are ignored", async () => {
    const current = { secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}` };
    const issues: string[] = [];
    const before = Date.now();
    const { credentials } = await sw.validate(
      { config, credentials: { ...current, key_type: "ed25519", rotate_secret_overlap_seconds: 60, public_key: "whpk_x" } },
      issues,
      { byTenant: true, current },
    );
    expect(issues).toEqual([]);
    expect(credentials.secret).toMatch(/^whsk_/);
    expect(credentials.previous_secret).toBe(current.secret);
    const until = Date.parse(credentials.previous_secret_invalid_at);
    expect(until).toBeGreaterThanOrEqual(before + 60_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(credentials.public_key).toBeUndefined();
  });

  it("rejects a key pair whose halves disagree, a key_type the given secret is not, and bad overlaps", async () => {
    const a = newSigningKey();
    const b = newSigningKey();
    const mixed = `whsk_${Buffer.concat([Buffer.from(a.slice(5), "base64").subarray(0, 32), Buffer.from(b.slice(5), "base64").subarray(32)]).toString("base64")}`;
    const issues: string[] = [];
    await sw.validate({ config, credentials: { secret: mixed } }, issues, asAdmin);
    expect(issues).toEqual(["credentials.secret is not an ed25519 key pair (seed and public key disagree)"]);
    const kindIssues: string[] = [];
    await sw.validate({ config, credentials: { secret: a, key_type: "hmac-sha256" } }, kindIssues, asAdmin);
    expect(kindIssues).toEqual(["credentials.key_type hmac-sha256 does not match credentials.secret"]);
    const overlapIssues: string[] = [];
    await sw.validate({ config, credentials: { rotate_secret: true, rotate_secret_overlap_seconds: -1 } }, overlapIssues, asAdmin);
    await sw.validate({ config, credentials: { rotate_secret_overlap_seconds: 10 } }, overlapIssues, asAdmin);
    expect(overlapIssues).toEqual([
      "credentials.rotate_secret_overlap_seconds must be a whole number of seconds from 0 to 604800",
      "credentials.rotate_secret_overlap_seconds goes with rotate_secret",
    ]);
  });

  it("an overlap of 0 drops the old secret at once; a second rotation gives the new previous secret a fresh window", async () => {
    const current = {
      secret: `whsec_${Buffer.alloc(32, 2).toString("base64")}`,
      previous_secret: `whsec_${Buffer.alloc(32, 3).toString("base64")}`,
      previous_secret_invalid_at: new Date(Date.now() - 1000).toISOString(),
    };
    const none = await sw.validate({ config, credentials: { ...current, rotate_secret: true, rotate_secret_overlap_seconds: 0 } }, [], {
      byTenant: true,
      current,
    });
    expect(none.credentials.previous_secret).toBeUndefined();
    expect(none.credentials.previous_secret_invalid_at).toBeUndefined();
    // A merge-patch carries the stored (expired) previous_secret_invalid_at along: the rotation does not reuse it.
    const again = await sw.validate({ config, credentials: { ...current, rotate_secret: true } }, [], { byTenant: true, current });
    expect(again.credentials.previous_secret).toBe(current.secret);
    expect(Date.parse(again.credentials.previous_secret_invalid_at)).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });
});
