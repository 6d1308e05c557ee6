/**
 * Handlers of `/issue-triggers`, `/issues` and `/notifications/webhooks`
 * (docs/gateway-api.md#issues-and-issue-triggers, #notifications). Route files under app/api/[version]/ re-export them.
 */
import type { z } from "zod";
import {
  countIssues,
  createTrigger,
  deleteTrigger,
  dismissIssue,
  getIssue,
  getTrigger,
  listIssues,
  listTriggers,
  setIssueStatus,
  setTriggerDisabled,
  updateTrigger,
  upsertTrigger,
} from "@/lib/gateway/issues/issue-store";
import { setNotificationWebhooks } from "@/lib/gateway/issues/notify";
import {
  ISSUE_ORDER_BY,
  type TIssueTriggerCreate,
  type TIssueTriggerUpdate,
  type TNotificationWebhooks,
  ZIssueTriggerCreate,
  ZIssueTriggerUpdate,
  ZIssueUpdate,
  ZNotificationWebhooks,
} from "@/lib/gateway/issues/schemas";
import { DISABLE_ACTIONS } from "@/lib/gateway/team-resources";
import { notFound } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

type IdParams = { id: string };

// GET /issue-triggers - filters id, name, type, disabled_at, created_at; paging (order_by created_at | name)
export const listTriggersRoute = gatewayRoute({}, async ({ teamId, query }) => ({
  body: await listTriggers(teamId, query, parsePaging(query, ["created_at", "name"])),
}));
// POST /issue-triggers {type, configs, channels?, name?}
export const createTriggerRoute = gatewayRoute<TIssueTriggerCreate>({ body: ZIssueTriggerCreate }, async ({ teamId, body }) => ({
  body: await createTrigger(teamId, body),
}));
// PUT /issue-triggers - create or update by name
export const upsertTriggerRoute = gatewayRoute<TIssueTriggerCreate>({ body: ZIssueTriggerCreate }, async ({ teamId, body }) => ({
  body: await upsertTrigger(teamId, body),
}));
// GET /issue-triggers/{id}
export const getTriggerRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getTrigger(teamId, params.id) }));
// PUT /issue-triggers/{id}
export const updateTriggerRoute = gatewayRoute<TIssueTriggerUpdate, IdParams>({ body: ZIssueTriggerUpdate }, async ({ teamId, params, body }) => ({
  body: await updateTrigger(teamId, params.id, body),
}));
// DELETE /issue-triggers/{id} - {id}
export const deleteTriggerRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await deleteTrigger(teamId, params.id) }));
// PUT /issue-triggers/{id}/disable | enable
export const triggerActionRoute = gatewayRoute<undefined, IdParams & { action: string }>({}, async ({ teamId, params }) => {
  const disable = DISABLE_ACTIONS[params.action];
  if (disable === undefined) throw notFound(params.action);
  return { body: await setTriggerDisabled(teamId, params.id, disable) };
});

// GET /issues - filters id, issue_trigger_id, type, status, dates; paging
export const listIssuesRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await listIssues(teamId, query, parsePaging(query, ISSUE_ORDER_BY)) }));
// GET /issues/count
export const countIssuesRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countIssues(teamId, query) }));
// GET /issues/{id}
export const getIssueRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await getIssue(teamId, params.id) }));
// PUT /issues/{id} {status}
export const updateIssueRoute = gatewayRoute<z.infer<typeof ZIssueUpdate>, IdParams>({ body: ZIssueUpdate }, async ({ teamId, params, body }) => ({
  body: await setIssueStatus(teamId, params.id, body.status),
}));
// DELETE /issues/{id} - dismiss
export const dismissIssueRoute = gatewayRoute<undefined, IdParams>({}, async ({ teamId, params }) => ({ body: await dismissIssue(teamId, params.id) }));

// PUT /notifications/webhooks {enabled, topics, source_id}
export const notificationWebhooksRoute = gatewayRoute<TNotificationWebhooks>({ body: ZNotificationWebhooks }, async ({ teamId, body }) => ({
  body: await setNotificationWebhooks(teamId, body),
}));
