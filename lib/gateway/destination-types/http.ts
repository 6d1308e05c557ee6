/**
 * The `HTTP` destination type (docs/gateway-api.md#destinations): the event is sent to
 * `config.url` (plus the forwarded path and query) with the gateway's headers and the destination's
 * auth, through the delivery engine's sender; rate limits apply.
 */
import { buildOutgoingRequest, destinationUrl } from "@/lib/delivery/outgoing";
import { sendHttp } from "@/lib/delivery/http-sender";
import { preparationFailure } from "@/lib/gateway/delivery/attempt-context";
import { ZDestinationConfigInput } from "@/lib/gateway/destinations/config-schemas";
import {
  credentialsAsStored,
  type GatewayDestinationType,
  invalid,
  validateShared,
  withRateLimit,
  ZDestinationAuth,
} from "@/lib/gateway/destination-types/type";

export const http: GatewayDestinationType = {
  type: "HTTP",
  schema: { config: ZDestinationConfigInput.omit({ path: true }), credentials: ZDestinationAuth },
  validate(c, issues) {
    if (!c.url) return invalid(issues, "config.url", "HTTP destination requires `config.url`.");
    let url: URL;
    try {
      url = new URL(c.url);
    } catch {
      return invalid(issues, "config.url", "`config.url` must be an absolute http(s) URL.");
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname)
      return invalid(issues, "config.url", "`config.url` must be an absolute http(s) URL.");
    if (c.path !== undefined) return invalid(issues, "config.path", "HTTP destinations take no `config.path`; `config.url` holds the whole address.");
    const config: Record<string, unknown> = { url: c.url };
    withRateLimit(c, config);
    return validateShared(c, config, issues);
  },
  obfuscate: credentialsAsStored,
  target: (config, { path, query }) => destinationUrl(config, path, query),
  async deliver(d) {
    // A request that cannot be built (a stored URL that does not parse) fails the attempt with the reason.
    let out: ReturnType<typeof buildOutgoingRequest>;
    try {
      out = buildOutgoingRequest(d.delivery);
    } catch (err) {
      return preparationFailure(err);
    }
    const result = await sendHttp({ ...out, timeoutMs: d.timeoutMs });
    d.answered();
    return { ...result, requestedUrl: out.url, httpMethod: out.method };
  },
};
