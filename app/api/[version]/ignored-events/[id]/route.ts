import { methodNotAllowed } from "@/lib/gateway/http";
import { getIgnoredEventRoute } from "@/lib/gateway/ignored-events/routes";

export const dynamic = "force-dynamic";
export { getIgnoredEventRoute as GET };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
