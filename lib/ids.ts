import { randomBytes } from "node:crypto";

/** Prefixes of every id Hookyard issues (the spec's prefixes where it gives them). */
export const ID_PREFIX = {
  team: "tm_",
  session: "ses_",
  source: "src_",
  request: "req_",
  apiKey: "key_",
  destination: "des_",
  connection: "web_",
  transformation: "trs_",
  event: "evt_",
  ignoredEvent: "ign_",
  attempt: "atm_",
  execution: "exc_",
  cliSession: "cls_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Kinds whose ids start with their creation time; the others are pure capabilities. */
const SORTABLE = new Set<IdKind>(["request", "destination", "connection", "transformation", "event", "ignoredEvent", "attempt", "execution", "cliSession"]);

// ASCII order, so fixed-width encodings sort like the numbers they encode.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Encodes `bytes` as fixed-width base62 (22 characters for 16 bytes). */
function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString("hex")}`);
  const width = Math.ceil((bytes.length * 8) / Math.log2(62));
  let out = "";
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/**
 * A new id `{prefix}{22 base62 chars}` carrying 128 bits.
 * Sortable kinds (requests, destinations, connections, transformations) start with 48 bits of milliseconds then 80 random bits, so they sort by
 * creation time; capability kinds (sources, teams, sessions) are 128 random bits from the CSPRNG, so
 * knowing one never helps guess another (the console's access model, shared/spec/console.md "Authentication").
 */
export function createId(kind: IdKind, now: number = Date.now()): string {
  const bytes = randomBytes(16);
  if (SORTABLE.has(kind)) bytes.writeUIntBE(now, 0, 6);
  return ID_PREFIX[kind] + base62(bytes);
}

/** A random secret token (32 bytes, base64url), for session cookies and CLI keys. */
export function createToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Source id from its public form (the id without `src_`), or null when it cannot be one. */
export function sourceIdFromPublic(publicId: string): string | null {
  return /^[0-9A-Za-z]{22}$/.test(publicId) ? ID_PREFIX.source + publicId : null;
}

/** The public form of a source id: without its `src_` prefix. */
export function publicSourceId(sourceId: string): string {
  return sourceId.startsWith(ID_PREFIX.source) ? sourceId.slice(ID_PREFIX.source.length) : sourceId;
}
