import { methodNotAllowed } from "@/lib/gateway/http";
import { createTransformationRoute, listTransformationsRoute, upsertTransformationRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { listTransformationsRoute as GET, createTransformationRoute as POST, upsertTransformationRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PATCH, methodNotAllowed as DELETE };
