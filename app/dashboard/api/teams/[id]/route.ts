import { operatorRoute } from "@/lib/dashboard/http";
import { deleteTeam } from "@/lib/teams/teams";

export const dynamic = "force-dynamic";

/** Deletes a team (refused, 409, for the gateway team and while it has sources or destinations; docs/operations.md "Teams and users"). */
export const DELETE = operatorRoute<{ id: string }>(({ params }) => deleteTeam(params.id));
