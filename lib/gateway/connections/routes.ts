/**
 * Handlers of `/connections`, shared by app/api/[version]/connections. A connection answers with its
 * source and destination in the caller's version and `full_name` = "<source name> -> <connection name>".
 */
import { releaseHeldEvents } from "@/lib/gateway/delivery/event-actions";
import { getPrisma } from "@/lib/db/prisma";
import {
  CONNECTION_ORDER_BY,
  type ConnectionRow,
  countConnections,
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  setConnectionDisabled,
  setConnectionPaused,
  updateConnection,
  upsertConnection,
} from "@/lib/gateway/connections/connection-store";
import { type TConnectionCreate, type TConnectionUpdate, ZConnectionCreate, ZConnectionUpdate } from "@/lib/gateway/connections/schemas";
import { type DestinationRow } from "@/lib/gateway/destinations/destination-model";
import { presentDestination } from "@/lib/gateway/destinations/routes";
import { type SourceRow, toSource } from "@/lib/gateway/sources/source-model";
import { DISABLE_ACTIONS } from "@/lib/gateway/team-resources";
import { type ApiVersion } from "@/lib/gateway/versions";
import { destinationFieldFor, upgradeDestinationBody } from "@/lib/gateway/versions/destinations";
import { downgradeSource, sourceFieldFor, upgradeSourceBody } from "@/lib/gateway/versions/sources";
import { AppError, notFound, withFieldPrefix } from "@/lib/http/errors";
import { gatewayRoute } from "@/lib/gateway/http";
import { parsePaging } from "@/lib/http/paging";

/** Connections with their sources and destinations, in the caller's version (two queries for any number). */
async function present(rows: ConnectionRow[], version: ApiVersion) {
  const prisma = getPrisma();
  const [sources, destinations] = (await Promise.all([
    prisma.source.findMany({ where: { id: { in: rows.map((r) => r.sourceId) } } }),
    prisma.destination.findMany({ where: { id: { in: rows.map((r) => r.destinationId) } } }),
  ])) as [SourceRow[], DestinationRow[]];
  const sourceById = new Map(sources.map((s) => [s.id, s]));
  const destinationById = new Map(destinations.map((d) => [d.id, d]));
  return rows.map((r) => {
    const source = sourceById.get(r.sourceId)!;
    return {
      id: r.id,
      team_id: r.teamId,
      name: r.name,
      full_name: `${source.name} -> ${r.name}`,
      description: r.description,
      source: downgradeSource(toSource(source), version),
      destination: presentDestination(destinationById.get(r.destinationId)!, version),
      rules: r.rules,
      disabled_at: r.disabledAt?.toISOString() ?? null,
      paused_at: r.pausedAt?.toISOString() ?? null,
      updated_at: r.updatedAt.toISOString(),
      created_at: r.createdAt.toISOString(),
    };
  });
}
const presentOne = async (row: ConnectionRow, version: ApiVersion) => (await present([row], version))[0];

/** Runs an upgrade of an inline part; a 422 naming one of its fields is renamed under `prefix` ("source.type"). */
function prefixed<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof AppError ? withFieldPrefix(err, prefix) : err;
  }
}

/** Older versions send flat inline sources and destinations: convert them like the resources' own bodies. */
function upgradeConnectionBody(body: unknown, version: ApiVersion): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const b = { ...(body as Record<string, unknown>) };
  if (b.source && typeof b.source === "object") b.source = prefixed("source", () => upgradeSourceBody(b.source, version));
  if (b.destination && typeof b.destination === "object") b.destination = prefixed("destination", () => upgradeDestinationBody(b.destination, version));
  return b;
}

/** A field of the internal connection body as `version` names it: inline source and destination fields in their version's shape. */
function connectionFieldFor(field: string, version: ApiVersion): string {
  if (field.startsWith("source.")) return `source.${sourceFieldFor(field.slice("source.".length), version)}`;
  if (field.startsWith("destination.")) return `destination.${destinationFieldFor(field.slice("destination.".length), version)}`;
  return field;
}

// GET /connections
export const listConnectionsRoute = gatewayRoute({}, async ({ teamId, version, query }) => {
  const page = await listConnections(teamId, query, parsePaging(query, CONNECTION_ORDER_BY));
  return { body: { ...page, models: await present(page.models, version) } };
});

// POST /connections - create, with inline or referenced source and destination, and rules
export const createConnectionRoute = gatewayRoute<TConnectionCreate>(
  { body: ZConnectionCreate, upgradeBody: upgradeConnectionBody, fieldName: connectionFieldFor },
  async ({ teamId, version, body }) => ({
    body: await presentOne(await createConnection(teamId, body, version), version),
  }),
);

// PUT /connections - create or update by name and source
export const upsertConnectionRoute = gatewayRoute<TConnectionCreate>(
  { body: ZConnectionCreate, upgradeBody: upgradeConnectionBody, fieldName: connectionFieldFor },
  async ({ teamId, version, body }) => ({
    body: await presentOne(await upsertConnection(teamId, body, version), version),
  }),
);

// GET /connections/count
export const countConnectionsRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countConnections(teamId, query) }));

// GET /connections/{id}
export const getConnectionRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, version, params }) => ({
  body: await presentOne(await getConnection(teamId, params.id), version),
}));

// PUT /connections/{id} - name, description, rules
export const updateConnectionRoute = gatewayRoute<TConnectionUpdate, { id: string }>(
  { body: ZConnectionUpdate },
  async ({ teamId, version, params, body }) => ({
    body: await presentOne(await updateConnection(teamId, params.id, body, version), version),
  }),
);

// DELETE /connections/{id}
export const deleteConnectionRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({
  body: await deleteConnection(teamId, params.id),
}));

// PUT /connections/{id}/pause|unpause|disable|enable|archive|unarchive
export const connectionActionRoute = gatewayRoute<undefined, { id: string; action: string }>({}, async ({ teamId, version, params }) => {
  if (params.action === "pause" || params.action === "unpause") {
    const row = await setConnectionPaused(teamId, params.id, params.action === "pause");
    if (params.action === "unpause") await releaseHeldEvents(row.id);
    return { body: await presentOne(row, version) };
  }
  const disabled = DISABLE_ACTIONS[params.action];
  if (disabled === undefined) throw notFound(`${params.id}/${params.action}`);
  return { body: await presentOne(await setConnectionDisabled(teamId, params.id, disabled), version) };
});
