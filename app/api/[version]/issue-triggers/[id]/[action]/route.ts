import { methodNotAllowed } from "@/lib/gateway/http";
import { triggerActionRoute } from "@/lib/gateway/issues/routes";

export const dynamic = "force-dynamic";
export { triggerActionRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
