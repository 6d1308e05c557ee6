import { methodNotAllowed } from "@/lib/gateway/http";
import { createConnectionRoute, listConnectionsRoute, upsertConnectionRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { listConnectionsRoute as GET, createConnectionRoute as POST, upsertConnectionRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PATCH, methodNotAllowed as DELETE };
