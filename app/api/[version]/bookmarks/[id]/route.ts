import { methodNotAllowed } from "@/lib/gateway/http";
import { getBookmarkRoute, updateBookmarkRoute, deleteBookmarkRoute } from "@/lib/gateway/bookmarks/routes";

export const dynamic = "force-dynamic";
export { getBookmarkRoute as GET, updateBookmarkRoute as PUT, deleteBookmarkRoute as DELETE };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as POST, methodNotAllowed as PATCH };
