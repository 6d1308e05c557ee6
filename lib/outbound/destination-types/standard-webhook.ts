/**
 * The `standard_webhook` destination type (docs/outbound.md "Delivery"): a `POST` to the tenant's URL
 * signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; two signatures, space-separated, while a rotated secret is valid), the event's
 * metadata as headers and its topic as `webhook-topic`. The secret is symmetric (`whsec_`, HMAC-SHA256,
 * `v1,` signatures) or an ed25519 key pair (`whsk_` private key, never answered; `whpk_` public key in
 * `credentials.public_key`; `v1a,` signatures): docs/outbound.md "Signing secrets".
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { customHeaders, icon, URL_PATTERN } from "@/lib/outbound/destination-types/fields";
import { deliverHttp, httpHeaders, httpTarget, previousSecretValid } from "@/lib/outbound/destination-types/http-delivery";
import { defineOutboundType, type OutboundDelivery } from "@/lib/outbound/destination-types/type";

/** DER prefix of a PKCS#8 ed25519 private key: the 32-byte seed follows (RFC 8410). */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
/** Bytes of the DER prefix of an SPKI ed25519 public key: the 32-byte key follows. */
const SPKI_PREFIX_BYTES = 12;
const SYMMETRIC_PREFIX = "whsec_";
const PRIVATE_PREFIX = "whsk_";
const PUBLIC_PREFIX = "whpk_";

/** The private key of a `whsk_` secret: base64 of the 32-byte seed and the 32-byte public key (libsodium's layout). Throws on another shape. */
function privateKeyOf(whsk: string): KeyObject {
  const raw = Buffer.from(whsk.slice(PRIVATE_PREFIX.length), "base64");
  if (raw.length !== 64) throw new Error("a whsk_ key is 64 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw.subarray(0, 32)]), format: "der", type: "pkcs8" });
}

/** The raw 32-byte public key of a private key. */
const rawPublicKey = (key: KeyObject) => createPublicKey(key).export({ type: "spki", format: "der" }).subarray(SPKI_PREFIX_BYTES);

/** A new ed25519 signing key: `whsk_` + base64 of its seed and public key (64 bytes). */
export function newSigningKey(): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ type: "pkcs8", format: "der" }).subarray(PKCS8_ED25519.length);
  return PRIVATE_PREFIX + Buffer.concat([seed, rawPublicKey(privateKey)]).toString("base64");
}

/** The `whpk_` public key (base64 of its 32 bytes) of a `whsk_` signing key, derived from its seed. Throws for a malformed key. */
export function publicKeyOf(whsk: string): string {
  return PUBLIC_PREFIX + rawPublicKey(privateKeyOf(whsk)).toString("base64");
}

/**
 * One Standard Webhooks signature of `${id}.${seconds}.${body}`: `v1,` + base64 HMAC-SHA256 with a `whsec_`
 * secret, `v1a,` + base64 ed25519 signature with a `whsk_` key.
 */
export function standardSignature(secret: string, id: string, at: Date, body: string): string {
  if (!secret.startsWith(PRIVATE_PREFIX)) return new Webhook(secret).sign(id, at, body);
  const content = Buffer.from(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`, "utf8");
  return `v1a,${sign(null, content, privateKeyOf(secret)).toString("base64")}`;
}

/** A `whsk_` value as answered: the prefix and stars (a private key is never shown). */
const masked = (v: string) => PRIVATE_PREFIX + "*".repeat(Math.max(0, v.length - PRIVATE_PREFIX.length));

/** A standard webhook delivery's headers before signing: the HTTP ones, the event's metadata (names lower-cased) and `webhook-topic`. */
function standardHeaders(d: OutboundDelivery): Record<string, string> {
  const c = d.claimed;
  return httpHeaders(d, { ...Object.fromEntries(Object.entries(c.metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v])), "webhook-topic": c.topic });
}

export const standardWebhook = defineOutboundType({
  info: {
    type: "standard_webhook",
    label: "Standard Webhooks",
    description: "Send events to an HTTP endpoint following the Standard Webhooks specification.",
    icon: icon('<path d="M4 12h16"/><path d="M12 4v16"/><circle cx="12" cy="12" r="9"/>'),
    instructions:
      "Deliveries carry `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64>`) as in the Standard Webhooks specification: verify them with any of its libraries and your `whsec_` secret. With the ed25519 key type, signatures are `v1a,<base64>`: verify them with the `whpk_` public key.",
    config_fields: [
      { key: "url", type: "text", label: "URL", description: "The endpoint receiving the events.", required: true, pattern: URL_PATTERN },
      customHeaders,
    ],
    credential_fields: [
      {
        key: "secret",
        type: "text",
        label: "Signing secret",
        description: "`whsec_` + base64 of 24 to 64 bytes, or a `whsk_` ed25519 key (base64 of seed and public key); generated when left empty.",
        required: false,
        pattern: "^(whsec_[A-Za-z0-9+/]{32,88}={0,2}|whsk_[A-Za-z0-9+/]{86}==)$",
      },
      {
        key: "key_type",
        type: "select",
        label: "Key type",
        description:
          "hmac-sha256: a shared `whsec_` secret, `v1` signatures. ed25519: a key pair, `v1a` signatures, verified with the public key. Changing it rotates the secret.",
        required: false,
        options: [
          { label: "HMAC-SHA256 (shared secret)", value: "hmac-sha256" },
          { label: "Ed25519 (public key)", value: "ed25519" },
        ],
      },
    ],
  },
  // `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries expect.
  newSecret: () => `${SYMMETRIC_PREFIX}${randomBytes(32).toString("base64")}`,
  secretKinds: [
    { key_type: "hmac-sha256", prefix: SYMMETRIC_PREFIX, generate: () => `${SYMMETRIC_PREFIX}${randomBytes(32).toString("base64")}` },
    { key_type: "ed25519", prefix: PRIVATE_PREFIX, generate: newSigningKey },
  ],
  checkCredentials(credentials, issues) {
    for (const k of ["secret", "previous_secret"]) {
      const v = credentials[k];
      if (!v?.startsWith(PRIVATE_PREFIX)) continue;
      try {
        const raw = Buffer.from(v.slice(PRIVATE_PREFIX.length), "base64");
        if (!rawPublicKey(privateKeyOf(v)).equals(raw.subarray(32))) issues.push(`credentials.${k} is not an ed25519 key pair (seed and public key disagree)`);
      } catch {
        issues.push(`credentials.${k} is not an ed25519 key`);
      }
    }
  },
  readOnlyCredentials: ["public_key", "previous_public_key"],
  present(shown) {
    const out = { ...shown, key_type: shown.secret?.startsWith(PRIVATE_PREFIX) ? "ed25519" : "hmac-sha256" };
    if (shown.secret?.startsWith(PRIVATE_PREFIX)) Object.assign(out, { secret: masked(shown.secret), public_key: publicKeyOf(shown.secret) });
    if (shown.previous_secret?.startsWith(PRIVATE_PREFIX))
      Object.assign(out, { previous_secret: masked(shown.previous_secret), previous_public_key: publicKeyOf(shown.previous_secret) });
    return out;
  },
  target: httpTarget,
  requestHeaders: standardHeaders,
  deliver: (d) =>
    deliverHttp(d, standardHeaders, (headers) => {
      const { claimed: c, credentials } = d;
      const at = new Date();
      const body = c.data.toString("utf8");
      const signWith = (secret: string) => standardSignature(secret, c.event_id, at, body);
      headers["webhook-id"] = c.event_id;
      headers["webhook-timestamp"] = String(Math.floor(at.getTime() / 1000));
      headers["webhook-signature"] = [signWith(credentials.secret), ...(previousSecretValid(credentials) ? [signWith(credentials.previous_secret)] : [])].join(
        " ",
      );
    }),
});
