/**
 * Which gateway sources a `gateway` destination may deliver into (docs/outbound.md "The gateway type"):
 * only sources of the teams the operator links to the outbound service with OUTBOUND_GATEWAY_TEAMS, by
 * default the gateway team (the oldest team: the one the first `npm start` creates and GATEWAY_API_KEY
 * belongs to). Tenants never reach another team's sources, at create, at update or at delivery.
 */
import { getPool } from "@/lib/db/pool";
import { outboundConfig } from "@/lib/outbound/settings";

/**
 * Whether `sourceId` (`src_…`) is a source of a team linked to the outbound service (OUTBOUND_GATEWAY_TEAMS,
 * else the gateway team). False for an unknown source, a console (guest) one and another team's alike, so
 * the answer tells a tenant nothing about sources it may not use. Throws database errors.
 */
export async function gatewaySourceAllowed(sourceId: string): Promise<boolean> {
  const teams = outboundConfig().gatewayTeams;
  const { rowCount } = await getPool().query(
    `SELECT 1 FROM sources s JOIN teams t ON t.id = s.team_id
      WHERE s.id = $1 AND t.mode = 'TEAM'
        AND CASE WHEN $2::text[] IS NULL THEN t.id = (SELECT id FROM teams WHERE mode = 'TEAM' ORDER BY created_at, id LIMIT 1) ELSE t.id = ANY($2) END`,
    [sourceId, teams],
  );
  return (rowCount ?? 0) > 0;
}

/** The validation message for a `config.source_id` a gateway destination may not target. */
export const notAllowedSourceMessage = (sourceId: string) =>
  `config.source_id: ${sourceId} is not a source of the gateway team linked to the outbound service (OUTBOUND_GATEWAY_TEAMS)`;
