// Every outbound API path, both forms (`/outbound/api/v1/…`, `/outbound/2025-07-01/…`): lib/outbound/http.ts.
import { outboundHandler } from "@/lib/outbound/http";
import { OUTBOUND_ROUTES } from "@/lib/outbound/routes";

export const dynamic = "force-dynamic";
const handler = outboundHandler(OUTBOUND_ROUTES);
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
