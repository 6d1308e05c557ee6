import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";

const PREFIX = "v1:";
let cachedKey: Buffer | undefined;

/**
 * The 32-byte key that encrypts secrets at rest: SHA-256 of SECRET_KEY when set, else a random key
 * created once in `{DATA_DIR}/secret.key` (mode 600). Every process sharing a database must use the
 * same key: set SECRET_KEY when processes run on several machines.
 */
function masterKey(): Buffer {
  if (cachedKey) return cachedKey;
  const config = getConfig();
  let material = config.secretKey;
  if (!material) {
    const file = path.join(config.dataDir, "secret.key");
    if (!existsSync(file)) {
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
    }
    material = readFileSync(file, "utf8").trim();
  }
  cachedKey = createHash("sha256").update(material).digest();
  return cachedKey;
}

/** Encrypts `plaintext` with AES-256-GCM; the result is `v1:<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptSecret(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey(), iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${PREFIX}${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${data.toString("base64url")}`;
}

/**
 * Recently decrypted values, by ciphertext (the delivery engine decrypts the same team secret and
 * destination credentials for every event). A ciphertext always decrypts to the same plaintext under the
 * process's key, and a changed secret is a new ciphertext, so entries never go stale. Bounded; the
 * oldest entry goes first.
 */
const decrypted = new Map<string, string>();
const DECRYPTED_MAX = 1000;

/** Decrypts what {@link encryptSecret} produced. Throws when the key is wrong or the value was altered. */
export function decryptSecret(encrypted: string): string {
  const hit = decrypted.get(encrypted);
  if (hit !== undefined) return hit;
  if (!encrypted.startsWith(PREFIX)) throw new Error("unknown secret format");
  const [iv, tag, data] = encrypted.slice(PREFIX.length).split(".");
  const decipher = createDecipheriv("aes-256-gcm", masterKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  const plaintext = Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  if (decrypted.size >= DECRYPTED_MAX) decrypted.delete(decrypted.keys().next().value!);
  decrypted.set(encrypted, plaintext);
  return plaintext;
}

/** Encrypts a JSON value (credentials objects); null stays null. */
export function encryptJson(value: unknown): string | null {
  return value === null || value === undefined ? null : encryptSecret(JSON.stringify(value));
}

/** Decrypts {@link encryptJson}'s output; null stays null. */
export function decryptJson<T = unknown>(encrypted: string | null | undefined): T | null {
  return encrypted ? (JSON.parse(decryptSecret(encrypted)) as T) : null;
}
