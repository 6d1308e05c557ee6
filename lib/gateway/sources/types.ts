/**
 * The source-type catalogue, shared by the console (`POST /` `type`) and the gateway
 * (`/sources` `type`). `WEBHOOK` is the generic type; the others are provider-named.
 * docs/console-api.md#post-, docs/gateway-api.md#sources.
 */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

type SourceTypeDefinition = {
  /** Upper-case type value, e.g. `STRIPE`. */
  type: string;
  /** Display name. */
  label: string;
  /** `config.allowed_http_methods` when the source does not set it. */
  defaultAllowedMethods: HttpMethod[];
  /** True when the source cannot work without credentials (answering a handshake needs them). */
  requiresAuth: boolean;
  /** Field names of `config.auth` (credentials) for this provider; generic types use `auth_type` instead. */
  authFields?: string[];
  /** Last API version accepting this type on create/update (a retired combined type). */
  acceptedUntil?: "2025-01-01";
};

const GENERIC_METHODS: HttpMethod[] = ["POST", "PUT", "PATCH", "DELETE"];
const POST_ONLY: HttpMethod[] = ["POST"];

const AUTH_FIELDS: Record<string, string[]> = {
  GITLAB: ["api_key"],
  X: ["api_key"],
  POSTMARK: ["username", "password"],
  CHARGEBEE_BILLING: ["username", "password"],
  CHARGEBEE: ["username", "password"],
  DISCORD: ["public_key"],
  TELNYX: ["public_key"],
  PAYPAL: ["webhook_id"],
  AWS_SNS: [],
  FIREBLOCKS: ["environment"],
};

const provider = (type: string, label: string, requiresAuth = false, methods = POST_ONLY): SourceTypeDefinition => ({
  type,
  label,
  defaultAllowedMethods: methods,
  requiresAuth,
  authFields: (Object.hasOwn(AUTH_FIELDS, type) ? AUTH_FIELDS[type] : undefined) ?? ["webhook_secret_key"],
});

const CATALOGUE: SourceTypeDefinition[] = [
  { type: "WEBHOOK", label: "Webhook", defaultAllowedMethods: GENERIC_METHODS, requiresAuth: false },
  { type: "HTTP", label: "HTTP", defaultAllowedMethods: GENERIC_METHODS, requiresAuth: false },
  provider("AIRTABLE", "Airtable"),
  provider("ASAAS", "Asaas"),
  provider("AWS_SNS", "AWS SNS"),
  provider("BONDSMITH", "Bondsmith"),
  provider("CAL", "Cal.com"),
  // The combined Chargebee type, split into CHARGEBEE_BILLING (and future product types) in 2025-07-01.
  { ...provider("CHARGEBEE", "Chargebee"), acceptedUntil: "2025-01-01" },
  provider("CHARGEBEE_BILLING", "Chargebee Billing"),
  provider("CLERK", "Clerk"),
  provider("COINBASE", "Coinbase"),
  provider("COMMERCELAYER", "Commerce Layer"),
  provider("COURIER", "Courier"),
  provider("DISCORD", "Discord", true),
  provider("DOCUSIGN", "Docusign"),
  provider("EBAY", "eBay", true, ["GET", "POST"]),
  provider("FIREBLOCKS", "Fireblocks", true),
  provider("FRONTAPP", "Front"),
  provider("GITHUB", "GitHub"),
  provider("GITLAB", "GitLab"),
  provider("HUBSPOT", "HubSpot"),
  provider("INTERCOM", "Intercom"),
  provider("LINEAR", "Linear"),
  provider("MAILCHIMP", "Mailchimp", false, ["GET", "POST"]),
  provider("MAILGUN", "Mailgun"),
  provider("NOTION", "Notion"),
  provider("NYLAS", "Nylas", false, ["GET", "POST"]),
  provider("OPENAI", "OpenAI"),
  provider("ORB", "Orb"),
  provider("PADDLE", "Paddle"),
  provider("PAYPAL", "PayPal", true),
  provider("PIPEDRIVE", "Pipedrive"),
  provider("POSTMARK", "Postmark"),
  provider("RECHARGE", "Recharge"),
  provider("REPAY", "Repay"),
  provider("REPLICATE", "Replicate"),
  provider("RESEND", "Resend"),
  provider("SANITY", "Sanity"),
  provider("SENDGRID", "SendGrid"),
  provider("SHOPIFY", "Shopify"),
  provider("SHOPLINE", "Shopline"),
  provider("SLACK", "Slack"),
  provider("SQUARE", "Square"),
  provider("STRIPE", "Stripe"),
  provider("SVIX", "Svix"),
  provider("TELNYX", "Telnyx", true),
  provider("TOKENIO", "Token.io"),
  provider("TREEZOR", "Treezor"),
  provider("TWILIO", "Twilio"),
  provider("TWITCH", "Twitch", true),
  provider("TYPEFORM", "Typeform"),
  provider("VERCEL", "Vercel"),
  provider("VERCEL_LOG_DRAINS", "Vercel Log Drains"),
  provider("WIX", "Wix"),
  provider("WOOCOMMERCE", "WooCommerce"),
  provider("WORKOS", "WorkOS"),
  provider("X", "X (Twitter)", true, ["GET", "POST"]),
  provider("XERO", "Xero"),
  provider("ZOOM", "Zoom", true),
];

const BY_TYPE = new Map(CATALOGUE.map((d) => [d.type, d]));

/** Every supported source type, `WEBHOOK` first. */
export function listSourceTypes(): readonly SourceTypeDefinition[] {
  return CATALOGUE;
}

/** The definition of `type` (exact, upper case), or undefined when it is not supported. */
export function findSourceType(type: string): SourceTypeDefinition | undefined {
  return BY_TYPE.get(type);
}
