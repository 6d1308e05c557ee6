import { createDestinationRoute, listDestinationsRoute, upsertDestinationRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { listDestinationsRoute as GET, createDestinationRoute as POST, upsertDestinationRoute as PUT };
