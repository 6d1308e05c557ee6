import { deleteSourceRoute, getSourceRoute, updateSourceRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { getSourceRoute as GET, updateSourceRoute as PUT, deleteSourceRoute as DELETE };
