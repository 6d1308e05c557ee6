/**
 * The outbound API's routes (docs/outbound.md), one table for both
 * deployment forms, served by the wrapper in lib/outbound/http.ts through app/outbound/[...path].
 * Auth: `admin` = admin key only; `any` = admin key or the tenant's JWT (scoped by the wrapper).
 */
import { outboundConfig } from "@/lib/outbound/settings";
import { getConfig } from "@/lib/config";
import { deleteCatalogTopic, getCatalogTopic, getTopicSchema, listCatalog, putCatalogTopic } from "@/lib/outbound/catalog";
import type { OutboundRoute } from "@/lib/outbound/http";
import { outboundNotFound } from "@/lib/outbound/errors";
import { DESTINATION_TYPES, destinationType } from "@/lib/outbound/destination-types";
import {
  createDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  releaseOrdering,
  setDestinationDisabled,
  updateDestination,
} from "@/lib/outbound/destinations";
import { assertDestination, getAttempt, getEvent, listAttempts, listEvents, outboundMetrics, retry } from "@/lib/outbound/events";
import { outboundHealth } from "@/lib/outbound/health";
import { failingDestinations } from "@/lib/outbound/delivery-health";
import type { OutboundCaller } from "@/lib/outbound/auth";
import { outboundOpenApi } from "@/lib/outbound/openapi";
import { publish } from "@/lib/outbound/publish";
import { cancelArchiveReplay, createArchiveReplay, getArchiveReplay, listArchiveReplays, planArchiveReplay } from "@/lib/outbound/archive-replay";
import { cancelRedrive, createRedrive, getRedrive, listRedrives, planRedrive } from "@/lib/outbound/redrive";
import { getManagedConfig, patchManagedConfig } from "@/lib/outbound/settings";
import { shownTo, testTransformation } from "@/lib/outbound/transformation";
import { deleteTenant, getTenant, listTenants, portalFor, putTenant, tokenFor } from "@/lib/outbound/tenants";

const D = "tenants/:tenant_id/destinations";

/** Whether destination type `type` is offered to `caller`: the gateway type only to the operator, unless OUTBOUND_TENANT_GATEWAY_TYPE (docs/outbound.md "The gateway type"). */
const typeOffered = (type: string, caller: OutboundCaller) => type !== "gateway" || caller.kind === "admin" || getConfig().outbound.tenantGatewayType;

export const OUTBOUND_ROUTES: OutboundRoute[] = [
  {
    method: "GET",
    path: "tenants",
    auth: "any",
    handler: async ({ caller, query }) => ({ body: await listTenants(query, caller.kind === "tenant" ? caller.tenantId : undefined) }),
  },
  { method: "GET", path: "tenants/:tenant_id", auth: "any", handler: async ({ params }) => ({ body: await getTenant(params.tenant_id) }) },
  { method: "PUT", path: "tenants/:tenant_id", auth: "any", handler: async ({ params, body }) => putTenant(params.tenant_id, body) },
  { method: "DELETE", path: "tenants/:tenant_id", auth: "any", handler: async ({ params }) => ({ body: await deleteTenant(params.tenant_id) }) },
  { method: "GET", path: "tenants/:tenant_id/token", auth: "admin", handler: async ({ params }) => ({ body: await tokenFor(params.tenant_id) }) },
  {
    method: "GET",
    path: "tenants/:tenant_id/portal",
    auth: "admin",
    handler: async ({ params, query }) => ({ body: await portalFor(params.tenant_id, query) }),
  },
  // Destination answers go through shownTo: no `transformation` for a tenant when OUTBOUND_PORTAL_TRANSFORMATIONS=off.
  { method: "GET", path: D, auth: "any", handler: ({ params, query, caller }) => shownTo(caller, listDestinations(params.tenant_id, query)) },
  { method: "POST", path: D, auth: "any", handler: ({ params, body, caller }) => shownTo(caller, createDestination(params.tenant_id, body, caller)) },
  {
    method: "GET",
    path: `${D}/:destination_id`,
    auth: "any",
    handler: ({ params, caller }) => shownTo(caller, getDestination(params.tenant_id, params.destination_id)),
  },
  {
    method: "PATCH",
    path: `${D}/:destination_id`,
    auth: "any",
    handler: ({ params, body, caller }) => shownTo(caller, updateDestination(params.tenant_id, params.destination_id, body, caller)),
  },
  // Runs code (or the saved transformation) on an event or a sample, sending nothing (lib/outbound/transformation.ts).
  {
    method: "POST",
    path: `${D}/:destination_id/transformation/test`,
    auth: "any",
    handler: ({ params, body, caller }) => testTransformation(params.tenant_id, params.destination_id, body, caller),
  },
  { method: "DELETE", path: `${D}/:destination_id`, auth: "any", handler: ({ params }) => deleteDestination(params.tenant_id, params.destination_id) },
  // Ordered delivery (lib/outbound/ordering.ts): lets blocked keys go on; a tenant JWT only its own destinations (404 otherwise).
  {
    method: "POST",
    path: `${D}/:destination_id/ordering/release`,
    auth: "any",
    handler: ({ params, body }) => releaseOrdering(params.tenant_id, params.destination_id, body),
  },
  {
    method: "PUT",
    path: `${D}/:destination_id/enable`,
    auth: "any",
    handler: ({ params, caller }) => shownTo(caller, setDestinationDisabled(params.tenant_id, params.destination_id, false)),
  },
  {
    method: "PUT",
    path: `${D}/:destination_id/disable`,
    auth: "any",
    handler: ({ params, caller }) => shownTo(caller, setDestinationDisabled(params.tenant_id, params.destination_id, true)),
  },
  {
    method: "GET",
    path: "destination-types",
    auth: "any",
    handler: ({ caller }) => Promise.resolve({ body: DESTINATION_TYPES.filter((t) => typeOffered(t.type, caller)) }),
  },
  {
    method: "GET",
    path: "destination-types/:type",
    auth: "any",
    handler: ({ params, caller }) => {
      const t = destinationType(params.type);
      if (!t || !typeOffered(t.type, caller)) return Promise.reject(outboundNotFound("destination type not found"));
      return Promise.resolve({ body: t });
    },
  },
  { method: "GET", path: "config", auth: "admin", form: "managed", handler: async () => ({ body: await getManagedConfig() }) },
  { method: "PATCH", path: "config", auth: "admin", form: "managed", handler: async ({ body }) => ({ body: await patchManagedConfig(body) }) },
  { method: "GET", path: "healthz", auth: "none", form: "self-hosted", handler: () => outboundHealth() },
  // The OpenAPI document of the form asked for (lib/outbound/openapi.ts), without credentials.
  { method: "GET", path: "openapi.json", auth: "none", handler: ({ form }) => Promise.resolve({ body: outboundOpenApi(form, OUTBOUND_ROUTES) }) },
  // Delivery health across tenants (lib/outbound/delivery-health.ts): the destinations failing most in the last day.
  { method: "GET", path: "destination-health", auth: "admin", handler: ({ query }) => failingDestinations(query) },
  { method: "GET", path: "topics", auth: "any", handler: () => Promise.resolve({ body: outboundConfig().topics }) },
  // The event catalog (lib/outbound/catalog.ts): everyone reads (a tenant its subscribable topics), the operator writes.
  { method: "GET", path: "catalog", auth: "any", handler: async ({ caller }) => ({ body: await listCatalog(caller) }) },
  { method: "GET", path: "catalog/:topic", auth: "any", handler: async ({ params, caller }) => ({ body: await getCatalogTopic(params.topic, caller) }) },
  { method: "PUT", path: "catalog/:topic", auth: "admin", handler: ({ params, body }) => putCatalogTopic(params.topic, body) },
  { method: "DELETE", path: "catalog/:topic", auth: "admin", handler: ({ params }) => deleteCatalogTopic(params.topic) },
  {
    method: "GET",
    path: "catalog/:topic/schemas/:version",
    auth: "any",
    handler: async ({ params, caller }) => ({ body: await getTopicSchema(params.topic, params.version, caller) }),
  },
  // Publish takes bodies up to the ingestion limit (the 1 MiB limit does not apply to it).
  {
    method: "POST",
    path: "publish",
    auth: "admin",
    get maxBodyBytes() {
      return getConfig().ingestMaxBodyBytes;
    },
    handler: ({ body, rawBody }) => publish(body, rawBody),
  },
  { method: "POST", path: "retry", auth: "any", handler: ({ body, caller }) => retry(body, caller) },
  // Bulk redrive (lib/outbound/redrive.ts): plan, run, progress, cancel; a tenant JWT over its own destinations.
  { method: "POST", path: "redrives/plan", auth: "any", handler: ({ body, caller }) => planRedrive(body, caller) },
  { method: "POST", path: "redrives", auth: "any", handler: ({ body, caller }) => createRedrive(body, caller) },
  { method: "GET", path: "redrives", auth: "any", handler: ({ query, caller }) => listRedrives(query, caller) },
  { method: "GET", path: "redrives/:redrive_id", auth: "any", handler: ({ params, caller }) => getRedrive(params.redrive_id, caller) },
  { method: "POST", path: "redrives/:redrive_id/cancel", auth: "any", handler: ({ params, caller }) => cancelRedrive(params.redrive_id, caller) },
  // Replay from the archive (lib/outbound/archive-replay.ts): plan, run, progress, cancel; a tenant JWT to its own destinations.
  { method: "POST", path: "archive-replays/plan", auth: "any", handler: ({ body, caller }) => planArchiveReplay(body, caller) },
  { method: "POST", path: "archive-replays", auth: "any", handler: ({ body, caller }) => createArchiveReplay(body, caller) },
  { method: "GET", path: "archive-replays", auth: "any", handler: ({ query, caller }) => listArchiveReplays(query, caller) },
  {
    method: "GET",
    path: "archive-replays/:archive_replay_id",
    auth: "any",
    handler: ({ params, caller }) => getArchiveReplay(params.archive_replay_id, caller),
  },
  {
    method: "POST",
    path: "archive-replays/:archive_replay_id/cancel",
    auth: "any",
    handler: ({ params, caller }) => cancelArchiveReplay(params.archive_replay_id, caller),
  },
  { method: "GET", path: "events", auth: "any", handler: ({ query, caller }) => listEvents(query, caller) },
  { method: "GET", path: "events/:event_id", auth: "any", handler: ({ params, caller }) => getEvent(params.event_id, caller) },
  { method: "GET", path: "metrics/events", auth: "any", handler: ({ query, caller }) => outboundMetrics("events", query, caller) },
  { method: "GET", path: "metrics/attempts", auth: "any", handler: ({ query, caller }) => outboundMetrics("attempts", query, caller) },
  { method: "GET", path: "attempts", auth: "any", handler: ({ query, caller }) => listAttempts(query, caller) },
  { method: "GET", path: "attempts/:attempt_id", auth: "any", handler: ({ params, query, caller }) => getAttempt(params.attempt_id, query, caller) },
  {
    method: "GET",
    path: `${D}/:destination_id/attempts`,
    auth: "any",
    handler: async ({ params, query, caller }) => {
      await assertDestination(params.tenant_id, params.destination_id);
      return listAttempts(query, caller, params.destination_id);
    },
  },
  {
    method: "GET",
    path: `${D}/:destination_id/attempts/:attempt_id`,
    auth: "any",
    handler: async ({ params, query, caller }) => {
      await assertDestination(params.tenant_id, params.destination_id);
      return getAttempt(params.attempt_id, query, caller, params.destination_id);
    },
  },
];
