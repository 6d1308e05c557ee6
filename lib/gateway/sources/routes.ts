/**
 * Handlers of `/sources` (docs/gateway-api.md#sources), shared by the route files under
 * app/api/[version]/sources. Thin: parse, call the source store, convert to the caller's version.
 */
import { ZSourceCreate, ZSourceUpdate } from "@/lib/gateway/sources/schemas";
import { toSource, type SourceRow } from "@/lib/gateway/sources/source-model";
import {
  countSources,
  createSource,
  deleteSource,
  getSource,
  listSources,
  SOURCE_ORDER_BY,
  setSourceDisabled,
  updateSource,
  upsertSource,
} from "@/lib/gateway/sources/source-store";
import type { ApiVersion } from "@/lib/gateway/versions";
import { authIncludeFor, downgradeSource, sourceFieldFor, upgradeSourceBody } from "@/lib/gateway/versions/sources";
import { gatewayRoute } from "@/lib/gateway/http";
import { notFound } from "@/lib/http/errors";
import { DISABLE_ACTIONS, includesAny } from "@/lib/gateway/team-resources";
import { type ParsedQuery } from "@/lib/http/query";
import { parsePaging } from "@/lib/http/paging";

const includesAuth = (query: ParsedQuery, version: ApiVersion) => includesAny(query, authIncludeFor(version));

const present = (row: SourceRow, version: ApiVersion, includeAuth: boolean) => downgradeSource(toSource(row, includeAuth), version);

// GET /sources - list the team's sources
export const listSourcesRoute = gatewayRoute({}, async ({ teamId, version, query }) => {
  const page = parsePaging(query, SOURCE_ORDER_BY);
  const auth = includesAuth(query, version);
  return { body: await listSources(teamId, query, page, (row) => present(row, version, auth)) };
});

// POST /sources - create a source (409 when the name is taken)
export const createSourceRoute = gatewayRoute(
  { body: ZSourceCreate, upgradeBody: upgradeSourceBody, fieldName: sourceFieldFor },
  async ({ teamId, version, body, query }) => ({
    body: present(await createSource(teamId, body, version), version, includesAuth(query, version)),
  }),
);

// PUT /sources - create or update the source with this name
export const upsertSourceRoute = gatewayRoute(
  { body: ZSourceCreate, upgradeBody: upgradeSourceBody, fieldName: sourceFieldFor },
  async ({ teamId, version, body, query }) => ({
    body: present(await upsertSource(teamId, body, version), version, includesAuth(query, version)),
  }),
);

// GET /sources/count
export const countSourcesRoute = gatewayRoute({}, async ({ teamId, query }) => ({ body: await countSources(teamId, query) }));

// GET /sources/{id}
export const getSourceRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, version, params, query }) => ({
  body: present(await getSource(teamId, params.id), version, includesAuth(query, version)),
}));

// PUT /sources/{id} - update (every field optional)
export const updateSourceRoute = gatewayRoute<typeof ZSourceUpdate._output, { id: string }>(
  { body: ZSourceUpdate, upgradeBody: upgradeSourceBody, fieldName: sourceFieldFor },
  async ({ teamId, version, params, body, query }) => ({
    body: present(await updateSource(teamId, params.id, body, version), version, includesAuth(query, version)),
  }),
);

// DELETE /sources/{id}
export const deleteSourceRoute = gatewayRoute<undefined, { id: string }>({}, async ({ teamId, params }) => ({ body: await deleteSource(teamId, params.id) }));

// PUT /sources/{id}/disable|archive|enable|unarchive
export const sourceActionRoute = gatewayRoute<undefined, { id: string; action: string }>({}, async ({ teamId, version, params }) => {
  const disabled = DISABLE_ACTIONS[params.action];
  if (disabled === undefined) throw notFound(`${params.id}/${params.action}`);
  return { body: present(await setSourceDisabled(teamId, params.id, disabled), version, false) };
});
