import { methodNotAllowed } from "@/lib/gateway/http";
import { triggerBookmarkRoute } from "@/lib/gateway/bookmarks/routes";

export const dynamic = "force-dynamic";
export { triggerBookmarkRoute as POST };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
