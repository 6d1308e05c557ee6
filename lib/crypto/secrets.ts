import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { StartFailure } from "@/lib/processes";

const PREFIX = "v1:";
let cachedKey: Buffer | undefined;

/**
 * Set (internal) by `npm start` on the processes it runs over its embedded PostgreSQL: their DATABASE_URL
 * is that database's, and the key generated in DATA_DIR is the right one.
 */
export const EMBEDDED_DATABASE_ENV = "HOOKYARD_EMBEDDED_DATABASE";

/**
 * The refusal for an external database without SECRET_KEY (docs/operations.md "One key"), or null. Each
 * process would otherwise encrypt with a key of its own machine, which the others cannot read.
 */
export function missingSecretKeyProblem(): string | null {
  const config = getConfig();
  if (config.secretKey || !config.databaseUrl || process.env[EMBEDDED_DATABASE_ENV] === "1") return null;
  const file = path.join(config.dataDir, "secret.key");
  const earlier = existsSync(file)
    ? ` (secrets written so far by this machine used the key in ${file}: set SECRET_KEY to that file's content to keep them)`
    : "";
  return `DATABASE_URL is set but SECRET_KEY is not: set SECRET_KEY to the same value on every Hookyard process, e.g. the output of openssl rand -base64 32${earlier}.`;
}

/**
 * The 32-byte key that encrypts secrets at rest: SHA-256 of SECRET_KEY when set, else (embedded database
 * only) a random key created once in `{DATA_DIR}/secret.key` (mode 600). Every process sharing a database
 * must use the same key (docs/operations.md "One key").
 * @throws StartFailure when DATABASE_URL is set without SECRET_KEY ({@link missingSecretKeyProblem}).
 */
function masterKey(): Buffer {
  if (cachedKey) return cachedKey;
  const config = getConfig();
  let material = config.secretKey;
  if (!material) {
    const problem = missingSecretKeyProblem();
    if (problem) throw new StartFailure(problem);
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

/**
 * The key's fingerprint kept in the database (lib/crypto/key-check.ts): base64url HMAC-SHA256, under the
 * key, of a fixed label and `salt`. It reveals nothing a ciphertext in the same database does not already
 * (either lets a guess of the key be checked), and no two databases share one.
 * @throws StartFailure as {@link masterKey}.
 */
export function keyFingerprint(salt: string): string {
  return createHmac("sha256", masterKey()).update(`hookyard secret-key fingerprint v1\n${salt}`).digest("base64url");
}

/**
 * A secret for another purpose derived from the key (HMAC-SHA256 under it of `purpose`, base64url, 43
 * characters): every process with the same SECRET_KEY derives the same value, so such secrets need no
 * setting of their own (docs/operations.md "One key"). Distinct purposes give unrelated values.
 * @throws StartFailure as {@link masterKey}.
 */
export function derivedSecret(purpose: string): string {
  return createHmac("sha256", masterKey()).update(`hookyard derived secret v1\n${purpose}`).digest("base64url");
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
