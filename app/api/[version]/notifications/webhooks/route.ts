import { methodNotAllowed } from "@/lib/gateway/http";
import { notificationWebhooksRoute } from "@/lib/gateway/issues/routes";

export const dynamic = "force-dynamic";
export { notificationWebhooksRoute as PUT };
// Methods this endpoint does not have: 405 with the gateway error body.
export { methodNotAllowed as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
