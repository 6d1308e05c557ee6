import { methodNotAllowed } from "@/lib/gateway/http";
import { getIssueRoute, updateIssueRoute, dismissIssueRoute } from "@/lib/gateway/issues/routes";

export const dynamic = "force-dynamic";
export { getIssueRoute as GET, updateIssueRoute as PUT, dismissIssueRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
