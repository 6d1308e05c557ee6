import { createConnectionRoute, listConnectionsRoute, upsertConnectionRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { listConnectionsRoute as GET, createConnectionRoute as POST, upsertConnectionRoute as PUT };
