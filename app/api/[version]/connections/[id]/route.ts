import { deleteConnectionRoute, getConnectionRoute, updateConnectionRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { getConnectionRoute as GET, updateConnectionRoute as PUT, deleteConnectionRoute as DELETE };
