import { operatorRoute } from "@/lib/dashboard/http";
import { revokeKey } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** Revokes one of the team's live keys (docs/operations.md "Teams and users"). */
export const DELETE = operatorRoute<{ id: string; keyId: string }>(({ params }) => revokeKey(params.id, params.keyId));
