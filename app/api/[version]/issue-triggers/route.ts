import { methodNotAllowed } from "@/lib/gateway/http";
import { listTriggersRoute, createTriggerRoute, upsertTriggerRoute } from "@/lib/gateway/issues/routes";

export const dynamic = "force-dynamic";
export { listTriggersRoute as GET, createTriggerRoute as POST, upsertTriggerRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PATCH, methodNotAllowed as DELETE };
