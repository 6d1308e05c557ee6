/**
 * The `webhook` destination type (docs/outbound.md "Delivery"): a signed `POST` to the tenant's URL.
 * Metadata travel as `{OUTBOUND_WEBHOOK_HEADER_PREFIX}{key}` headers; `{prefix}signature` is `v0=` and the
 * hex HMAC-SHA256 of the body with the secret (two, comma-separated, while a rotated secret is valid).
 */
import { customHeaders, icon, URL_PATTERN } from "@/lib/outbound/destination-types/fields";
import { deliverHttp, hmacHex, httpHeaders, httpTarget, previousSecretValid } from "@/lib/outbound/destination-types/http-delivery";
import { defineOutboundType, hexSecret, metadataOf, type OutboundDelivery } from "@/lib/outbound/destination-types/type";
import { outboundConfig } from "@/lib/outbound/settings";

/** A webhook delivery's headers before signing: the HTTP ones and each metadata entry as `{prefix}{key}`. */
function webhookHeaders(d: OutboundDelivery): Record<string, string> {
  const prefix = outboundConfig().webhookHeaderPrefix;
  return httpHeaders(d, Object.fromEntries(Object.entries(metadataOf(d.claimed)).map(([k, v]) => [`${prefix}${k.toLowerCase()}`, v])));
}

export const webhook = defineOutboundType({
  info: {
    type: "webhook",
    label: "Webhook",
    description: "Send events to an HTTP endpoint, signed with HMAC-SHA256.",
    icon: icon(
      '<path d="M18 16.98h-5.99c-1.1 0-1.95.94-2.48 1.9A4 4 0 0 1 2 17c.01-.7.2-1.4.57-2"/><path d="m6 17 3.13-5.78c.53-.97.1-2.18-.5-3.1a4 4 0 1 1 6.89-4.06"/><path d="m12 6 3.13 5.73C15.66 12.7 16.9 13 18 13a4 4 0 0 1 0 8"/>',
    ),
    instructions:
      "Deliveries are `POST` requests whose body is the event's data as published. Verify them with the `x-outbound-signature` header: `v0=` followed by the hex HMAC-SHA256 of the raw body with your secret (during a rotation, two signatures separated by a comma).",
    config_fields: [
      { key: "url", type: "text", label: "URL", description: "The endpoint receiving the events.", required: true, pattern: URL_PATTERN },
      customHeaders,
    ],
    credential_fields: [{ key: "secret", type: "text", label: "Signing secret", description: "Generated when left empty.", required: false }],
  },
  newSecret: hexSecret,
  target: httpTarget,
  requestHeaders: webhookHeaders,
  deliver: (d) =>
    deliverHttp(d, webhookHeaders, (headers) => {
      const { claimed: c, credentials } = d;
      const sigs = [hmacHex(credentials.secret, c.data), ...(previousSecretValid(credentials) ? [hmacHex(credentials.previous_secret, c.data)] : [])];
      headers[`${outboundConfig().webhookHeaderPrefix}signature`] = `v0=${sigs.join(",")}`;
    }),
});
