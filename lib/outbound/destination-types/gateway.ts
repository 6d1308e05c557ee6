/**
 * The `gateway` destination type (docs/outbound.md "The gateway type"): events become requests of a
 * source of this deployment's event gateway, ingested directly (no HTTP) through the source's own
 * verification. Only sources of the teams linked to the outbound service (lib/outbound/gateway-target.ts)
 * may be named, checked on create, on every update and at each delivery.
 */
import { publicSourceId } from "@/lib/ids";
import { ingestSigned } from "@/lib/ingest/ingest";
import { icon } from "@/lib/outbound/destination-types/fields";
import { defineOutboundType, metadataOf } from "@/lib/outbound/destination-types/type";
import { gatewaySourceAllowed, notAllowedSourceMessage } from "@/lib/outbound/gateway-target";
import { outboundConfig } from "@/lib/outbound/settings";

export const gateway = defineOutboundType({
  info: {
    type: "gateway",
    label: "Hookyard gateway",
    description: "Send events into a source of this deployment's event gateway, to filter, transform and fan them out with connections.",
    icon: icon('<rect x="3" y="4" width="18" height="6" rx="1"/><rect x="3" y="14" width="18" height="6" rx="1"/><path d="M7 10v4"/><path d="M17 10v4"/>'),
    instructions:
      "Events become requests of the gateway source you name (its id, `src_…`), ingested directly inside this deployment. Only sources of the gateway team the operator links to this service can be named. Each request goes through the source's verification: signed with the source's secret when it uses generic HMAC, an API key or Basic auth; a source verified by a provider's scheme rejects it.",
    config_fields: [
      {
        key: "source_id",
        type: "text",
        label: "Source id",
        description: "The gateway source (`src_…`), of the team linked to this service.",
        required: true,
        pattern: "^src_[A-Za-z0-9]{22}$",
      },
    ],
    credential_fields: [],
  },
  async checkConfig(config, issues) {
    if (config.source_id && !(await gatewaySourceAllowed(config.source_id))) issues.push(notAllowedSourceMessage(config.source_id));
  },
  target: (config) => ({ target: config.source_id ?? "" }),
  async deliver({ claimed: c, config }) {
    const prefix = outboundConfig().webhookHeaderPrefix;
    const started = performance.now();
    const headers = {
      "content-type": "application/json",
      ...Object.fromEntries(Object.entries(metadataOf(c)).map(([k, v]) => [`${prefix}${k.toLowerCase()}`, v])),
    };
    try {
      // Only into a source of a linked team (a destination stored before this rule, or whose team was
      // unlinked since, is refused here too), and through the source's own verification (ingestSigned).
      if (!(await gatewaySourceAllowed(config.source_id))) {
        return {
          success: false,
          code: "source_not_allowed",
          latencyMs: Math.round(performance.now() - started),
          response: { status_code: null, body: `${config.source_id} is not a source of the gateway team linked to the outbound service`, headers: {} },
        };
      }
      const answer = await ingestSigned(publicSourceId(config.source_id), {
        method: "POST",
        pathname: "/",
        query: "",
        headers,
        body: c.data,
        bodySize: c.data.length,
        bodyTooLarge: false,
        clientIp: "127.0.0.1",
        secure: false,
      });
      const text = typeof answer.body === "string" ? answer.body : answer.body ? answer.body.toString("utf8") : "";
      return {
        success: answer.status < 400,
        code: String(answer.status),
        latencyMs: Math.round(performance.now() - started),
        response: { status_code: answer.status, body: text, headers: {} },
      };
    } catch (err) {
      return {
        success: false,
        code: "gateway_error",
        latencyMs: Math.round(performance.now() - started),
        response: { status_code: null, body: err instanceof Error ? err.message : String(err), headers: {} },
      };
    }
  },
});
