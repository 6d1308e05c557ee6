import { createHash, createHmac, createPublicKey, timingSafeEqual, verify as verifySignature } from "node:crypto";

export type Algo = "sha1" | "sha256" | "sha512" | "md5";
export type Encoding = "hex" | "base64" | "base64url";

/** HMAC of `data` with `secret` (a string, or raw key bytes), encoded. */
export function hmac(algo: Algo, secret: string | Buffer, data: string | Buffer, encoding: Encoding): string {
  return createHmac(algo, secret).update(data).digest(encoding);
}

/** SHA-256 hex of `data`. */
export const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Constant-time equality of two strings (false when lengths differ). */
export function safeEqual(a: string | undefined | null, b: string | undefined | null): boolean {
  if (typeof a !== "string" || typeof b !== "string") return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the ASCII timestamp `ts` (seconds, or ms when `ms`) is within `toleranceS` of `now` (ms). */
export function fresh(ts: string | undefined, now: number, toleranceS = 300, ms = false): boolean {
  const n = Number(ts);
  if (!ts || !Number.isFinite(n)) return false;
  return Math.abs(now - (ms ? n : n * 1000)) <= toleranceS * 1000;
}

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** Verifies an Ed25519 `signature` of `message` with a raw 32-byte public key. Never throws. */
export function ed25519Valid(publicKeyRaw: Buffer, message: Buffer, signature: Buffer): boolean {
  try {
    if (publicKeyRaw.length !== 32) return false;
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKeyRaw]), format: "der", type: "spki" });
    return verifySignature(null, message, key, signature);
  } catch {
    return false;
  }
}

/** Verifies an ECDSA P-256 / SHA-256 DER `signature` with a base64 DER (SPKI) public key. Never throws. */
export function ecdsaValid(publicKeyBase64: string, message: Buffer, signature: Buffer): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyBase64, "base64"), format: "der", type: "spki" });
    return verifySignature("sha256", message, key, signature);
  } catch {
    return false;
  }
}
