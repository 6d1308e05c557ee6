import { methodNotAllowed } from "@/lib/gateway/http";
import { releaseOrderingRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { releaseOrderingRoute as POST };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
