import { operatorRoute } from "@/lib/dashboard/http";
import { newUser, ZNewUser } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** A new dashboard user of the team `{email, password?, operator?}` (docs/operations.md "Teams and users"). */
export const POST = operatorRoute<{ id: string }, typeof ZNewUser>(({ params, body }) => newUser(params.id, body), { body: ZNewUser, status: 201 });
