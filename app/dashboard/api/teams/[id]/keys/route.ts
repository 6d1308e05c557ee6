import { operatorRoute } from "@/lib/dashboard/http";
import { newKey, ZNewKey } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** A new API key of the team `{name?}`: the key is in this answer only (docs/operations.md "Teams and users"). */
export const POST = operatorRoute<{ id: string }, typeof ZNewKey>(({ params, body }) => newKey(params.id, body), { body: ZNewKey, status: 201 });
