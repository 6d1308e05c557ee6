import { userRoute } from "@/lib/dashboard/http";
import { newOwnUser, ZNewUser } from "@/lib/dashboard/teams-admin";

export const dynamic = "force-dynamic";

/** A new user of the signed-in user's team `{email, password?, operator?}`; only operators add operators (docs/dashboard.md "Settings"). */
export const POST = userRoute<Record<string, string>, typeof ZNewUser>(({ user, body }) => newOwnUser(user, body), { body: ZNewUser, status: 201 });
