/**
 * Signature schemes of provider-typed sources (docs/pipeline.md#verification).
 * Each check returns null when the request
 * verifies, or why it does not. Formulas follow each provider's public documentation.
 */
import { parseQueryString } from "@/lib/http/query";
import { type Algo, ecdsaValid, ed25519Valid, type Encoding, fresh, hmac, safeEqual, sha256Hex } from "@/lib/ingest/verify/crypto";

/** A request to check: header names in lower case, `query` without "?", `now` in ms. */
export type SignedRequest = {
  method: string;
  url: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer;
  now: number;
};
export type Credentials = Record<string, string>;
export type Check = (r: SignedRequest, auth: Credentials) => string | null;
type Scheme = { label: string; header: string; description: string; credential: string; check: Check };

const missing = (h: string) => `missing ${h} header`;
const bad = "signature does not match";

/** "HMAC of the raw body in header H", optionally with a prefix (GitHub's `sha256=`). */
function bodyHmac(header: string, algo: Algo, encoding: Encoding, prefix = ""): Check {
  return (r, a) => {
    const got = r.headers[header];
    if (!got) return missing(header);
    return safeEqual(got.trim(), prefix + hmac(algo, a.webhook_secret_key ?? "", r.body, encoding)) ? null : bad;
  };
}

/** Svix / Standard Webhooks: `{id}.{timestamp}.{body}` with the base64 key after `whsec_`; several `v1,<sig>` allowed. */
function standardWebhooks(prefix: "svix" | "webhook"): Check {
  return (r, a) => {
    const id = r.headers[`${prefix}-id`];
    const ts = r.headers[`${prefix}-timestamp`];
    const sigs = r.headers[`${prefix}-signature`];
    if (!id || !ts || !sigs) return missing(`${prefix}-id, ${prefix}-timestamp or ${prefix}-signature`);
    if (!fresh(ts, r.now)) return "timestamp outside the 5-minute tolerance";
    const secret = (a.webhook_secret_key ?? "").replace(/^whsec_/, "");
    const expected = hmac("sha256", Buffer.from(secret, "base64"), `${id}.${ts}.${r.body.toString("utf8")}`, "base64");
    return sigs.split(" ").some((s) => safeEqual(s.split(",")[1], expected)) ? null : bad;
  };
}

const stripe: Check = (r, a) => {
  const header = r.headers["stripe-signature"];
  if (!header) return missing("Stripe-Signature");
  const parts = header.split(",").map((p) => p.split("=") as [string, string]);
  const t = parts.find(([k]) => k === "t")?.[1];
  const v1 = parts.filter(([k]) => k === "v1").map(([, v]) => v);
  if (!t || v1.length === 0) return "malformed Stripe-Signature";
  if (!fresh(t, r.now)) return "timestamp outside the 300 s tolerance";
  const expected = hmac("sha256", a.webhook_secret_key ?? "", `${t}.${r.body.toString("utf8")}`, "hex");
  return v1.some((s) => safeEqual(s, expected)) ? null : bad;
};

const github: Check = (r, a) => {
  if (r.headers["x-hub-signature-256"]) return bodyHmac("x-hub-signature-256", "sha256", "hex", "sha256=")(r, a);
  if (r.headers["x-hub-signature"]) return bodyHmac("x-hub-signature", "sha1", "hex", "sha1=")(r, a);
  return missing("X-Hub-Signature-256");
};

const slack: Check = (r, a) => {
  const sig = r.headers["x-slack-signature"];
  const ts = r.headers["x-slack-request-timestamp"];
  if (!sig || !ts) return missing("X-Slack-Signature or X-Slack-Request-Timestamp");
  if (!fresh(ts, r.now)) return "timestamp outside the 5-minute tolerance";
  return safeEqual(sig, `v0=${hmac("sha256", a.webhook_secret_key ?? "", `v0:${ts}:${r.body.toString("utf8")}`, "hex")}`) ? null : bad;
};

const twilio: Check = (r, a) => {
  const sig = r.headers["x-twilio-signature"];
  if (!sig) return missing("X-Twilio-Signature");
  const isForm = (r.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded");
  let data = r.url;
  if (isForm) {
    const params = new URLSearchParams(r.body.toString("utf8"));
    const keys = [...new Set(params.keys())].sort();
    for (const k of keys) for (const v of params.getAll(k)) data += k + v;
  } else {
    const bodyHash = new URL(r.url).searchParams.get("bodySHA256");
    if (!bodyHash || !safeEqual(bodyHash, sha256Hex(r.body))) return "bodySHA256 does not match the body";
  }
  return safeEqual(sig, hmac("sha1", a.webhook_secret_key ?? "", data, "base64")) ? null : bad;
};

const paddle: Check = (r, a) => {
  const header = r.headers["paddle-signature"];
  if (!header) return missing("Paddle-Signature");
  const parts = Object.fromEntries(header.split(";").map((p) => p.split("=") as [string, string]));
  if (!parts.ts || !parts.h1) return "malformed Paddle-Signature";
  if (!fresh(parts.ts, r.now)) return "timestamp outside the 5-minute tolerance";
  return safeEqual(parts.h1, hmac("sha256", a.webhook_secret_key ?? "", `${parts.ts}:${r.body.toString("utf8")}`, "hex")) ? null : bad;
};

const zoom: Check = (r, a) => {
  const sig = r.headers["x-zm-signature"];
  const ts = r.headers["x-zm-request-timestamp"];
  if (!sig || !ts) return missing("x-zm-signature or x-zm-request-timestamp");
  if (!fresh(ts, r.now)) return "timestamp outside the 5-minute tolerance";
  return safeEqual(sig, `v0=${hmac("sha256", a.webhook_secret_key ?? "", `v0:${ts}:${r.body.toString("utf8")}`, "hex")}`) ? null : bad;
};

/** Twitch EventSub: `sha256=` + hex HMAC-SHA256 of `{message id}{timestamp}{body}`; RFC 3339 timestamp, 10-minute tolerance. */
const twitch: Check = (r, a) => {
  const id = r.headers["twitch-eventsub-message-id"];
  const ts = r.headers["twitch-eventsub-message-timestamp"];
  const sig = r.headers["twitch-eventsub-message-signature"];
  if (!id || !ts || !sig) return missing("Twitch-Eventsub-Message-Id, -Timestamp or -Signature");
  const at = Date.parse(ts);
  if (!Number.isFinite(at) || Math.abs(r.now - at) > 600_000) return "timestamp outside the 10-minute tolerance";
  return safeEqual(sig, `sha256=${hmac("sha256", a.webhook_secret_key ?? "", `${id}${ts}${r.body.toString("utf8")}`, "hex")}`) ? null : bad;
};

const hubspot: Check = (r, a) => {
  const sig = r.headers["x-hubspot-signature-v3"];
  const ts = r.headers["x-hubspot-request-timestamp"];
  if (!sig || !ts) return missing("X-HubSpot-Signature-v3 or X-HubSpot-Request-Timestamp");
  if (!fresh(ts, r.now, 300, true)) return "timestamp outside the 5-minute tolerance";
  return safeEqual(sig, hmac("sha256", a.webhook_secret_key ?? "", `${r.method}${r.url}${r.body.toString("utf8")}${ts}`, "base64")) ? null : bad;
};

const gitlab: Check = (r, a) => {
  const token = r.headers["x-gitlab-token"];
  if (!token) return missing("X-Gitlab-Token");
  return safeEqual(token, a.api_key) ? null : "token does not match";
};

const mailgun: Check = (r, a) => {
  let sig: { timestamp?: string; token?: string; signature?: string } | undefined;
  const type = r.headers["content-type"] ?? "";
  try {
    sig = type.includes("json") ? (JSON.parse(r.body.toString("utf8")) as { signature?: typeof sig }).signature : parseQueryString(r.body.toString("utf8"));
  } catch {
    return "unreadable body";
  }
  if (!sig?.timestamp || !sig.token || !sig.signature) return "missing signature fields in the body";
  return safeEqual(sig.signature, hmac("sha256", a.webhook_secret_key ?? "", sig.timestamp + sig.token, "hex")) ? null : bad;
};

const basic: Check = (r, a) => {
  const header = r.headers.authorization ?? "";
  if (!header.toLowerCase().startsWith("basic ")) return missing("Authorization (Basic)");
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const [user, pass] = colon === -1 ? [decoded, ""] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return safeEqual(user, a.username) && safeEqual(pass, a.password) ? null : "credentials do not match";
};

const discord: Check = (r, a) => {
  const sig = r.headers["x-signature-ed25519"];
  const ts = r.headers["x-signature-timestamp"];
  if (!sig || !ts) return missing("X-Signature-Ed25519 or X-Signature-Timestamp");
  return ed25519Valid(Buffer.from(a.public_key ?? "", "hex"), Buffer.concat([Buffer.from(ts), r.body]), Buffer.from(sig, "hex")) ? null : bad;
};

const telnyx: Check = (r, a) => {
  const sig = r.headers["telnyx-signature-ed25519"];
  const ts = r.headers["telnyx-timestamp"];
  if (!sig || !ts) return missing("telnyx-signature-ed25519 or telnyx-timestamp");
  if (!fresh(ts, r.now)) return "timestamp outside the 5-minute tolerance";
  return ed25519Valid(Buffer.from(a.public_key ?? "", "base64"), Buffer.concat([Buffer.from(`${ts}|`), r.body]), Buffer.from(sig, "base64")) ? null : bad;
};

const sendgrid: Check = (r, a) => {
  const sig = r.headers["x-twilio-email-event-webhook-signature"];
  const ts = r.headers["x-twilio-email-event-webhook-timestamp"];
  if (!sig || !ts) return missing("X-Twilio-Email-Event-Webhook-Signature or -Timestamp");
  if (!fresh(ts, r.now)) return "timestamp outside the 5-minute tolerance";
  return ecdsaValid(a.webhook_secret_key ?? "", Buffer.concat([Buffer.from(ts), r.body]), Buffer.from(sig, "base64")) ? null : bad;
};

const x: Check = (r, a) => {
  const sig = r.headers["x-twitter-webhooks-signature"];
  if (!sig) return missing("x-twitter-webhooks-signature");
  return safeEqual(sig, `sha256=${hmac("sha256", a.api_key ?? "", r.body, "base64")}`) ? null : bad;
};

const S = (label: string, header: string, description: string, check: Check, credential = "webhook_secret_key"): Scheme => ({
  label,
  header,
  description,
  credential,
  check,
});

/** Every provider scheme, by source type. */
export const PROVIDER_SCHEMES: Record<string, Scheme> = {
  GITHUB: S("GitHub", "X-Hub-Signature-256", "`sha256=` + hex HMAC-SHA256 of the body (legacy X-Hub-Signature sha1 too)", github),
  STRIPE: S("Stripe", "Stripe-Signature", "`t=…,v1=…`: hex HMAC-SHA256 of `{t}.{body}`, 300 s tolerance", stripe),
  SHOPIFY: S("Shopify", "X-Shopify-Hmac-SHA256", "base64 HMAC-SHA256 of the body", bodyHmac("x-shopify-hmac-sha256", "sha256", "base64")),
  SLACK: S("Slack", "X-Slack-Signature", "`v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`, 5-minute tolerance", slack),
  TWILIO: S("Twilio", "X-Twilio-Signature", "base64 HMAC-SHA1 of the URL + sorted form fields (JSON: `bodySHA256` in the URL)", twilio),
  SVIX: S("Svix", "svix-signature", "`v1,` + base64 HMAC-SHA256 of `{svix-id}.{svix-timestamp}.{body}` with the `whsec_` key", standardWebhooks("svix")),
  RESEND: S("Resend", "svix-signature", "Svix scheme", standardWebhooks("svix")),
  CLERK: S("Clerk", "svix-signature", "Svix scheme", standardWebhooks("svix")),
  OPENAI: S("OpenAI", "webhook-signature", "Standard Webhooks: `{webhook-id}.{webhook-timestamp}.{body}`", standardWebhooks("webhook")),
  REPLICATE: S("Replicate", "webhook-signature", "Standard Webhooks", standardWebhooks("webhook")),
  STANDARD_WEBHOOKS: S("Standard Webhooks", "webhook-signature", "Standard Webhooks", standardWebhooks("webhook")),
  PADDLE: S("Paddle", "Paddle-Signature", "`ts=…;h1=…`: hex HMAC-SHA256 of `{ts}:{body}`", paddle),
  TYPEFORM: S("Typeform", "Typeform-Signature", "`sha256=` + base64 HMAC-SHA256 of the body", bodyHmac("typeform-signature", "sha256", "base64", "sha256=")),
  ZOOM: S("Zoom", "x-zm-signature", "`v0=` + hex HMAC-SHA256 of `v0:{x-zm-request-timestamp}:{body}`, 5-minute tolerance", zoom),
  LINEAR: S("Linear", "Linear-Signature", "hex HMAC-SHA256 of the body", bodyHmac("linear-signature", "sha256", "hex")),
  XERO: S("Xero", "x-xero-signature", "base64 HMAC-SHA256 of the body", bodyHmac("x-xero-signature", "sha256", "base64")),
  HUBSPOT: S("HubSpot", "X-HubSpot-Signature-v3", "base64 HMAC-SHA256 of method + URL + body + timestamp, 5-minute tolerance", hubspot),
  GITLAB: S("GitLab", "X-Gitlab-Token", "the token equals `api_key`", gitlab, "api_key"),
  MAILGUN: S("Mailgun", "body `signature`", "hex HMAC-SHA256 of `timestamp + token` from the body", mailgun),
  WOOCOMMERCE: S("WooCommerce", "X-WC-Webhook-Signature", "base64 HMAC-SHA256 of the body", bodyHmac("x-wc-webhook-signature", "sha256", "base64")),
  POSTMARK: S("Postmark", "Authorization", "Basic auth with `username` and `password`", basic, "username"),
  CHARGEBEE_BILLING: S("Chargebee Billing", "Authorization", "Basic auth with `username` and `password`", basic, "username"),
  CHARGEBEE: S("Chargebee (retired combined type)", "Authorization", "Basic auth with `username` and `password`", basic, "username"),
  DISCORD: S("Discord", "X-Signature-Ed25519", "Ed25519 over `{X-Signature-Timestamp}{body}`, hex `public_key`", discord, "public_key"),
  TWITCH: S("Twitch", "Twitch-Eventsub-Message-Signature", "`sha256=` + hex HMAC-SHA256 of `{message id}{timestamp}{body}`, 10-minute tolerance", twitch),
  TELNYX: S("Telnyx", "telnyx-signature-ed25519", "Ed25519 over `{telnyx-timestamp}|{body}`, base64 `public_key`", telnyx, "public_key"),
  SENDGRID: S(
    "SendGrid",
    "X-Twilio-Email-Event-Webhook-Signature",
    "ECDSA P-256 over `{timestamp}{body}`, 5-minute tolerance; `webhook_secret_key` is the base64 public key",
    sendgrid,
  ),
  X: S("X (Twitter)", "x-twitter-webhooks-signature", "`sha256=` + base64 HMAC-SHA256 of the body with `api_key`", x, "api_key"),
  SQUARE: S("Square", "x-square-hmacsha256-signature", "base64 HMAC-SHA256 of URL + body", (r, a) => {
    const got = r.headers["x-square-hmacsha256-signature"];
    if (!got) return missing("x-square-hmacsha256-signature");
    return safeEqual(got, hmac("sha256", a.webhook_secret_key ?? "", r.url + r.body.toString("utf8"), "base64")) ? null : bad;
  }),
  PIPEDRIVE: S("Pipedrive", "Authorization", "Basic auth (`webhook_secret_key` as `user:password`)", (r, a) => {
    const [username, ...rest] = (a.webhook_secret_key ?? "").split(":");
    return basic(r, { username: username ?? "", password: rest.join(":") });
  }),
  VERCEL: S("Vercel", "x-vercel-signature", "hex HMAC-SHA1 of the body", bodyHmac("x-vercel-signature", "sha1", "hex")),
  INTERCOM: S("Intercom", "X-Hub-Signature", "`sha1=` + hex HMAC-SHA1 of the body", bodyHmac("x-hub-signature", "sha1", "hex", "sha1=")),
  WORKOS: S("WorkOS", "WorkOS-Signature", "`t=…, v1=…`: hex HMAC-SHA256 of `{t}.{body}` (t in ms), 5-minute tolerance", (r, a) => {
    const header = r.headers["workos-signature"];
    if (!header) return missing("WorkOS-Signature");
    const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=") as [string, string]));
    if (!parts.t || !parts.v1) return "malformed WorkOS-Signature";
    if (!fresh(parts.t, r.now, 300, true)) return "timestamp outside the 5-minute tolerance";
    return safeEqual(parts.v1, hmac("sha256", a.webhook_secret_key ?? "", `${parts.t}.${r.body.toString("utf8")}`, "hex")) ? null : bad;
  }),
};
