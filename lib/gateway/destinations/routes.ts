/**
 * Handlers of `/destinations` (same operations as sources), shared by app/api/[version]/destinations.
 */
import { type DeliveryStateView, readDeliveryStates } from "@/lib/delivery/destination-state";
import { type DestinationRow, toDestination } from "@/lib/gateway/destinations/destination-model";
import {
  countDestinations,
  createDestination,
  DESTINATION_ORDER_BY,
  deleteDestination,
  getDestination,
  listDestinations,
  setDestinationDisabled,
  updateDestination,
  upsertDestination,
} from "@/lib/gateway/destinations/destination-store";
import { type TDestinationUpdate, ZDestinationCreate, ZDestinationUpdate, ZOrderingRelease } from "@/lib/gateway/destinations/schemas";
import { blockedKeysOf, releaseBlockedKeys } from "@/lib/gateway/delivery/ordering";
import type { ApiVersion } from "@/lib/gateway/versions";
import { destinationAuthInclude, destinationFieldFor, downgradeDestination, upgradeDestinationBody } from "@/lib/gateway/versions/destinations";
import { notFound } from "@/lib/http/errors";
import { DISABLE_ACTIONS, includesAny } from "@/lib/gateway/team-resources";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";
import type { ParsedQuery } from "@/lib/http/query";

const includesAuth = (query: ParsedQuery, version: ApiVersion) => includesAny(query, destinationAuthInclude(version), "config.auth");

/** A destination row in the caller's version (also used inside connections). */
export const presentDestination = (row: DestinationRow, version: ApiVersion, includeAuth = false) =>
  downgradeDestination(toDestination(row, includeAuth), version);

/**
 * `destinations` with their `delivery_state` when something happened to them (one statement; docs/pipeline.md
 * "Receiver-driven limits"), and the blocked keys of the ordered ones (docs/pipeline.md "Ordered delivery").
 */
async function withDeliveryStates<T extends Record<string, unknown>>(destinations: T[]): Promise<(T & { delivery_state?: DeliveryStateView })[]> {
  const ordered = destinations.filter((d) => d.ordering).map((d) => String(d.id));
  const [states, blocked] = await Promise.all([
    readDeliveryStates(
      "gateway",
      destinations.map((d) => String(d.id)),
    ),
    blockedKeysOf(ordered),
  ]);
  return destinations.map((d) => {
    const state = states.get(String(d.id));
    const withOrdering = d.ordering ? { ...d, ordering: { ...d.ordering, blocked_keys: blocked.get(String(d.id)) ?? [] } } : d;
    return state ? { ...withOrdering, delivery_state: state } : withOrdering;
  });
}

// GET /destinations
export const listDestinationsRoute = gatewayRoute({}, async ({ teamId, version, query }) => {
  const page = parsePaging(query, DESTINATION_ORDER_BY);
  const auth = includesAuth(query, version);
  const list = await listDestinations(teamId, query, page, (row) => presentDestination(row, version, auth));
  return { body: { ...list, models: await withDeliveryStates(list.models) } };
});

// POST /destinations (409 when the name is taken)
export const createDestinationRoute = gatewayRoute(
  { body: ZDestinationCreate, upgradeBody: upgradeDestinationBody, fieldName: destinationFieldFor },
  async ({ teamId, version, body, query }) => ({
    body: presentDestination(await createDestination(teamId, body), version, includesAuth(query, version)),
  }),
);

// PUT /destinations - create or update by name
export const upsertDestinationRoute = gatewayRoute(
  { body: ZDestinationCreate, upgradeBody: upgradeDestinationBody, fieldName: destinationFieldFor },
  async ({ teamId, version, body, query }) => ({
    body: presentDestination(await upsertDestination(teamId, body), version, includesAuth(query, version)),
  }),
);

// GET /destinations/count
export const countDestinationsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countDestinations(teamId, query) }));

// GET /destinations/{id}
export const getDestinationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, version, params, query }) => ({
  body: (await withDeliveryStates([presentDestination(await getDestination(teamId, params.id), version, includesAuth(query, version))]))[0],
}));

// PUT /destinations/{id}
export const updateDestinationRoute = gatewayRoute<TDestinationUpdate, { id: string }>(
  { body: ZDestinationUpdate, upgradeBody: upgradeDestinationBody, fieldName: destinationFieldFor },
  async ({ teamId, version, params, body, query }) => ({
    body: presentDestination(await updateDestination(teamId, params.id, body), version, includesAuth(query, version)),
  }),
);

// DELETE /destinations/{id}
export const deleteDestinationRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({
  body: await deleteDestination(teamId, params.id),
}));

// PUT /destinations/{id}/disable|archive|enable|unarchive
export const destinationActionRoute = gatewayRoute<undefined, { id: string; action: string }>({}, async ({ teamId, version, params }) => {
  const disabled = DISABLE_ACTIONS[params.action];
  if (disabled === undefined) throw notFound(`${params.id}/${params.action}`);
  return { body: presentDestination(await setDestinationDisabled(teamId, params.id, disabled), version) };
});

// POST /destinations/{id}/ordering/release: releases blocked ordering keys (docs/pipeline.md "Ordered delivery")
export const releaseOrderingRoute = gatewayRoute<{ keys?: string[] }, { id: string }>(
  { body: ZOrderingRelease, optionalBody: true },
  async ({ teamId, params, body }) => {
    const destination = await getDestination(teamId, params.id);
    return { body: { released: await releaseBlockedKeys(destination.id, body.keys) } };
  },
);
