import { methodNotAllowed } from "@/lib/gateway/http";
import { countDestinationsRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { countDestinationsRoute as GET };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
