import { methodNotAllowed } from "@/lib/gateway/http";
import { createSourceRoute, listSourcesRoute, upsertSourceRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { listSourcesRoute as GET, createSourceRoute as POST, upsertSourceRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as PATCH, methodNotAllowed as DELETE };
