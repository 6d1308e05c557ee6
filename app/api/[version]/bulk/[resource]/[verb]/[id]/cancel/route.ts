import { methodNotAllowed } from "@/lib/gateway/http";
import { cancelBulkRoute } from "@/lib/gateway/bulk/routes";

export const dynamic = "force-dynamic";
export { cancelBulkRoute as POST };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
