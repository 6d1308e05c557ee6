import { deleteDestinationRoute, getDestinationRoute, updateDestinationRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { getDestinationRoute as GET, updateDestinationRoute as PUT, deleteDestinationRoute as DELETE };
