import { operatorRoute } from "@/lib/dashboard/http";
import { newTeam, teamsOverview, ZNewTeam } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** Every team with its keys and users (operators only; docs/operations.md "Teams and users"). */
export const GET = operatorRoute(() => teamsOverview());
/** A new team `{name}`: answers its id, signing secret and CLI key (shown once). */
export const POST = operatorRoute(({ body }) => newTeam(body), { body: ZNewTeam, status: 201 });
