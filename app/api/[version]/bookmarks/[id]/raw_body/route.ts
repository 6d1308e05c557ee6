import { methodNotAllowed } from "@/lib/gateway/http";
import { bookmarkRawBodyRoute } from "@/lib/gateway/bookmarks/routes";

export const dynamic = "force-dynamic";
export { bookmarkRawBodyRoute as GET };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
