import { methodNotAllowed } from "@/lib/gateway/http";
import { deleteSourceRoute, getSourceRoute, updateSourceRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { getSourceRoute as GET, updateSourceRoute as PUT, deleteSourceRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
