import { methodNotAllowed } from "@/lib/gateway/http";
import { deleteTransformationRoute, getTransformationRoute, updateTransformationRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { getTransformationRoute as GET, updateTransformationRoute as PUT, deleteTransformationRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
