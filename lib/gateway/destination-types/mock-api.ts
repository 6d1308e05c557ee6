/**
 * The `MOCK_API` destination type: accepts every event without sending anything (a 200 attempt saying
 * so), to try connections out. HTTP without a URL: rate limits apply.
 */
import { ZDestinationConfigInput } from "@/lib/gateway/destinations/config-schemas";
import {
  credentialsAsStored,
  type GatewayDestinationType,
  invalid,
  validateShared,
  withRateLimit,
  ZDestinationAuth,
} from "@/lib/gateway/destination-types/type";

export const mockApi: GatewayDestinationType = {
  type: "MOCK_API",
  schema: { config: ZDestinationConfigInput.omit({ url: true, path: true }), credentials: ZDestinationAuth },
  validate(c, issues) {
    if (c.url !== undefined) return invalid(issues, "config.url", "MOCK_API destinations take no `config.url`.");
    if (c.path !== undefined) return invalid(issues, "config.path", "MOCK_API destinations take no `config.path`; `config.url` holds the whole address.");
    const config: Record<string, unknown> = {};
    withRateLimit(c, config);
    return validateShared(c, config, issues);
  },
  obfuscate: credentialsAsStored,
  target: () => null,
  deliver(d) {
    const now = new Date();
    return Promise.resolve({
      status: 200,
      body: JSON.stringify({ message: "Mock API: accepted" }),
      errorCode: null,
      responseLatency: 0,
      deliveryLatency: 0,
      deliveredAt: now,
      respondedAt: now,
      requestedUrl: null,
      httpMethod: d.delivery.method,
    });
  },
};
