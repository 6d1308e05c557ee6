import { methodNotAllowed } from "@/lib/gateway/http";
import { deleteDestinationRoute, getDestinationRoute, updateDestinationRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { getDestinationRoute as GET, updateDestinationRoute as PUT, deleteDestinationRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
