import { methodNotAllowed } from "@/lib/gateway/http";
import { metricsRoute } from "@/lib/gateway/metrics/routes";

export const dynamic = "force-dynamic";
export { metricsRoute as GET };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
