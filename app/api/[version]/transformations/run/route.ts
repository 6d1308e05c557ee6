import { methodNotAllowed } from "@/lib/gateway/http";
import { runTransformationRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { runTransformationRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
