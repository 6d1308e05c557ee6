import { randomBytes, randomFillSync } from "node:crypto";

/** Prefixes of every id Hookyard issues (the API's documented prefixes where there are some). */
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
  bulkOperation: "bch_",
  issueTrigger: "it_",
  issue: "iss_",
  bookmark: "bmk_",
  outboundKey: "okey_",
  dashboardUser: "usr_",
  signInToken: "sit_",
  outboundRedrive: "rdr_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Kinds whose ids start with their creation time; the others are pure capabilities. */
const SORTABLE = new Set<IdKind>([
  "request",
  "destination",
  "connection",
  "transformation",
  "event",
  "ignoredEvent",
  "attempt",
  "execution",
  "cliSession",
  "bulkOperation",
  "issueTrigger",
  "issue",
  "bookmark",
  "outboundRedrive",
]);

// ASCII order, so fixed-width encodings sort like the numbers they encode.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Encodes 16 bytes as fixed-width base62 (22 characters), most significant first: long division of the
 * 128-bit big-endian number, held as four 32-bit words, by 62.
 */
export function base62(bytes: Uint8Array): string {
  const words = [0, 4, 8, 12].map((i) => ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0);
  const out = new Array<string>(22);
  for (let i = 21; i >= 0; i--) {
    let rem = 0;
    for (let w = 0; w < 4; w++) {
      // rem < 62, so rem * 2^32 + word < 2^38: exact in a double.
      const cur = rem * 0x1_0000_0000 + words[w];
      words[w] = Math.floor(cur / 62);
      rem = cur - words[w] * 62;
    }
    out[i] = ALPHABET[rem]!;
  }
  return out.join("");
}

// Random bytes drawn from the CSPRNG in blocks (one call per 256 ids instead of one per id).
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** 16 fresh random bytes from the CSPRNG (a copy: the caller may write into it). */
export function random16(): Buffer {
  if (poolOffset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  // Used bytes are never handed out twice.
  pool.fill(0, poolOffset, poolOffset + 16);
  poolOffset += 16;
  return out;
}

/**
 * A new id `{prefix}{22 base62 chars}` carrying 128 bits.
 * Sortable kinds (requests, destinations, connections, transformations) start with 48 bits of milliseconds then 80 random bits, so they sort by
 * creation time; capability kinds (sources, teams, sessions) are 128 random bits from the CSPRNG, so
 * knowing one never helps guess another (docs/console-api.md#who-may-read-and-change-a-test-url).
 */
export function createId(kind: IdKind, now: number = Date.now()): string {
  const bytes = random16();
  if (SORTABLE.has(kind)) bytes.writeUIntBE(now, 0, 6);
  return ID_PREFIX[kind] + base62(bytes);
}

/**
 * The smallest id of `kind` created at `ms` (ms since the epoch, UTC): the 48-bit time then 80 zero bits.
 * Every id `createId(kind, t)` with `t >= ms` sorts at or after it (byte order, `COLLATE "C"`), every id
 * with `t < ms` before it: the bounds of the daily partitions of the big tables (docs/scaling.md#retention-and-sizing, migration
 * `partition_by_time`, whose SQL twin `hookyard_id_bound(prefix, ms)` gives the same string).
 * Throws for kinds whose ids do not start with their time.
 */
export function idLowerBound(kind: IdKind, ms: number): string {
  if (!SORTABLE.has(kind)) throw new Error(`ids of kind ${kind} do not start with their creation time`);
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(ms, 0, 6);
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
