import { userRoute } from "@/lib/dashboard/http";
import { revokeKey } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** Revokes one of the signed-in user's team's live keys; another team's key is a 404 (docs/dashboard.md "Settings"). */
export const DELETE = userRoute<{ keyId: string }>(({ user, params }) => revokeKey(user.teamId, params.keyId));
