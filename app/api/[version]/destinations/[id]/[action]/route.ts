import { methodNotAllowed } from "@/lib/gateway/http";
import { destinationActionRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { destinationActionRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
