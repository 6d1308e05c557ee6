import { methodNotAllowed } from "@/lib/gateway/http";
import { listBookmarksRoute, createBookmarkRoute } from "@/lib/gateway/bookmarks/routes";

export const dynamic = "force-dynamic";
export { listBookmarksRoute as GET, createBookmarkRoute as POST };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PUT, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
