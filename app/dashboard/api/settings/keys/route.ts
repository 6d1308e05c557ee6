import { userRoute } from "@/lib/dashboard/http";
import { newKey, ZNewKey } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** A new API key of the signed-in user's team `{name?}`: the key is in this answer only (docs/dashboard.md "Settings"). */
export const POST = userRoute<Record<string, string>, typeof ZNewKey>(({ user, body }) => newKey(user.teamId, body), { body: ZNewKey, status: 201 });
