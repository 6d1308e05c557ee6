import { methodNotAllowed } from "@/lib/gateway/http";
import { cancelEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { cancelEventRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
