/**
 * Gateway teams as an operator manages them (docs/operations.md "Teams and users"): list, look up, delete.
 * A team (TEAM mode) owns sources, destinations, connections, API keys and dashboard users; console guest
 * workspaces are teams too (GUEST mode) but are never listed or managed here. `createTeam` is in
 * lib/teams/bootstrap.ts (the first start uses it).
 */
import { getPrisma } from "@/lib/db/prisma";
import { AppError } from "@/lib/http/errors";

/** A team as listed: id, name, creation time, and how many live API keys and dashboard users it has. */
export type TeamSummary = { id: string; name: string; created_at: Date; api_keys: number; users: number; gateway: boolean };

/**
 * The gateway team: the oldest TEAM-mode team (lib/teams/bootstrap.ts creates it on the first start;
 * GATEWAY_API_KEY, `npm run keys` without `--team` and the first dashboard user belong to it), or null.
 */
export async function gatewayTeamId(): Promise<string | null> {
  const team = await getPrisma().team.findFirst({ where: { mode: "TEAM" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
  return team?.id ?? null;
}

/** Every TEAM-mode team, oldest first (the gateway team first), with its live key and user counts. */
export async function listTeams(): Promise<TeamSummary[]> {
  const [teams, gateway] = await Promise.all([
    getPrisma().team.findMany({
      where: { mode: "TEAM" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, name: true, createdAt: true, _count: { select: { apiKeys: { where: { revokedAt: null } }, dashboardUsers: true } } },
    }),
    gatewayTeamId(),
  ]);
  return teams.map((t) => ({
    id: t.id,
    name: t.name,
    created_at: t.createdAt,
    api_keys: t._count.apiKeys,
    users: t._count.dashboardUsers,
    gateway: t.id === gateway,
  }));
}

/** Throws AppError NOT_FOUND ("no team …") unless `teamId` is a TEAM-mode team. */
export async function requireTeam(teamId: string): Promise<{ id: string; name: string }> {
  const team = await getPrisma().team.findUnique({ where: { id: teamId }, select: { id: true, name: true, mode: true } });
  if (team?.mode !== "TEAM") throw new AppError("NOT_FOUND", `There is no team ${teamId} (see the list of teams).`);
  return { id: team.id, name: team.name };
}

/** Checks a new team's name: 1 to 100 characters once trimmed. Returns it trimmed; throws AppError VALIDATION. */
export function teamName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new AppError("VALIDATION", "A team name has 1 to 100 characters.");
  return trimmed;
}

/**
 * Deletes a team with its API keys, dashboard users (and their sessions), transformations, issues and
 * settings. Refused (AppError CONFLICT, nothing deleted) for the gateway team, which is also the last team
 * left, and while the team has sources or destinations: its data hangs off them, so they are deleted
 * first, on purpose, through the API or the dashboard. Throws AppError NOT_FOUND for an unknown team.
 * Returns what went with it.
 */
export async function deleteTeam(teamId: string): Promise<{ id: string; name: string; api_keys: number; users: number }> {
  const prisma = getPrisma();
  const team = await requireTeam(teamId);
  if ((await gatewayTeamId()) === teamId) {
    throw new AppError(
      "CONFLICT",
      `Team ${teamId} is the gateway team (the oldest: GATEWAY_API_KEY, the first dashboard user and npm start's keys belong to it), so it cannot be deleted.`,
    );
  }
  const counts = await prisma.team.findUnique({
    where: { id: teamId },
    select: { _count: { select: { sources: true, destinations: true, apiKeys: true, dashboardUsers: true } } },
  });
  const c = counts?._count ?? { sources: 0, destinations: 0, apiKeys: 0, dashboardUsers: 0 };
  if (c.sources || c.destinations) {
    throw new AppError(
      "CONFLICT",
      `Team ${teamId} still has ${c.sources} source(s) and ${c.destinations} destination(s); delete them first (gateway API or dashboard), then delete the team.`,
    );
  }
  // A conditional delete: a source or destination made meanwhile keeps the team.
  const { count } = await prisma.team.deleteMany({ where: { id: teamId, sources: { none: {} }, destinations: { none: {} } } });
  if (!count) throw new AppError("CONFLICT", `Team ${teamId} gained a source or destination meanwhile; it was not deleted.`);
  return { id: team.id, name: team.name, api_keys: c.apiKeys, users: c.dashboardUsers };
}
