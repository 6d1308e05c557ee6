import { methodNotAllowed } from "@/lib/gateway/http";
import { createDestinationRoute, listDestinationsRoute, upsertDestinationRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { listDestinationsRoute as GET, createDestinationRoute as POST, upsertDestinationRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PATCH, methodNotAllowed as DELETE };
