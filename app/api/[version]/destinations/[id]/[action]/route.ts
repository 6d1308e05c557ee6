import { destinationActionRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { destinationActionRoute as PUT };
