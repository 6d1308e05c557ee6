import { methodNotAllowed } from "@/lib/gateway/http";
import { getTriggerRoute, updateTriggerRoute, deleteTriggerRoute } from "@/lib/gateway/issues/routes";

export const dynamic = "force-dynamic";
export { getTriggerRoute as GET, updateTriggerRoute as PUT, deleteTriggerRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
