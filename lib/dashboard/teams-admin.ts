/**
 * What the Teams page does (docs/operations.md "Teams and users"), behind the operator-only endpoints of
 * `/dashboard/api/teams`: teams with their API keys and users, a new team, a new key (its value answered
 * once), a revoked key, a new user (with a one-time sign-in link when no password is given). Answers are
 * the JSON the page reads (snake_case, times as Date until serialised).
 */
import { z } from "zod";
import { signInLink } from "@/lib/dashboard/bootstrap";
import { createSignInToken, createUser, type DashboardUser, listUsers } from "@/lib/dashboard/users";
import { AppError } from "@/lib/http/errors";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/teams/api-keys";
import { createTeam } from "@/lib/teams/bootstrap";
import { rotateCliKey } from "@/lib/teams/cli-key";
import type { SessionUser } from "@/lib/teams/dashboard-session";
import { listTeams, requireTeam, teamName, type TeamSummary } from "@/lib/teams/teams";

/** Body of `POST /dashboard/api/teams`. */
export const ZNewTeam = z.strictObject({ name: z.string() });
/** Body of `POST /dashboard/api/teams/{id}/keys`. */
export const ZNewKey = z.strictObject({ name: z.string().trim().min(1).max(100).default("key") });
/** Body of `POST /dashboard/api/teams/{id}/users`: no password → a one-time sign-in link. */
export const ZNewUser = z.strictObject({
  email: z.string().max(254),
  password: z.string().max(1024).nullish(),
  operator: z.boolean().default(false),
});

/** An API key as the page lists it (never the key nor its hash). */
type KeyView = { id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null };
const keyView = (k: Awaited<ReturnType<typeof listApiKeys>>[number]): KeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.createdAt,
  last_used_at: k.lastUsedAt,
  revoked_at: k.revokedAt,
});

/** A user as the page lists it. */
const userView = (u: DashboardUser) => ({ id: u.id, email: u.email, operator: u.operator, has_password: u.has_password, created_at: u.created_at });

/** Every team with its keys (newest first, revoked ones included) and users (oldest first). */
export async function teamsOverview(): Promise<{ models: (TeamSummary & { keys: KeyView[]; members: ReturnType<typeof userView>[] })[] }> {
  const [teams, keys, users] = await Promise.all([listTeams(), listApiKeys(), listUsers()]);
  return {
    models: teams.map((t) => ({
      ...t,
      keys: keys.filter((k) => k.teamId === t.id).map(keyView),
      members: users.filter((u) => u.team_id === t.id).map(userView),
    })),
  };
}

/** Creates a team; answers its id and name, and its signing secret and CLI key (shown once). Throws AppError VALIDATION for a bad name. */
export async function newTeam(body: z.infer<typeof ZNewTeam>) {
  const name = teamName(body.name);
  const team = await createTeam(name);
  return { id: team.teamId, name, signing_secret: team.signingSecret, cli_key: team.cliKey };
}

/** A new API key of team `teamId`: the key is in the answer once (only its hash is stored). Throws AppError NOT_FOUND for an unknown team. */
export async function newKey(teamId: string, body: z.infer<typeof ZNewKey>) {
  await requireTeam(teamId);
  const { key, record } = await createApiKey(teamId, body.name);
  return { ...keyView(record), key };
}

/** Revokes the live key `keyId` of team `teamId`. Throws AppError NOT_FOUND when the team has no such live key. */
export async function revokeKey(teamId: string, keyId: string) {
  await requireTeam(teamId);
  // By id only (revokeApiKey also takes a prefix or the key itself: not here).
  const live = (await listApiKeys(teamId)).some((k) => k.id === keyId && !k.revokedAt);
  const revoked = live ? await revokeApiKey(keyId, teamId) : null;
  if (!revoked) throw new AppError("NOT_FOUND", `Team ${teamId} has no live key ${keyId}.`);
  return keyView(revoked);
}

/**
 * A new dashboard user of team `teamId` (an operator when asked). Without a password, the answer carries a
 * one-time `sign_in_link` (24 hours) that sets it. Throws AppError NOT_FOUND (team), VALIDATION (email,
 * password), CONFLICT (email taken).
 */
export async function newUser(teamId: string, body: z.infer<typeof ZNewUser>) {
  await requireTeam(teamId);
  const password = body.password ? body.password : null;
  const user = await createUser(body.email, password, teamId, { operator: body.operator });
  return { ...userView(user), sign_in_link: password ? null : signInLink(await createSignInToken(user.id)) };
}

/**
 * The Settings page's view of the signed-in user's own team (docs/dashboard.md "Settings"): its id and name,
 * its API keys (newest first, revoked ones included; never a key itself) and its users (oldest first).
 * Throws AppError NOT_FOUND when the team is gone.
 */
export async function ownTeam(teamId: string) {
  const team = await requireTeam(teamId);
  const [keys, users] = await Promise.all([listApiKeys(teamId), listUsers(teamId)]);
  return { id: team.id, name: team.name, keys: keys.map(keyView), members: users.map(userView) };
}

/**
 * A new user of `user`'s own team, as {@link newUser}. Only an operator may make an operator: otherwise
 * throws AppError FORBIDDEN.
 */
export async function newOwnUser(user: SessionUser, body: z.infer<typeof ZNewUser>) {
  if (body.operator && !user.operator) throw new AppError("FORBIDDEN", "Only operators may add operators.");
  return newUser(user.teamId, body);
}

/** Replaces the team's CLI key (`hookyard listen --cli-key`) with a new one, answered once; the old key stops working at once. */
export async function replaceCliKey(teamId: string): Promise<{ cli_key: string }> {
  await requireTeam(teamId);
  return { cli_key: await rotateCliKey(teamId) };
}
