import { userRoute } from "@/lib/dashboard/http";
import { replaceCliKey } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** Replaces the signed-in user's team's CLI key; the new key is in this answer only (docs/dashboard.md "Settings"). */
export const POST = userRoute(({ user }) => replaceCliKey(user.teamId), { status: 201 });
