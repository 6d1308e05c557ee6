/**
 * The `standard_webhook` destination type (docs/outbound.md "Delivery"): a `POST` to the tenant's URL
 * signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, two signatures while a rotated secret is valid), the event's metadata as headers
 * and its topic as `webhook-topic`.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { customHeaders, icon, URL_PATTERN } from "@/lib/outbound/destination-types/fields";
import { deliverHttp, httpTarget, previousSecretValid } from "@/lib/outbound/destination-types/http-delivery";
import { defineOutboundType } from "@/lib/outbound/destination-types/type";

export const standardWebhook = defineOutboundType({
  info: {
    type: "standard_webhook",
    label: "Standard Webhooks",
    description: "Send events to an HTTP endpoint following the Standard Webhooks specification.",
    icon: icon('<path d="M4 12h16"/><path d="M12 4v16"/><circle cx="12" cy="12" r="9"/>'),
    instructions:
      "Deliveries carry `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64>`) as in the Standard Webhooks specification: verify them with any of its libraries and your `whsec_` secret.",
    config_fields: [
      { key: "url", type: "text", label: "URL", description: "The endpoint receiving the events.", required: true, pattern: URL_PATTERN },
      customHeaders,
    ],
    credential_fields: [
      {
        key: "secret",
        type: "text",
        label: "Signing secret",
        description: "`whsec_` + base64 of 24 to 64 bytes; generated when left empty.",
        required: false,
        pattern: "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$",
      },
    ],
  },
  // `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries expect.
  newSecret: () => `whsec_${randomBytes(32).toString("base64")}`,
  target: httpTarget,
  deliver: (d) =>
    deliverHttp(d, (headers) => {
      const { claimed: c, credentials } = d;
      const at = new Date();
      const sign = (secret: string) => new Webhook(secret).sign(c.event_id, at, c.data.toString("utf8"));
      for (const [k, v] of Object.entries(c.metadata ?? {})) headers[k.toLowerCase()] = v;
      headers["webhook-topic"] = c.topic;
      headers["webhook-id"] = c.event_id;
      headers["webhook-timestamp"] = String(Math.floor(at.getTime() / 1000));
      headers["webhook-signature"] = [sign(credentials.secret), ...(previousSecretValid(credentials) ? [sign(credentials.previous_secret)] : [])].join(" ");
    }),
});
