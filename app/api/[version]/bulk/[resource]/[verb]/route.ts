import { methodNotAllowed } from "@/lib/gateway/http";
import { listBulkRoute, createBulkRoute } from "@/lib/gateway/bulk/routes";

export const dynamic = "force-dynamic";
export { listBulkRoute as GET, createBulkRoute as POST };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
