/**
 * Zod schemas of issue triggers, issues, bookmarks and webhook notifications
 * (docs/gateway-api.md#issues-and-issue-triggers, #notifications, #bookmarks). The OpenAPI document is generated from them.
 */
import { z } from "zod";
import { dateFilter, enumFilter, type FilterDef, type FilterTable, stringFilter } from "@/lib/http/query-schema";

const id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, "must be an id");
const name = z.string().min(1).max(155);
/** `connections` / `destinations` / `transformations` of a trigger: ids, or a glob on names (`"*"`, `"shop-*"`). */
const targets = z.union([z.string().min(1).max(255), z.array(id).min(1).max(100)]);

export const LOG_LEVELS = ["debug", "info", "warn", "error", "fatal"] as const;
const ISSUE_TYPES = ["delivery", "transformation", "backpressure"] as const;
const ISSUE_STATUSES = ["OPENED", "ACKNOWLEDGED", "IGNORED", "RESOLVED"] as const;
const NOTIFICATION_TOPICS = [
  "issue.opened",
  "issue.updated",
  "deprecated.attempt-failed",
  "event.successful",
  // A destination's circuit breaker opened or closed (docs/pipeline.md "Receiver-driven limits").
  "destination.circuit_opened",
  "destination.circuit_closed",
] as const;

export const ZDeliveryConfigs = z.strictObject({ strategy: z.enum(["first_attempt", "final_attempt"]), connections: targets });
export const ZTransformationConfigs = z.strictObject({ log_level: z.enum(LOG_LEVELS), transformations: targets });
export const ZBackpressureConfigs = z.strictObject({
  delay: z.number().int().min(60_000).max(86_400_000).meta({ description: "ms an event may wait before the destination counts as backed up." }),
  destinations: targets,
});

const channels = z
  .record(z.string().max(64), z.unknown())
  .meta({ description: "Stored as given: `{slack?: {channel_name}, microsoft_teams?, pagerduty?, opsgenie?, email?}`." });
const common = { name: name.nullable().optional(), channels: channels.optional() };

/** `POST /issue-triggers`, `PUT /issue-triggers` (upsert by `name`): the configs depend on `type`. */
export const ZIssueTriggerCreate = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("delivery"), configs: ZDeliveryConfigs, ...common }),
    z.strictObject({ type: z.literal("transformation"), configs: ZTransformationConfigs, ...common }),
    z.strictObject({ type: z.literal("backpressure"), configs: ZBackpressureConfigs, ...common }),
  ])
  .meta({ id: "IssueTriggerCreate" });
export type TIssueTriggerCreate = z.infer<typeof ZIssueTriggerCreate>;

/** `PUT /issue-triggers/{id}`: any of the fields; `configs` is checked against the trigger's type. */
export const ZIssueTriggerUpdate = z
  .strictObject({
    name: name.nullable().optional(),
    configs: z.record(z.string(), z.unknown()).optional(),
    channels: channels.optional(),
    type: z.enum(ISSUE_TYPES).optional(),
  })
  .meta({ id: "IssueTriggerUpdate" });
export type TIssueTriggerUpdate = z.infer<typeof ZIssueTriggerUpdate>;

export const ZIssueTrigger = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string().nullable(),
    type: z.enum(ISSUE_TYPES),
    configs: z.record(z.string(), z.unknown()),
    channels: z.record(z.string(), z.unknown()),
    disabled_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "IssueTrigger" });

export const ZIssue = z
  .object({
    id: z.string(),
    team_id: z.string(),
    issue_trigger_id: z.string().nullable(),
    type: z.enum(ISSUE_TYPES),
    status: z.enum(ISSUE_STATUSES),
    aggregation_keys: z.record(z.string(), z.array(z.unknown())).meta({
      description:
        "delivery: `{webhook_id[], response_status[], error_code[]}`; transformation: `{transformation_id[], log_level[]}`; backpressure: `{destination_id[]}`.",
    }),
    reference: z.record(z.string(), z.unknown()).meta({ description: "delivery: `{event_id, attempt_id}` of the failure that opened it." }),
    data: z.record(z.string(), z.unknown()).nullable().meta({
      description: "delivery: `{trigger_event, trigger_attempt}`, the event and attempt that opened (or reopened) it; others: `{trigger_reference}`.",
    }),
    opened_at: z.iso.datetime(),
    first_seen_at: z.iso.datetime(),
    last_seen_at: z.iso.datetime(),
    dismissed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Issue" });
export type TIssue = z.infer<typeof ZIssue>;

export const ZIssueUpdate = z.strictObject({ status: z.enum(ISSUE_STATUSES) }).meta({ id: "IssueUpdate" });

export const ISSUE_TRIGGER_FILTERS = {
  id: stringFilter("t.id", "Trigger id, or an array."),
  name: stringFilter("t.name", "Name, an array, or `name[contains]=`."),
  type: enumFilter("t.type", ISSUE_TYPES, "delivery, transformation or backpressure; or an array."),
  disabled_at: dateFilter("t.disabled_at", "Date with operators; `disabled_at[any]=true` for disabled ones."),
  created_at: dateFilter("t.created_at", "Date with operators."),
} satisfies FilterTable;

const AGGREGATION_KEYS = ["webhook_id", "response_status", "error_code", "transformation_id", "log_level", "destination_id"] as const;
const keyValues = z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(100)]);

/**
 * `aggregation_keys[webhook_id]=web_…&aggregation_keys[response_status][]=500`: issues whose
 * aggregation keys hold one of the given values for each key given.
 */
const aggregationKeysFilter: FilterDef = {
  column: null,
  type: "string",
  description: "Per aggregation key (webhook_id, response_status, error_code, transformation_id, log_level, destination_id): a value or an array.",
  forms: { value: z.never(), ops: z.partialRecord(z.enum(AGGREGATION_KEYS), keyValues) },
  sql: (value, params) => {
    const parts = Object.entries(value as Record<string, string | string[]>).map(([key, v]) => {
      params.push(key, Array.isArray(v) ? v : [v]);
      return `EXISTS (SELECT 1 FROM jsonb_array_elements_text(i.aggregation_keys -> $${params.length - 1}) k WHERE k = ANY($${params.length}::text[]))`;
    });
    return parts.length ? parts.join(" AND ") : "true";
  },
};

export const ISSUE_FILTERS = {
  id: stringFilter("i.id", "Issue id, or an array."),
  issue_trigger_id: stringFilter("i.issue_trigger_id", "Trigger id, or an array."),
  type: enumFilter("i.type", ISSUE_TYPES, "delivery, transformation or backpressure; or an array."),
  status: enumFilter("i.status", ISSUE_STATUSES, "OPENED, ACKNOWLEDGED, IGNORED or RESOLVED; or an array."),
  aggregation_keys: aggregationKeysFilter,
  opened_at: dateFilter("i.opened_at", "Date with operators."),
  first_seen_at: dateFilter("i.first_seen_at", "Date with operators."),
  last_seen_at: dateFilter("i.last_seen_at", "Date with operators."),
  dismissed_at: dateFilter("i.dismissed_at", "Date with operators; dismissed issues are left out unless it is given."),
  created_at: dateFilter("i.created_at", "Date with operators."),
} satisfies FilterTable;
export const ISSUE_ORDER_BY = ["created_at", "last_seen_at", "opened_at", "first_seen_at"] as const;

export const ZBookmarkCreate = z
  .strictObject({
    event_data_id: id.meta({ description: "`edt_…` of a request (or of an event), as events and requests show it." }),
    webhook_id: id,
    label: name,
    name: name.nullable().optional(),
  })
  .meta({ id: "BookmarkCreate" });
export const ZBookmarkUpdate = z
  .strictObject({ event_data_id: id.optional(), webhook_id: id.optional(), label: name.optional(), name: name.nullable().optional() })
  .meta({ id: "BookmarkUpdate" });
export const ZBookmark = z
  .object({
    id: z.string(),
    team_id: z.string(),
    webhook_id: z.string(),
    event_data_id: z.string(),
    label: z.string(),
    name: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).optional(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Bookmark" });
export const BOOKMARK_FILTERS = {
  id: stringFilter("b.id", "Bookmark id, or an array."),
  name: stringFilter("b.name", "Name, an array, or `name[contains]=`."),
  label: stringFilter("b.label", "Label, an array, or `label[contains]=`."),
  webhook_id: stringFilter("b.webhook_id", "Connection id, or an array."),
  event_data_id: stringFilter("b.event_data_id", "Event data id, or an array."),
  created_at: dateFilter("b.created_at", "Date with operators."),
} satisfies FilterTable;

export const ZNotificationWebhooks = z
  .strictObject({ enabled: z.boolean(), topics: z.array(z.enum(NOTIFICATION_TOPICS)).max(NOTIFICATION_TOPICS.length), source_id: id })
  .meta({ id: "NotificationWebhooks" });
export type TNotificationWebhooks = z.infer<typeof ZNotificationWebhooks>;
