/**
 * The `gcp_pubsub` destination type (docs/outbound.md "Google Cloud Pub/Sub"): each event is one message
 * published over Pub/Sub's REST API (`POST /v1/projects/{project_id}/topics/{topic}:publish`): data = the
 * event's JSON, attributes = its metadata, ordering key from `ordering_key_template` when set. Auth is an
 * OAuth2 access token from the service account (a JWT bearer grant signed with its key at its
 * `token_uri`), cached by the destination's client until shortly before it expires; with `endpoint` (an
 * emulator) and no service account, no auth. Requests go through the delivery engine's HTTP sender
 * (address guard, attempt timeout, kept-alive connections).
 */
import { importPKCS8, SignJWT } from "jose";
import { sendHttp } from "@/lib/delivery/http-sender";
import { BrokerError, failed, fingerprintOf, refusedText, succeeded } from "@/lib/outbound/destination-types/broker";
import { dropClient, pooledClient } from "@/lib/outbound/destination-types/clients";
import { icon } from "@/lib/outbound/destination-types/fields";
import { checkTemplates, renderTemplate, TEMPLATE_HELP, TEMPLATE_PATTERN } from "@/lib/outbound/destination-types/template";
import { defineOutboundType, metadataOf, type OutboundDelivery, type Outcome } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

const CODE = "gcp_pubsub_error";
const GOOGLE_API = "https://pubsub.googleapis.com";
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
const SCOPE = "https://www.googleapis.com/auth/pubsub";
/** A token is renewed this long before Google says it expires, ms. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** What a delivery uses of a service account key file. */
type ServiceAccount = { client_email: string; private_key: string; private_key_id?: string; token_uri: string };
/** A destination's client: its signing key and its current access token. */
type PubSub = { account: ServiceAccount | null; key: CryptoKey | null; token: { value: string; until: number } | null };

/** A failed HTTP exchange with Google (or the emulator): the status and the readable reason. */
class GoogleError extends BrokerError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(CODE, message);
  }
}

/** The service account of `json` (a key file's text), or a message saying what is wrong with it. */
export function parseServiceAccount(json: string): ServiceAccount | string {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return "credentials.service_account_json must be the JSON text of a service account key file";
  }
  const o = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
  if (typeof o.client_email !== "string" || typeof o.private_key !== "string" || !o.private_key.includes("PRIVATE KEY"))
    return "credentials.service_account_json needs client_email and private_key (a service account key file)";
  if (o.token_uri !== undefined && (typeof o.token_uri !== "string" || !/^https?:\/\/\S+$/.test(o.token_uri)))
    return "credentials.service_account_json token_uri must be an http(s) URL";
  return {
    client_email: o.client_email,
    private_key: o.private_key,
    private_key_id: typeof o.private_key_id === "string" ? o.private_key_id : undefined,
    token_uri: o.token_uri ?? GOOGLE_TOKEN_URI,
  };
}

/** The reason of an error answer: Google's `STATUS: message` (or OAuth's `error: description`), else the body as sent. */
function reasonOf(body: string): string {
  try {
    const o = JSON.parse(body) as { error?: { status?: string; message?: string } | string; error_description?: string };
    if (typeof o.error === "object" && o.error?.message) return `${o.error.status ?? "ERROR"}: ${o.error.message}`;
    if (typeof o.error === "string") return `${o.error}${o.error_description ? `: ${o.error_description}` : ""}`;
  } catch {
    // not JSON: the body as sent
  }
  return body.slice(0, 1024);
}

/** POSTs `body` to `url` through the delivery sender; the answer's text for a 2xx, else rejects with a BrokerError or GoogleError. */
async function post(url: string, headers: Record<string, string>, body: string, what: string): Promise<string> {
  const ms = outboundConfig().deliveryTimeoutMs;
  const host = new URL(url).host;
  const r = await sendHttp({ url, method: "POST", headers, body: Buffer.from(body), timeoutMs: ms });
  if (r.status === null) {
    if (r.errorCode === "TIMEOUT") throw new BrokerError("timeout", `no answer from ${host} within ${ms} ms`);
    if (r.errorCode === "HOST_UNREACHABLE") throw new BrokerError("host_unreachable", refusedText(host));
    throw new BrokerError(CODE, `could not connect to ${host} (${r.errorCode ?? "error"})`);
  }
  if (r.status >= 300) throw new GoogleError(r.status, `${what}${reasonOf(r.body ?? "")}`);
  return r.body ?? "";
}

/** The destination's access token: the cached one, else a new one from its service account's token endpoint. */
async function accessToken(client: PubSub): Promise<string | null> {
  if (!client.account || !client.key) return null;
  if (client.token && client.token.until > Date.now()) return client.token.value;
  const { account } = client;
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(client.key);
  const form = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString();
  const answer = JSON.parse(await post(account.token_uri, { "content-type": "application/x-www-form-urlencoded" }, form, "token request: ")) as {
    access_token?: string;
    expires_in?: number;
  };
  if (!answer.access_token) throw new BrokerError(CODE, "token request: the answer has no access_token");
  client.token = { value: answer.access_token, until: Date.now() + (answer.expires_in ?? 3600) * 1000 - TOKEN_MARGIN_MS };
  return answer.access_token;
}

/** Opens a destination's client: its service account parsed and its key imported (none without a service account). */
async function open(credentials: Record<string, string>): Promise<PubSub> {
  if (!credentials.service_account_json) return { account: null, key: null, token: null };
  const account = parseServiceAccount(credentials.service_account_json);
  if (typeof account === "string") throw new BrokerError(CODE, account);
  try {
    return { account, key: await importPKCS8(account.private_key, "RS256"), token: null };
  } catch {
    throw new BrokerError(CODE, "credentials.service_account_json: private_key is not an RSA PKCS #8 PEM key");
  }
}

/** The Pub/Sub attributes of a delivery: its metadata, without keys Pub/Sub reserves (`goog…`). */
const attributesOf = (metadata: Record<string, string>) => Object.fromEntries(Object.entries(metadata).filter(([k]) => !k.startsWith("goog")));

/** One delivery: a token when needed, then publish; the message id is the attempt's body. Never throws. */
async function sendPubSub({ claimed: c, config, credentials }: OutboundDelivery): Promise<Outcome> {
  const started = performance.now();
  const base = (config.endpoint || GOOGLE_API).replace(/\/$/, "");
  const target = new URL(base).host;
  try {
    const client = await pooledClient(
      c.destination_id,
      fingerprintOf(config, credentials),
      () => open(credentials),
      () => undefined,
    );
    const token = await accessToken(client);
    const orderingKey = config.ordering_key_template ? renderTemplate(config.ordering_key_template, c, "config.ordering_key_template") : "";
    const message = { data: c.data.toString("base64"), attributes: attributesOf(metadataOf(c)), ...(orderingKey ? { orderingKey } : {}) };
    const url = `${base}/v1/projects/${encodeURIComponent(config.project_id)}/topics/${encodeURIComponent(config.topic)}:publish`;
    const answer = await post(
      url,
      { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      JSON.stringify({ messages: [message] }),
      "",
    );
    const ids = (JSON.parse(answer) as { messageIds?: string[] }).messageIds;
    return succeeded(started, ids?.[0] ?? "");
  } catch (err) {
    dropClient(c.destination_id);
    const outcome = failed(started, err, CODE, target);
    return err instanceof GoogleError ? { ...outcome, response: { ...outcome.response!, status_code: err.status } } : outcome;
  }
}

export const gcpPubSub = defineOutboundType({
  info: {
    type: "gcp_pubsub",
    label: "Google Cloud Pub/Sub",
    description: "Publish events to a Google Cloud Pub/Sub topic (or the Pub/Sub emulator).",
    icon: icon(
      '<circle cx="12" cy="12" r="2"/><circle cx="5" cy="6" r="2"/><circle cx="19" cy="6" r="2"/><circle cx="12" cy="20" r="2"/><path d="M6.5 7.5l4 3M17.5 7.5l-4 3M12 14v4"/>',
    ),
    instructions:
      "Each event is one message: data = the event's JSON, attributes = its metadata (event-id, topic, timestamp, yours). Paste the JSON key file of a service account with `roles/pubsub.publisher` on the topic. With an emulator `endpoint` the key may be left empty (no auth).",
    config_fields: [
      {
        key: "project_id",
        type: "text",
        label: "Project id",
        description: "The Google Cloud project.",
        required: true,
        pattern: "^[a-z][a-z0-9-]{4,28}[a-z0-9]$",
      },
      {
        key: "topic",
        type: "text",
        label: "Topic",
        description: "The topic's id (not its full name).",
        required: true,
        pattern: "^[A-Za-z][A-Za-z0-9._~%+-]{2,254}$",
      },
      {
        key: "endpoint",
        type: "text",
        label: "Endpoint",
        description: "The Pub/Sub emulator's or a private endpoint's URL (http://host:port) instead of Google's.",
        required: false,
        pattern: "^https?:\\/\\/[^\\s/?#]+\\/?$",
      },
      {
        key: "ordering_key_template",
        type: "text",
        label: "Ordering key template",
        description: `Messages with the same ordering key are delivered in order (the subscription must enable ordering); empty: none. ${TEMPLATE_HELP}`,
        required: false,
        pattern: TEMPLATE_PATTERN,
      },
    ],
    credential_fields: [
      {
        key: "service_account_json",
        type: "text",
        label: "Service account key (JSON)",
        description: "The whole JSON key file of the service account. Required unless an emulator endpoint is set.",
        required: false,
        sensitive: true,
      },
    ],
  },
  checkValues(config, credentials, issues) {
    if (credentials.service_account_json) {
      const account = parseServiceAccount(credentials.service_account_json);
      if (typeof account === "string") issues.push(account);
    } else if (!config.endpoint) issues.push("credentials.service_account_json is required (unless config.endpoint names an emulator)");
    checkTemplates(config, ["ordering_key_template"], issues);
  },
  // The topic's full name (`projects/acme/topics/orders`).
  target: (config) => ({ target: config.project_id ? `projects/${config.project_id}/topics/${config.topic ?? ""}` : "" }),
  deliver: sendPubSub,
});
