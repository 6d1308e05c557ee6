import { methodNotAllowed } from "@/lib/gateway/http";
import { deleteConnectionRoute, getConnectionRoute, updateConnectionRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { getConnectionRoute as GET, updateConnectionRoute as PUT, deleteConnectionRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
