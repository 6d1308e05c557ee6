import { methodNotAllowed } from "@/lib/gateway/http";
import { sourceActionRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { sourceActionRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
