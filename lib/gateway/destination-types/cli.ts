/**
 * The `CLI` destination type (docs/cli.md): the event is handed to a live `hookyard listen` session of
 * its connection (lib/gateway/delivery/cli-dispatch.ts), whose answer records the attempt; with none
 * listening, the attempt fails with CLI_UNAVAILABLE. `config.path` (default "/") is where the CLI
 * forwards it; no rate limits.
 */
import { dispatchToCli } from "@/lib/gateway/delivery/cli-dispatch";
import { ZDestinationConfigInput } from "@/lib/gateway/destinations/config-schemas";
import { credentialsAsStored, type GatewayDestinationType, invalid, validateShared, ZDestinationAuth } from "@/lib/gateway/destination-types/type";

export const cli: GatewayDestinationType = {
  type: "CLI",
  schema: { config: ZDestinationConfigInput.omit({ url: true, rate_limit: true, rate_limit_period: true }), credentials: ZDestinationAuth },
  validate(c, issues) {
    if (c.url !== undefined) return invalid(issues, "config.url", "CLI destinations take no `config.url`.");
    const path = c.path ?? "/";
    if (!path.startsWith("/")) return invalid(issues, "config.path", '`config.path` must start with "/".');
    if (c.rate_limit != null || c.rate_limit_period !== undefined)
      return invalid(issues, c.rate_limit != null ? "config.rate_limit" : "config.rate_limit_period", "CLI destinations do not support rate limits.");
    return validateShared(c, { path }, issues);
  },
  obfuscate: credentialsAsStored,
  // A developer's CLI session is no receiver to protect: no pause, pace or circuit breaker.
  receiverLimits: false,
  target: (config) => (typeof config.path === "string" ? config.path : "/"),
  async deliver(d) {
    const dispatched = await dispatchToCli({ ...d.attempt, connectionId: d.connectionId, delivery: d.delivery });
    if (dispatched) return null; // the CLI's answer (or the lease's expiry) records the attempt
    const now = new Date();
    return {
      status: null,
      body: "No hookyard CLI is listening to this connection",
      errorCode: "CLI_UNAVAILABLE",
      responseLatency: null,
      deliveryLatency: 0,
      deliveredAt: now,
      respondedAt: null,
      requestedUrl: null,
      httpMethod: null,
    };
  },
};
