/**
 * Source verification (docs/pipeline.md#verification): checks a request
 * sent to a source URL against the source's `config.auth_type` and `config.auth` (generic HMAC,
 * BASIC_AUTH, API_KEY, or a provider's scheme), and answers the handshakes some providers need.
 * Pure: no database, no network. Used by ingestion (lib/ingest/ingest.ts).
 *
 * Rejection status (spec rule 5): 401 for HMAC (except MD5), API key and Basic verification and for four
 * provider-named types; 200 for every other provider. The spec does not name the four; Hookyard takes the
 * providers that authenticate with a shared token or Basic credentials ({@link REJECT_401_PROVIDER_TYPES}).
 */
import { hmac, safeEqual, sha256Hex, type Algo, type Encoding } from "@/lib/ingest/verify/crypto";
import { type Credentials, PROVIDER_SCHEMES, type SignedRequest } from "@/lib/ingest/verify/providers";

/** The request as received (`url` is the public URL as sent, with `?query`), and its source's settings. */
export type VerificationInput = Omit<SignedRequest, "now"> & {
  /** Source type: "WEBHOOK", "HTTP" or a provider type such as "STRIPE". */
  sourceType: string;
  /** `config.auth_type`: HMAC, BASIC_AUTH, API_KEY or a provider type; null for none (provider types use their own). */
  authType: string | null;
  /** The decrypted `config.auth`, or null. */
  auth: Record<string, unknown> | null;
  /** Now, ms (timestamp tolerances). */
  now?: number;
};
type HandshakeResponse = { status: number; headers: Record<string, string>; body: string };
export type VerificationResult =
  | { status: "none"; handshake?: HandshakeResponse }
  | { status: "verified"; handshake?: HandshakeResponse }
  | { status: "failed"; rejectStatus: 401 | 200; reason: string };

/** Provider types whose failed verification answers 401 (the spec names four without saying which). */
const REJECT_401_PROVIDER_TYPES = ["GITLAB", "POSTMARK", "CHARGEBEE_BILLING", "CHARGEBEE"] as const;

const json = (body: unknown): HandshakeResponse => ({
  status: 200,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify(body),
});

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body.toString("utf8"));
    return v && typeof v === "object" ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The handshake answer a provider expects for this request, if any (`secret` as configured, may be empty). */
function handshakeFor(scheme: string, r: SignedRequest, creds: Credentials): HandshakeResponse | undefined {
  const q = new URLSearchParams(r.query);
  switch (scheme) {
    case "SLACK": {
      const b = parseJson(r.body);
      return b?.type === "url_verification" && typeof b.challenge === "string" ? json({ challenge: b.challenge }) : undefined;
    }
    case "ZOOM": {
      const b = parseJson(r.body);
      const payload = b?.event === "endpoint.url_validation" ? b.payload : undefined;
      const token = payload && typeof payload === "object" ? (payload as Record<string, unknown>).plainToken : undefined;
      if (typeof token !== "string" || !creds.webhook_secret_key) return undefined;
      return json({ plainToken: token, encryptedToken: hmac("sha256", creds.webhook_secret_key, token, "hex") });
    }
    case "X": {
      const token = r.method === "GET" ? q.get("crc_token") : null;
      if (!token || !creds.api_key) return undefined;
      return json({ response_token: `sha256=${hmac("sha256", creds.api_key, token, "base64")}` });
    }
    case "NYLAS": {
      const challenge = r.method === "GET" ? q.get("challenge") : null;
      return challenge ? { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: challenge } : undefined;
    }
    case "EBAY": {
      const code = r.method === "GET" ? q.get("challenge_code") : null;
      if (!code || !creds.webhook_secret_key) return undefined;
      return json({ challengeResponse: sha256Hex(code + creds.webhook_secret_key + r.url.split("?")[0]) });
    }
    case "DISCORD": {
      // Discord's PING (interactions endpoint registration), answered once its Ed25519 signature verifies.
      const b = parseJson(r.body);
      return b?.type === 1 ? json({ type: 1 }) : undefined;
    }
    case "TWITCH": {
      // EventSub's webhook_callback_verification: the challenge as text, once the signature verifies.
      const b = parseJson(r.body);
      const verification = r.headers["twitch-eventsub-message-type"] === "webhook_callback_verification";
      return verification && typeof b?.challenge === "string"
        ? { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: b.challenge }
        : undefined;
    }
    case "MAILCHIMP":
      return r.method === "GET" ? { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: "" } : undefined;
  }
  return undefined;
}

/** Providers whose handshake requests may come unsigned: answered, but verified only when their signature checks out. */
const UNSIGNED_HANDSHAKES = new Set(["ZOOM", "X", "NYLAS", "EBAY", "MAILCHIMP"]);

/**
 * Whether Hookyard checks the requests of a source with this `auth_type` (the generic HMAC, API_KEY,
 * BASIC_AUTH, or a provider type with a scheme in PROVIDER_SCHEMES). A provider type Hookyard only
 * accepts (its credentials stored, handshakes answered) is not: its requests are stored unverified
 * (`verified: false`, `x-gateway-verified: false`) and its source is not `authenticated`.
 */
export function verifiesRequests(authType: string | null | undefined): boolean {
  if (!authType) return false;
  const scheme = authType.toUpperCase();
  return scheme === "HMAC" || scheme === "API_KEY" || scheme === "BASIC_AUTH" || Object.hasOwn(PROVIDER_SCHEMES, scheme);
}

function genericCheck(authType: string, r: SignedRequest, a: Credentials): string | null {
  if (authType === "HMAC") {
    const header = (a.header_key ?? "").toLowerCase();
    const got = r.headers[header];
    if (!got) return `missing ${a.header_key} header`;
    return safeEqual(got.trim(), hmac(a.algorithm as Algo, a.webhook_secret_key ?? "", r.body, a.encoding as Encoding)) ? null : "signature does not match";
  }
  if (authType === "API_KEY") {
    const name = a.header_key ?? "";
    const got = r.headers[name.toLowerCase()] ?? new URLSearchParams(r.query).get(name) ?? undefined;
    if (!got) return `missing ${name} header or query parameter`;
    return safeEqual(got, a.api_key) ? null : "API key does not match";
  }
  return PROVIDER_SCHEMES.POSTMARK.check(r, a); // BASIC_AUTH
}

/** The verification scheme of a source (its `auth_type`, else a provider type's own; null for none) and its credentials as strings. */
function schemeOf(input: Pick<VerificationInput, "sourceType" | "authType" | "auth">): { scheme: string | null; creds: Credentials } {
  const generic = input.sourceType === "WEBHOOK" || input.sourceType === "HTTP";
  const scheme = (input.authType ?? (generic ? null : input.sourceType))?.toUpperCase() ?? null;
  const creds: Credentials = {};
  for (const [k, v] of Object.entries(input.auth ?? {})) if (typeof v === "string" || typeof v === "number") creds[k] = String(v);
  return { scheme, creds };
}

/**
 * The headers that make a request with `body` pass the verification of a source whose scheme Hookyard can
 * produce with the source's own credentials: generic HMAC (`header_key`: the HMAC of the body with
 * `webhook_secret_key`, `algorithm`, `encoding`), API_KEY (`header_key`: `api_key`) and BASIC_AUTH
 * (`authorization`); header names in lower case. `{}` for a source without verification; null for a
 * provider's scheme (Hookyard never forges a provider's signature: such a request fails its verification).
 * Used for the requests Hookyard itself sends into a source (lib/ingest/ingest.ts ingestSigned).
 */
export function signatureHeaders(input: Pick<VerificationInput, "sourceType" | "authType" | "auth">, body: Buffer): Record<string, string> | null {
  const { scheme, creds: a } = schemeOf(input);
  if (!scheme || Object.keys(a).length === 0) return {};
  if (scheme === "HMAC") return { [(a.header_key ?? "").toLowerCase()]: hmac(a.algorithm as Algo, a.webhook_secret_key ?? "", body, a.encoding as Encoding) };
  if (scheme === "API_KEY") return { [(a.header_key ?? "").toLowerCase()]: a.api_key ?? "" };
  if (scheme === "BASIC_AUTH") return { authorization: `Basic ${Buffer.from(`${a.username ?? ""}:${a.password ?? ""}`).toString("base64")}` };
  return null;
}

/**
 * Verifies `input` against its source's configuration. `none`: nothing to verify (no credentials);
 * `verified`: the request passed; `failed`: it did not (`rejectStatus` is what the sender gets).
 * A handshake answer is attached when the provider expects one.
 */
export function verifyRequest(input: VerificationInput): VerificationResult {
  const { scheme, creds } = schemeOf(input);
  const r: SignedRequest = {
    method: input.method,
    url: input.url,
    path: input.path,
    query: input.query,
    headers: input.headers,
    body: input.body,
    now: input.now ?? Date.now(),
  };
  if (!scheme) return { status: "none" };

  const handshake = handshakeFor(scheme, r, creds);
  if (handshake && UNSIGNED_HANDSHAKES.has(scheme)) {
    // Answered whoever asks; marked verified only by a valid signature, never by its shape.
    const provider = Object.hasOwn(PROVIDER_SCHEMES, scheme) ? PROVIDER_SCHEMES[scheme] : undefined;
    const signed = provider !== undefined && Object.keys(creds).length > 0 && provider.check(r, creds) === null;
    return { status: signed ? "verified" : "none", handshake };
  }
  if (Object.keys(creds).length === 0) return { status: "none", handshake };

  let reason: string | null;
  let rejectStatus: 401 | 200;
  if (scheme === "HMAC" || scheme === "API_KEY" || scheme === "BASIC_AUTH") {
    reason = genericCheck(scheme, r, creds);
    rejectStatus = scheme === "HMAC" && creds.algorithm === "md5" ? 200 : 401;
  } else {
    const provider = Object.hasOwn(PROVIDER_SCHEMES, scheme) ? PROVIDER_SCHEMES[scheme] : undefined;
    if (!provider) return { status: "none", handshake };
    reason = provider.check(r, creds);
    rejectStatus = (REJECT_401_PROVIDER_TYPES as readonly string[]).includes(scheme) ? 401 : 200;
  }
  return reason === null ? { status: "verified", handshake } : { status: "failed", rejectStatus, reason };
}

/** One row per supported scheme, for the docs. */
export const VERIFICATION_PROVIDERS = [
  {
    type: "HMAC",
    label: "Generic HMAC",
    header: "`header_key`",
    scheme: "HMAC (`algorithm` sha1, sha256, sha512, md5; `encoding` hex, base64, base64url) of the body",
    rejectStatus: 401,
  },
  { type: "BASIC_AUTH", label: "Basic auth", header: "Authorization", scheme: "`username` and `password`", rejectStatus: 401 },
  { type: "API_KEY", label: "API key", header: "`header_key` (or that query parameter)", scheme: "equals `api_key`", rejectStatus: 401 },
  ...Object.entries(PROVIDER_SCHEMES).map(([type, s]) => ({
    type,
    label: s.label,
    header: s.header,
    scheme: s.description,
    rejectStatus: (REJECT_401_PROVIDER_TYPES as readonly string[]).includes(type) ? 401 : 200,
  })),
];
